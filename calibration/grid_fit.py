"""Where the board's grid of squares sits inside an outline: is the outline the edge?

The contract fixes where the 4x4 grid lies on the board: its cells span 0.18..0.82
of the board's outer edge. A board whose outer band has the table's colour shows no
outer edge, and the finder takes an inner ring (the score track's) for it: the
outline is then a few percent too small, and inside it the grid looks too big.
:func:`grid_offset` measures that from the picture alone, with no registered look::

    >>> grid_offset(frame, track_ring_corners, Layout.load())  # doctest: +SKIP
    0.031

The view inside the outline is warped top-down; edge strength is summed across the
grid's rows and columns (a median, so tiles and a hand count little), and compared
with a comb at the layout's cell boundaries, scaled as it would be if the board's
edge lay ``offset`` outside the outline. Everything on a square (slot, bonus frame,
tile) has its edges near the cell boundaries, so the comb fits whatever lies there.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from engine.layout import Layout

VIEW_PX = 400
"""Side of the top-down view the profiles are taken from."""
VIEW_MARGIN = 0.12
"""How far outside the outline the view reaches (outline widths)."""
COMB_SIGMA = 0.01
"""Width of each tooth of the comb (outline widths)."""
OFFSETS = np.arange(-0.08, 0.0805, 0.001)
"""Offsets tried: from an outline 8% outside the edge (on a line in the table just
outside the board) to one on a ring 8% inside."""
BIAS = 0.006
"""The comb's fit lies this much inside the truth: a tile's edge on an outer square
sits inside the cell, so the outermost teeth are pulled in (on 234 tuning frames
whose outline was right, the median fit was -0.006)."""
MIN_OUTWARD = 0.015
"""Outward fits closer than this to the outline are noise (tuning frames whose
outline was right: at most +0.007)."""
MIN_OUTWARD_GAIN = 0.05
"""How much better the comb must fit there than on the outline as found (outlines
on the score-track ring: 0.08-0.19)."""
MIN_INWARD = 0.03
"""Inward fits are noisier (tiles pull the outer teeth in): on the tuning frames
whose outline was right they reached -0.024, and -0.05 once with little gain."""
MIN_INWARD_GAIN = 0.12
"""... so an inward move needs a clearly better fit (those frames: at most 0.078;
an outline on a line in the table 4% outside: 0.21)."""

_UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
_AXIS = np.linspace(-VIEW_MARGIN, 1 + VIEW_MARGIN, VIEW_PX)
_WINDOW = (_AXIS > 0.06) & (_AXIS < 0.94)  # the grid at any offset tried, not the rim
_BAND = (_AXIS > 0.22) & (_AXIS < 0.78)  # rows (columns) across the grid's inside


def cell_boundaries(layout: Layout) -> np.ndarray:
    """The grid's cell boundaries along one axis (board units): 0.18, 0.34, ... 0.82
    for the standard layout. Each lies halfway across the gap between two squares;
    the outer ones as far outside the outermost squares."""
    edges = sorted({round(v, 6) for r in layout.rects.values() for v in (r.x0, r.x1)})
    starts, ends = edges[0::2], edges[1::2]
    gaps = [(b - a) / 2 for a, b in zip(ends[:-1], starts[1:], strict=True)]
    half = float(np.median(gaps)) if gaps else 0.0
    inner = [(a + b) / 2 for a, b in zip(ends[:-1], starts[1:], strict=True)]
    return np.array([starts[0] - half, *inner, ends[-1] + half])


@functools.lru_cache(maxsize=4)
def _combs(boundaries: tuple[float, ...]) -> np.ndarray:
    """One comb per offset tried, over the view's axis, normalised for correlation."""
    where = -OFFSETS[:, None] + np.array(boundaries)[None, :] * (1 + 2 * OFFSETS[:, None])
    comb = np.exp(-((_AXIS[None, :, None] - where[:, None, :]) ** 2) / (2 * COMB_SIGMA**2))
    comb = comb.sum(axis=2)[:, _WINDOW]
    comb -= comb.mean(axis=1, keepdims=True)
    return comb / np.linalg.norm(comb, axis=1, keepdims=True)


def _edge_profiles(image: np.ndarray, corners: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Edge strength across the view's columns and rows, each a median across the grid."""
    to_image = cv2.getPerspectiveTransform(_UNIT, np.asarray(corners, np.float32))
    m = VIEW_MARGIN
    reach = np.array([[-m, -m], [1 + m, -m], [1 + m, 1 + m], [-m, 1 + m]], np.float32)
    source = cv2.perspectiveTransform(reach.reshape(1, 4, 2), to_image).reshape(4, 2)
    view_corners = np.array(
        [[0, 0], [VIEW_PX - 1, 0], [VIEW_PX - 1, VIEW_PX - 1], [0, VIEW_PX - 1]], np.float32
    )
    warp = cv2.getPerspectiveTransform(source.astype(np.float32), view_corners)
    view = cv2.warpPerspective(image, warp, (VIEW_PX, VIEW_PX), flags=cv2.INTER_AREA)
    channels = np.ones((1, 1 if view.ndim == 2 else view.shape[2]), np.float32)

    def edge_strength(dx: int, dy: int) -> np.ndarray:
        sobel = np.abs(cv2.Sobel(view, cv2.CV_32F, dx, dy, ksize=3))
        return cv2.transform(sobel, channels).reshape(VIEW_PX, VIEW_PX)  # summed over colours

    columns = np.median(edge_strength(1, 0)[_BAND], axis=0)
    rows = np.median(edge_strength(0, 1)[:, _BAND], axis=1)
    return columns, rows


def _fit(profile: np.ndarray, combs: np.ndarray) -> np.ndarray:
    p = profile[_WINDOW] - profile[_WINDOW].mean()
    return combs @ p / (np.linalg.norm(p) + 1e-9)


def grid_fit(image: np.ndarray, corners: np.ndarray, layout: Layout) -> np.ndarray:
    """How well the layout's grid fits inside ``corners`` for every offset in
    :data:`OFFSETS` (mean correlation over the two axes, -1..1)."""
    combs = _combs(tuple(cell_boundaries(layout).tolist()))
    columns, rows = _edge_profiles(image, corners)
    return (_fit(columns, combs) + _fit(rows, combs)) / 2


def grid_offset(image: np.ndarray, corners: np.ndarray, layout: Layout) -> float:
    """How far (outline widths) the board's edge lies outside the outline ``corners``,
    judged from where the grid sits inside it (negative: the outline is outside the
    edge, on a line in the table); 0.0 unless the grid clearly says so."""
    scores = grid_fit(image, corners, layout)
    best = int(np.argmax(scores))
    gain = scores[best] - scores[int(np.argmin(np.abs(OFFSETS)))]
    fitted = float(OFFSETS[best])
    outward = fitted >= MIN_OUTWARD and gain >= MIN_OUTWARD_GAIN
    inward = fitted <= -MIN_INWARD and gain >= MIN_INWARD_GAIN
    return fitted + BIAS if outward or inward else 0.0
