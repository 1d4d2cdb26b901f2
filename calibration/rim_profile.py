"""The board's rim, seen across its edge: which of its rings is the outer edge.

Some boards have a narrow outer band in the table's colour (a dark board on a dark
table). From a single frame the finder cannot see that band's outer edge and takes
the first ring inside it (the score track's) for the board's edge: the outline is
then a few percent too small. The board's own art tells them apart once it is
known: :func:`rim_profile` records, at registration, the lightness across the rim
(outside in, averaged along the four sides), and :func:`rim_offset` later finds how
far outside a new outline that same profile starts::

    >>> profile = rim_profile(frame, true_corners)                # doctest: +SKIP
    >>> rim_offset(profile, next_frame, track_ring_corners)        # doctest: +SKIP
    0.03

Only the board's inside is compared (the table around it may change), by
normalised correlation, so a change of light or camera does not matter.
"""

from __future__ import annotations

import cv2
import numpy as np

RIM_DEPTH = 0.12
"""How far inside the outer edge the profile reaches, in board widths (the rings)."""
RIM_STEP = 0.002
"""Profile sample spacing, in board widths."""
MAX_OFFSET = 0.08
"""Largest outward correction tried (an outline on the score track's inner ring)."""
MIN_OFFSET = -0.02
"""Largest inward correction tried (an outline on the board's shadow or thickness)."""
MIN_MATCH = 0.8
"""Correlation the moved outline's profile must reach with the registered one."""
MIN_GAIN = 0.15
"""... and by how much it must beat the outline as found."""
MIN_MOVE = 0.015
"""Corrections smaller than this are left to the edge fit (board widths)."""

_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
UNIT_SIDES = (
    ((0.0, 0.0), (1.0, 0.0), (0.0, -1.0)),
    ((1.0, 0.0), (0.0, 1.0), (1.0, 0.0)),
    ((1.0, 1.0), (-1.0, 0.0), (0.0, 1.0)),
    ((0.0, 1.0), (0.0, -1.0), (-1.0, 0.0)),
)
"""Each side of a clockwise unit square (top, right, bottom, left): start corner,
direction, outward normal."""
_DEPTHS = np.arange(0.0, RIM_DEPTH + 1e-9, RIM_STEP)
RIM_SAMPLES = len(_DEPTHS)
"""Length of a profile from :func:`rim_profile`."""


def _lightness(image: np.ndarray) -> np.ndarray:
    if image.ndim == 2:
        return image.astype(np.float32)
    return cv2.cvtColor(image, cv2.COLOR_BGR2LAB)[..., 0].astype(np.float32)


def profiles_across_side(
    image: np.ndarray, h: np.ndarray, side: int, along: np.ndarray, outward: np.ndarray
) -> np.ndarray:
    """``image`` sampled on lines across one side of a quad (``h`` maps the unit
    square onto it): rows at the fractions ``along`` the side, columns at the
    ``outward`` offsets (unit-square units); float32, bilinear."""
    start, direction, normal = (np.array(v) for v in UNIT_SIDES[side])
    pts = start + direction * along[:, None, None] + normal * outward[None, :, None]
    pix = cv2.perspectiveTransform(pts.reshape(1, -1, 2), h).reshape(len(along), -1, 2)
    return cv2.remap(
        image,
        pix[..., 0].astype(np.float32),
        pix[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32)


def _profile_at(lightness: np.ndarray, quad: np.ndarray, outward: np.ndarray) -> np.ndarray:
    """Median lightness along each side at the given outward offsets (unit-square
    units of ``quad``), averaged over the four sides."""
    h = cv2.getPerspectiveTransform(_UNIT, np.asarray(quad, np.float32))
    along = np.linspace(0.1, 0.9, 32)
    # Median along the side: a tile or a hand over part of it does not count.
    sides = [
        np.median(profiles_across_side(lightness, h, side, along, outward), axis=0)
        for side in range(4)
    ]
    return np.mean(sides, axis=0)


def rim_profile(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Lightness across the rim, from the outer edge to ``RIM_DEPTH`` inside it."""
    return _profile_at(_lightness(image), corners, -_DEPTHS)


def _correlation(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / np.sqrt((a * a).sum() * (b * b).sum() + 1e-9))


STILL_THERE = 0.5
"""Rim correlation below which a registered board is no longer where it was: on 40
simulator frames the board where it was scored 0.7-1.0, an outline from another
camera position -0.7-0.65 (median -0.1), one slid 3% of the board about 0.9."""


def rim_match(profile: np.ndarray, image: np.ndarray, corners: np.ndarray) -> float:
    """How much the rim inside ``corners`` looks like the registered ``profile``
    (normalised correlation: 1 the same, about 0 unrelated)."""
    return _correlation(profile, _profile_at(_lightness(image), corners, -_DEPTHS))


def rim_offset(profile: np.ndarray, image: np.ndarray, corners: np.ndarray) -> float:
    """How far (board widths of ``corners``' outline) the registered rim ``profile``
    lies outside the outline ``corners``: 0.0 when it starts at the outline itself,
    or when no other offset matches clearly better."""
    lightness = _lightness(image)
    # One fine profile of the new outline, from far outside to deep inside.
    outward = np.arange(MIN_OFFSET - RIM_DEPTH * 1.2, MAX_OFFSET + RIM_STEP, RIM_STEP / 2)
    seen = _profile_at(lightness, corners, outward)
    scores = {}
    for delta in np.arange(MIN_OFFSET, MAX_OFFSET + 1e-9, RIM_STEP):
        # A ring `depth` inside a board whose edge lies `delta` outside the outline
        # is at outward offset delta - depth * (1 + 2 delta) of the outline.
        where = delta - _DEPTHS * (1 + 2 * delta)
        scores[float(delta)] = _correlation(profile, np.interp(where, outward, seen))
    best = max(scores, key=scores.__getitem__)
    here = scores[min(scores, key=abs)]
    if abs(best) < MIN_MOVE or scores[best] < MIN_MATCH or scores[best] < here + MIN_GAIN:
        return 0.0
    return best


def moved_outline(corners: np.ndarray, offset: float) -> np.ndarray:
    """``corners`` with every side moved ``offset`` board widths outward."""
    h = cv2.getPerspectiveTransform(_UNIT, np.asarray(corners, np.float32))
    unit = np.array(
        [[-offset, -offset], [1 + offset, -offset], [1 + offset, 1 + offset], [-offset, 1 + offset]]
    )
    return cv2.perspectiveTransform(unit.reshape(1, 4, 2), h).reshape(4, 2)
