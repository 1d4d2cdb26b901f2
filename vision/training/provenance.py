"""Where a network was trained, and whether a run reproduced the shipped network.

Training is seeded, and the crops came out bit for bit the same on session 17's CPU
and session 24's, but the training's float arithmetic does not: torch's convolutions
(oneDNN) choose their kernels by the CPU's instruction sets (AMX, AVX-512 BF16, AVX2,
...), and each kernel sums in its own order. So the same recipe on the same crops gives
the same network bit for bit only on a CPU with the same kernels. On another CPU the
first step's loss already differs in its sixth digit, and 12,000 steps later it is
another network of the same recipe, as good within the spread between trainings
(models/HISTORY.md, "Session 24").

Training therefore records the CPU and the library versions in each network's
``.json`` (``trained_on``), and ``setupcam train`` ends by saying whether it made the
shipped networks, and if not, whether the CPU explains it::

    >>> verdict("reader", "ab12", {"network_digest": "ab12"}, {})
    'reader: the shipped network (ab12), bit for bit'
    >>> host = {"cpu_features": ["avx2"]}
    >>> verdict("reader", "cd34", {"network_digest": "ab12", "trained_on": host}, host)[:52]
    'reader: network cd34, not the shipped network (ab12)'
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

KERNEL_FEATURES = (
    "avx2",
    "fma",
    "avx512f",
    "avx512_vnni",
    "avx512_bf16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
)
"""CPU flags (``/proc/cpuinfo`` names) that decide which kernels train the network."""

CPUINFO = Path("/proc/cpuinfo")


def cpu_description(cpuinfo: Path = CPUINFO) -> tuple[str, list[str]]:
    """The CPU's model name and which of :data:`KERNEL_FEATURES` it has (Linux; on
    other systems the platform's processor name and no features)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return platform.processor() or "unknown", []
    model, flags = "unknown", set()
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and model == "unknown":
            model = value.strip()
        elif key == "flags" and not flags:
            flags = set(value.split())
    return model, [f for f in KERNEL_FEATURES if f in flags]


def training_host() -> dict[str, object]:
    """What a network's training arithmetic depended on: the CPU, the kernels torch
    dispatches to, and the versions of the libraries that train, quantise and render."""
    import cv2
    import numpy as np
    import onnx
    import onnxruntime
    import torch

    model, features = cpu_description()
    host: dict[str, object] = {
        "cpu": model,
        "cpu_features": features,
        "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "torch": torch.__version__,
        "onnxruntime": onnxruntime.__version__,
        "onnx": onnx.__version__,
        "numpy": np.__version__,
        "opencv": cv2.__version__,
    }
    if os.environ.get("ONEDNN_MAX_CPU_ISA"):
        host["onednn_max_cpu_isa"] = os.environ["ONEDNN_MAX_CPU_ISA"]
    return host


def shipped_digests(meta: dict) -> set[str]:
    """Every digest a shipped ``.json`` names its network by (its own, and those of the
    same network in earlier forms, ``same_network_as``)."""
    return ({meta.get("network_digest", "")} | set(meta.get("same_network_as", []))) - {""}


def recipe_differences(
    recipe: dict, shipped_recipe: dict, defaults: dict | None = None
) -> list[str]:
    """The recipe fields (``TrainConfig``'s) in which ``recipe`` differs from the shipped
    network's. A crop set's ``cache_key`` is left out: it names the rendering code's
    version, which changes with any edit of it, while the crops may stay the same. A
    field one recipe lacks (it predates the field) counts as its value in ``defaults``."""
    defaults = defaults or {}

    def comparable(source: dict, key: str) -> object:
        value = source.get(key, defaults.get(key))
        if isinstance(value, dict):
            return {k: v for k, v in value.items() if k != "cache_key"}
        if isinstance(value, tuple):  # a default, where the .json holds a list
            return list(value)
        return value

    keys = sorted(set(recipe) | set(shipped_recipe))
    return [k for k in keys if comparable(recipe, k) != comparable(shipped_recipe, k)]


def verdict(name: str, digest: str, shipped: dict, host: dict) -> str:
    """One line: did training make the shipped network ``name`` (its ``.json`` as
    ``shipped``), and if not, does the CPU (``host``, :func:`training_host`) explain it?"""
    reference = shipped.get("network_digest", "?")
    if digest in shipped_digests(shipped):
        return f"{name}: the shipped network ({reference}), bit for bit"
    line = f"{name}: network {digest}, not the shipped network ({reference})"
    shipped_host = shipped.get("trained_on")
    if not shipped_host:
        return (
            f"{line}; the shipped .json does not say which CPU trained it, and another CPU's "
            "kernels make another network of the same recipe (models/HISTORY.md, 'Session 24')"
        )
    if shipped_host.get("cpu_features") != host.get("cpu_features"):
        return (
            f"{line}: trained on a CPU with other kernels ({_features(host)}; the shipped one "
            f"on {_features(shipped_host)}), which makes another network of the same recipe"
        )
    differing = [
        key
        for key in ("torch", "onnxruntime", "onnx", "numpy", "opencv", "onednn_max_cpu_isa")
        if shipped_host.get(key) != host.get(key)
    ]
    if differing:
        return f"{line}: other library versions ({', '.join(differing)})"
    return f"{line}, on the same CPU kernels and libraries: the recipe or the crops differ"


def _features(host: dict) -> str:
    return " ".join(host.get("cpu_features", [])) or "no listed features"
