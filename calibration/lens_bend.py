"""The board's corners through a bending lens: straighten its four edges together.

A wide webcam lens bows straight lines: the board's edges bulge outward (barrel
distortion) and its corners are pulled in. A parabola fitted to each side on its
own follows the middle of the side well but, extrapolated to the corner, misses
the extra pull there: on strongly distorted frames the corners came out about 1% of
the board outside the truth. Here the four sides share one lens: a one-parameter
division model, undistorted = centre + (p - centre) / (1 + k r²) with r the
distance from the image centre in half-diagonals, is fitted so that every side's
edge points become one straight line; the corners are where those lines meet,
bent back through the same model::

    >>> corners = straightened_corners(edge_points, (1280, 720))  # doctest: +SKIP

The model is the standard one for radial distortion from lines (Fitzgibbon 2001);
one coefficient is enough over a board that fills part of the picture.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

BENDS = np.linspace(-0.4, 0.4, 81)
"""Division-model coefficients tried (r in half-diagonals; a typical webcam: -0.1..-0.25)."""
MIN_POINTS = 8
"""Edge points a side needs for its line to count."""
MIN_BEND = 0.03
"""Weaker bends are left to each side's own fit (a lens that straight hardly bends)."""
MAX_RESIDUAL_SHARE = 0.5
"""The bend must take away at least half of the sides' crookedness; if it explains
less, the crookedness is something else (a tile or a hand on an edge, two edges
mixed) and one lens bend would only spread that error to the corners."""


def _undistort(points: np.ndarray, centre: np.ndarray, radius: float, bend: float) -> np.ndarray:
    offset = (points - centre) / radius
    return centre + (points - centre) / (1.0 + bend * (offset**2).sum(axis=-1, keepdims=True))


def _distort(points: np.ndarray, centre: np.ndarray, radius: float, bend: float) -> np.ndarray:
    """The inverse of :func:`_undistort` (the root of bend u s² - s + u = 0 near u)."""
    offset = (points - centre) / radius
    u = np.linalg.norm(offset, axis=-1, keepdims=True)
    if abs(bend) < 1e-12:
        return points.copy()
    disc = np.maximum(1.0 - 4.0 * bend * u**2, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(u > 1e-12, (1.0 - np.sqrt(disc)) / (2.0 * bend * u), 0.0)
        scale = np.where(u > 1e-12, s / u, 1.0)
    return centre + offset * scale * radius


def _line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Total least squares line (centre, direction) and its mean squared residual."""
    centre = points.mean(axis=0)
    cov = np.cov((points - centre).T)
    values, vectors = np.linalg.eigh(cov)
    return centre, vectors[:, 1], float(values[0])


def _straightness(sides: Sequence[np.ndarray], centre: np.ndarray, radius: float) -> np.ndarray:
    """Mean squared distance of each side's points from their own line, summed over
    the sides, for every coefficient in :data:`BENDS`."""
    out = np.zeros(len(BENDS))
    for pts in sides:
        offset = (pts - centre) / radius
        r2 = (offset**2).sum(axis=1)
        # All coefficients at once: (bends, points, 2).
        moved = centre + (pts - centre)[None] / (1.0 + BENDS[:, None, None] * r2[None, :, None])
        d = moved - moved.mean(axis=1, keepdims=True)
        sxx = (d[..., 0] ** 2).mean(axis=1)
        syy = (d[..., 1] ** 2).mean(axis=1)
        sxy = (d[..., 0] * d[..., 1]).mean(axis=1)
        # Smallest eigenvalue of the 2x2 covariance: the squared residual across the line.
        out += (sxx + syy) / 2 - np.sqrt(((sxx - syy) / 2) ** 2 + sxy**2)
    return out


def fitted_bend(sides: Sequence[np.ndarray], image_size: tuple[int, int]) -> float:
    """The division-model coefficient that makes the four sides straightest."""
    return _fitted(sides, image_size)[0]


def _fitted(sides: Sequence[np.ndarray], image_size: tuple[int, int]) -> tuple[float, float]:
    """The straightest coefficient, and the crookedness left there as a share of
    the crookedness with no bend."""
    centre = np.array(image_size, np.float64) / 2
    radius = float(np.linalg.norm(centre))
    scores = _straightness(sides, centre, radius)
    share = float(scores.min() / max(scores[np.argmin(np.abs(BENDS))], 1e-12))
    return _refined_minimum(scores), share


def _refined_minimum(scores: np.ndarray) -> float:
    """The coefficient of least crookedness, between the grid's steps."""
    best = int(np.argmin(scores))
    if 0 < best < len(BENDS) - 1:
        # A parabola through the best three.
        a, b, c = scores[best - 1 : best + 2]
        denom = a - 2 * b + c
        step = BENDS[1] - BENDS[0]
        if denom > 0:
            return float(BENDS[best] + 0.5 * (a - c) / denom * step)
    return float(BENDS[best])


def straightened_corners(
    sides: Sequence[np.ndarray], image_size: tuple[int, int]
) -> np.ndarray | None:
    """Corners (4x2, in the image) of the quad whose sides (top, right, bottom, left;
    clockwise, each an Nx2 array of edge points) are straight through one fitted lens
    bend; ``None`` if a side has too few points, two sides do not meet, or the sides
    are not bent as a lens bends them (:data:`MIN_BEND`, :data:`MAX_RESIDUAL_SHARE`)."""
    if len(sides) != 4 or any(len(s) < MIN_POINTS for s in sides):
        return None
    sides = [np.asarray(s, np.float64) for s in sides]
    centre = np.array(image_size, np.float64) / 2
    radius = float(np.linalg.norm(centre))
    bend, share = _fitted(sides, image_size)
    if abs(bend) < MIN_BEND or share > MAX_RESIDUAL_SHARE:
        return None
    lines = [_line(_undistort(s, centre, radius, bend)) for s in sides]
    corners = []
    for i in range(4):
        (p1, d1, _), (p2, d2, _) = lines[i - 1], lines[i]
        den = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(den) < 1e-9:
            return None
        t = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / den
        corners.append(p1 + t * d1)
    return _distort(np.array(corners), centre, radius, bend)
