"""Shrink the exported network to 8-bit integers for speed (onnxruntime only).

On CPUs with 8-bit dot-product instructions (AVX-512 VNNI, AVX-VNNI) onnxruntime
runs int8 convolutions about twice as fast as float32; elsewhere still faster. The
weights are quantised per output channel, the activations per tensor with ranges
measured on training crops (static quantisation, QDQ format). The model's
confidence is calibrated afterwards on the int8 model's own outputs, so the "?"
threshold holds for what ships::

    >>> quantize_model(Path("float.onnx"), Path("tiles.onnx"), crops)  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

import numpy as np

CALIBRATION_CROPS = 1024
"""Training crops whose activations set the int8 ranges."""


class _Batches:
    """onnxruntime's calibration reader: the crops in batches of 64."""

    def __init__(self, crops: np.ndarray) -> None:
        self._batches = [crops[i : i + 64].astype(np.float32) for i in range(0, len(crops), 64)]

    def get_next(self) -> dict | None:
        return {"crops": self._batches.pop(0)} if self._batches else None

    def rewind(self) -> None:  # part of onnxruntime's reader interface, unused here
        pass


def quantize_model(fp32_path: Path, out_path: Path, crops: np.ndarray, seed: int = 0) -> None:
    """Write ``out_path``: ``fp32_path`` with int8 weights and activations, activation
    ranges from a seeded sample of ``crops`` (N x P x P x 3, uint8)."""
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(crops), size=min(CALIBRATION_CROPS, len(crops)), replace=False)
    # The quantiser warns (root logger) that the embedding's 1-d batch-norm has no
    # channel axis; it is quantised per tensor, which is what it should be.
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        _quantize(fp32_path, out_path, crops[np.sort(pick)])
    finally:
        root.setLevel(level)


def _quantize(fp32_path: Path, out_path: Path, calibration: np.ndarray) -> None:
    from onnxruntime.quantization import (
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory() as tmp:
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(fp32_path), str(prepared))
        quantize_static(
            str(prepared),
            str(out_path),
            _Batches(calibration),
            quant_format=QuantFormat.QDQ,
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.MinMax,
        )
