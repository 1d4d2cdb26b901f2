"""Could a quadrilateral in the image be a square lying on the table?

The board is square. A camera sees it as a general quadrilateral, but not every
quadrilateral is the picture of a square: given the camera's focal length, the
homography from the unit square to the quad must be a rotation and a translation
seen through the lens, so its first two columns (after undoing the focal length)
are as long as each other and at right angles. The focal length is unknown before
lens calibration, so every webcam-like field of view is tried and the best fit is
kept. A candidate outline that snapped to a row of squares or to an arm's edge is a
rectangle of the wrong proportions and fails::

    >>> square = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)
    >>> squareness(square, (400, 400)) < 0.01
    True
    >>> squareness(square * [1.0, 0.7], (400, 400)) > 0.3
    True
"""

from __future__ import annotations

import math

import cv2
import numpy as np

UNIT_SQUARE = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
FIELDS_OF_VIEW = np.radians(np.linspace(40.0, 100.0, 31))
"""Horizontal fields of view tried (webcams: about 50-90 degrees)."""
MAX_SQUARENESS = 0.05
"""Above this a quad is not the board. True outlines of simulated boards score at most
0.02 (tuning seeds 1000-1239, lens distortion included)."""


def squareness(quad: np.ndarray, image_size: tuple[int, int]) -> float:
    """0 for the picture of a square, growing as the quad departs from one.

    The value is ``max(|log(side ratio)|, |cos(corner angle)|)`` of the square's
    plane reconstructed with the best of the tried focal lengths (principal point at
    the image centre), so 0.05 means about 5% longer one way or 3 degrees off square.
    """
    width, height = image_size
    h = cv2.getPerspectiveTransform(UNIT_SQUARE, np.asarray(quad, np.float32))
    focal = width / 2 / np.tan(FIELDS_OF_VIEW / 2)  # (F,)
    # K^-1 applied to the homography's first two columns, for every focal length.
    cols = h[:, :2]
    centred = cols[:2] - np.array([[width / 2], [height / 2]]) * cols[2]
    xy = centred[None, :, :] / focal[:, None, None]  # (F, 2, 2)
    z = np.broadcast_to(cols[2], (len(focal), 2))[:, None, :]
    v = np.concatenate([xy, z], axis=1)  # (F, 3, 2)
    a, b = v[:, :, 0], v[:, :, 1]
    na, nb = np.linalg.norm(a, axis=1), np.linalg.norm(b, axis=1)
    cosine = np.abs((a * b).sum(axis=1)) / (na * nb)
    error = np.maximum(np.abs(np.log(na / nb)), cosine)
    return float(error.min()) if np.isfinite(error).any() else math.inf
