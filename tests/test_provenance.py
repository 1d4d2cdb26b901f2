"""Where a network was trained, and the verdict `setupcam train` ends with."""

from __future__ import annotations

from pathlib import Path

from vision.training.provenance import (
    cpu_description,
    recipe_differences,
    shipped_digests,
    training_host,
    verdict,
)

CPUINFO = """processor\t: 0
model name\t: Example CPU @ 2.0GHz
flags\t\t: fpu sse avx2 fma avx512f avx512_bf16 amx_tile amx_bf16
processor\t: 1
model name\t: Example CPU @ 2.0GHz
flags\t\t: fpu sse avx2 fma avx512f avx512_bf16 amx_tile amx_bf16
"""


def test_the_cpu_is_described_by_the_flags_that_choose_kernels(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text(CPUINFO, encoding="utf-8")
    assert cpu_description(info) == (
        "Example CPU @ 2.0GHz",
        ["avx2", "fma", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16"],
    )
    model, features = cpu_description(tmp_path / "missing")
    assert model and features == []


def test_the_training_host_names_the_libraries_its_arithmetic_came_from() -> None:
    import onnxruntime
    import torch

    host = training_host()
    assert host["torch"] == torch.__version__ and host["onnxruntime"] == onnxruntime.__version__
    assert isinstance(host["cpu_features"], list) and host["torch_cpu_capability"]


def test_a_recipe_is_compared_without_the_crop_caches_names() -> None:
    shipped = {"epochs": 32, "seed": 2, "train": {"seed": 1000, "cache_key": "2d8f2cfe70"}}
    same = {"epochs": 32, "seed": 2, "train": {"seed": 1000, "cache_key": "4a5a6d2d92"}}
    assert recipe_differences(same, shipped) == []
    other = {"epochs": 24, "seed": 2, "train": {"seed": 1001, "cache_key": "2d8f2cfe70"}}
    assert recipe_differences(other, shipped) == ["epochs", "train"]
    assert recipe_differences({**same, "threads": 2}, shipped) == ["threads"]
    # A field added since the shipped network was trained counts as its default there.
    newer = {**same, "small_crop_epochs": 0}
    assert recipe_differences(newer, shipped, {"small_crop_epochs": 0}) == []
    assert recipe_differences(
        {**same, "small_crop_epochs": 20}, shipped, {"small_crop_epochs": 0}
    ) == ["small_crop_epochs"]
    assert recipe_differences(newer, shipped) == ["small_crop_epochs"]
    # A default held as a tuple matches the list a .json holds.
    widths = {**same, "widths": [24, 32, 64, 128]}
    assert recipe_differences(widths, shipped, {"widths": (24, 32, 64, 128)}) == []
    assert recipe_differences(widths, shipped, {"widths": (16, 32, 64, 128)}) == ["widths"]


def test_the_verdict_says_why_a_network_is_not_the_shipped_one() -> None:
    amx = {"cpu_features": ["avx2", "amx_bf16"], "torch": "2.13.0", "onnxruntime": "1.32.0"}
    avx2 = {"cpu_features": ["avx2"], "torch": "2.13.0", "onnxruntime": "1.32.0"}
    shipped = {"network_digest": "ab", "same_network_as": ["aa"], "trained_on": amx}
    assert shipped_digests(shipped) == {"ab", "aa"} and shipped_digests({}) == set()
    assert verdict("reader", "ab", shipped, avx2) == "reader: the shipped network (ab), bit for bit"
    assert "bit for bit" in verdict("reader", "aa", shipped, avx2)  # an earlier form of it
    line = verdict("reader", "cd", shipped, avx2)
    assert line.startswith("reader: network cd, not the shipped network (ab)")
    assert "other kernels (avx2; the shipped one on avx2 amx_bf16)" in line
    newer = dict(amx, onnxruntime="1.33.0")
    assert verdict("reader", "cd", shipped, newer).endswith("other library versions (onnxruntime)")
    assert "the recipe or the crops differ" in verdict("reader", "cd", shipped, amx)
    unrecorded = verdict("reader", "cd", {"network_digest": "ab"}, amx)
    assert "does not say which CPU trained it" in unrecorded
