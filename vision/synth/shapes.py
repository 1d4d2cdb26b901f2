"""Suit symbols drawn as shapes (no font needed): masks of ★ ♥ ♦ ♣ ♠.

Masks are float32 in 0..1, antialiased by drawing at 4x and shrinking::

    >>> from engine import Suit
    >>> mask = suit_shape_mask(Suit.HEART, 40)
    >>> mask.shape, float(mask.max())
    ((40, 40), 1.0)
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from engine import Suit

_SUPERSAMPLE = 4


def _star_points(points: int = 5, inner: float = 0.4) -> list[tuple[float, float]]:
    out = []
    for i in range(points * 2):
        radius = 0.5 if i % 2 == 0 else 0.5 * inner
        angle = -np.pi / 2 + i * np.pi / points
        out.append((0.5 + radius * np.cos(angle), 0.53 + radius * np.sin(angle)))
    return out


# Each suit: circles (cx, cy, r) and polygons, in a unit box.
_SHAPES: dict[Suit, tuple[list[tuple[float, float, float]], list[list[tuple[float, float]]]]] = {
    Suit.DIAMOND: ([], [[(0.5, 0.0), (0.88, 0.5), (0.5, 1.0), (0.12, 0.5)]]),
    Suit.HEART: (
        [(0.28, 0.32, 0.25), (0.72, 0.32, 0.25)],
        [[(0.05, 0.40), (0.5, 0.97), (0.95, 0.40), (0.5, 0.30)]],
    ),
    Suit.SPADE: (
        [(0.29, 0.56, 0.22), (0.71, 0.56, 0.22)],
        [
            [(0.08, 0.50), (0.5, 0.0), (0.92, 0.50), (0.5, 0.70)],
            [(0.5, 0.6), (0.3, 1.0), (0.7, 1.0)],
        ],
    ),
    Suit.CLUB: (
        [(0.5, 0.25, 0.22), (0.25, 0.58, 0.22), (0.75, 0.58, 0.22), (0.5, 0.5, 0.12)],
        [[(0.5, 0.55), (0.3, 1.0), (0.7, 1.0)]],
    ),
    Suit.STAR: ([], [_star_points()]),
}


@functools.lru_cache(maxsize=512)
def suit_shape_mask(suit: Suit, size: int) -> np.ndarray:
    """A ``size`` x ``size`` float32 mask of the suit symbol."""
    big = size * _SUPERSAMPLE
    canvas = np.zeros((big, big), np.uint8)
    circles, polygons = _SHAPES[suit]
    for cx, cy, r in circles:
        cv2.circle(canvas, (round(cx * big), round(cy * big)), round(r * big), 255, -1)
    for polygon in polygons:
        points = np.array([[x * (big - 1), y * (big - 1)] for x, y in polygon], np.int32)
        cv2.fillPoly(canvas, [points], 255)
    small = cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)
    small.flags.writeable = False
    return small.astype(np.float32) / 255.0
