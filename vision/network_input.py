"""Crops as a tile network's ONNX file takes them.

A network as training exports it takes float32 crops (N x P x P x 3, BGR, 0..255)
and quantises them itself: its int8 first layer reads the 8-bit level
``round_half_even(x - 127.5) + 128`` of each value x (the input's scale is one grey
level: 1/64 of the normalising ``STD`` of 64). A network whose first layers run on
2x2 blocks (:mod:`vision.training.space_to_depth`) takes those 8-bit levels instead
(a ``uint8`` input). For a frame's 12 crops, onnxruntime's float subtraction and
quantiser cost 0.15 ms of about 3 ms, while for 8-bit crops the levels are one
saturating add: every level x lies halfway between two, and the tie goes to the
even one, so an odd level becomes the even one above (and 255 stays 255)::

    >>> eight_bit_levels(np.array([[0, 1, 2, 3, 254, 255]], np.uint8)).tolist()
    [[0, 2, 2, 4, 254, 255]]
"""

from __future__ import annotations

import cv2
import numpy as np

MEAN, ZERO_POINT = 127.5, 128
"""The normalising mean and the 8-bit zero point the levels are made with."""


def eight_bit_levels(crops: np.ndarray) -> np.ndarray:
    """The 8-bit level (``uint8``, same shape) each value of ``crops`` has at a
    network's first layer: exact for 8-bit crops and for float ones alike."""
    if crops.dtype == np.uint8:
        if crops.size == 0:
            return crops.copy()
        flat = np.ascontiguousarray(crops).reshape(len(crops), -1)
        return cv2.add(flat, flat & 1).reshape(crops.shape)  # cv2 saturates: 255 + 1 = 255
    centred = np.rint(np.asarray(crops, np.float32) - np.float32(MEAN))  # ties to even
    return np.clip(centred + ZERO_POINT, 0, 255).astype(np.uint8)


def takes_levels(session) -> bool:
    """Whether the network in onnxruntime ``session`` takes 8-bit levels."""
    return bool(session.get_inputs()[0].type == "tensor(uint8)")


def network_input(crops: np.ndarray, levels: bool) -> np.ndarray:
    """``crops`` as a network takes them: their 8-bit levels if it ``takes_levels``,
    else float32 values."""
    return eight_bit_levels(crops) if levels else np.ascontiguousarray(crops, dtype=np.float32)


def network_feed(session, crops: np.ndarray) -> dict[str, np.ndarray]:
    """The ``session.run`` input for ``crops``."""
    return {session.get_inputs()[0].name: network_input(crops, takes_levels(session))}
