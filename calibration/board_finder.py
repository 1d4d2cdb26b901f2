"""Find the SETUP board in a camera frame automatically, and follow it from frame to frame.

Three ways to register the board (best first): :func:`find_board` (automatic, no
markers), :func:`calibration.markers.find_board_by_markers` (four printed ArUco
markers) and :func:`calibration.board_location.manual_board` (the user's four
corners). All return a :class:`BoardLocation`; automatic finding raises
:class:`BoardNotFound` with a specific reason instead of guessing::

    >>> layout = Layout.load()
    >>> location = find_board(frame, layout)          # doctest: +SKIP
    >>> location.corners.round()                       # doctest: +SKIP
    array([[412., 103.], [951., 150.], [903., 640.], [371., 598.]])
    >>> location.to_image([(0.5, 0.5)])               # board centre, in pixels  # doctest: +SKIP

Automatic finding works in two stages. From scratch: colour edges at reduced
resolution, straight segments (probabilistic Hough), merged into lines, every
4-line combination scored by how much of its outline is edge, the best
candidates checked for the board's 90°-symmetric structure, then each side
re-fitted at full resolution from edge profiles across it (sub-pixel, robust to
hands over part of a side), and a side whose border art does not line up with the
other three's (it snapped to a table stripe or an arm) is moved to where it does
(:mod:`calibration.side_agreement`). Without a registered look, an outline that is
an inner ring (a board whose outer band has the table's colour) or a line in the
table beside the board is moved to the edge the grid of squares points to
(:mod:`calibration.grid_fit`). When a previous location is given only the second
stage runs, around the old corners (:func:`track_board`), which is what makes
tracking cheap. Which edge is south is :mod:`calibration.orientation`'s job; noticing
that the board moved, :mod:`calibration.board_tracker`'s.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from calibration.board_location import (
    UNIT_CORNERS,
    BoardLocation,
    BoardNotFound,
    board_width_px,
    convex_clockwise,
)
from calibration.grid_fit import grid_fit, grid_offset
from calibration.orientation import BoardLook, orient
from calibration.plane_shape import MAX_SQUARENESS, squareness
from calibration.rim_profile import (
    moved_outline,
    profiles_across_side,
    rim_offset,
)
from calibration.side_agreement import agree_sides, outer_rim
from engine.layout import Layout

# Working width for the from-scratch search: enough for a board of >= 15% of the
# frame height to span >= 40 px, small enough for a few ms of edge detection.
SEARCH_WIDTH = 512
MIN_BOARD_FRACTION = 0.15  # of the frame's shorter side
DARK_MEAN = 30.0  # mean grey below which nothing can be found reliably
MIN_SIDE_SUPPORT = 0.3  # fraction of each side that must be edge (hands hide the rest)
CLEAR_SIDE_SUPPORT = 0.6  # ... for an outline taken on its edges alone, without its squares
MIN_STRUCTURE = 0.25  # correlation of the board with its own quarter turn
MIN_OUTLINE_RATIO = 1.15  # edge strength on the square outlines vs. the grid's average
# A board full of tiles hides its square outlines under the tiles' own edges; there,
# a strong quarter-turn symmetry with outlines at least near the average will do.
SYMMETRIC_ALONE = 0.45  # symmetry that stands in for the outline test ...
SYMMETRIC_RATIO = 0.85  # ... when the outlines still carry this share of the average edge
MIN_SIDE_RATIO = 0.45  # shortest/longest side: below this the view is too oblique to read
MAX_LINES = 30  # straight lines kept for the quad search (the board's rings give several)
MAX_LINES_RETRY = 45  # when no outline among those passes, the search is run again wider
CANDIDATES = 10  # outlines whose content is checked for the board's structure
MAX_SHAPE_CHECKS = 60  # best-supported outlines checked for being a square's picture
EXPAND_GAP = 0.10  # largest step (board widths) from one ring of the art to the next
EXPAND_MAX = 0.16  # how far outside the first outline the outer edge is looked for
CURVE_REACH = 0.008  # first edge fit's search radius after the walk, in board widths
GRID_CANDIDATES = 5  # best outlines of the search whose grid fit is compared
GRID_BETTER = 0.01  # how much better the grid must fit another to replace the first
SAME_OUTLINE = 0.001  # corners this close (board widths): outlines taken as one
EXPAND_MIN_STEP = 12.0  # colour step (0-255, over 2 px) that counts as an edge


def _order_clockwise(quad: np.ndarray) -> np.ndarray:
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    return quad[np.argsort(angles)]  # increasing angle with y down = clockwise on screen


def _grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _check_light(small: np.ndarray) -> None:
    grey = _grey(small)
    mean = float(grey.mean())
    if mean < DARK_MEAN:
        raise BoardNotFound(f"too dark: mean brightness {mean:.0f}/255 (turn on a light)")
    if float(grey.std()) < 6.0:
        raise BoardNotFound(
            "no contrast in the image: the board is not in view "
            "(or the lens is covered or out of focus)"
        )
    if mean > 240:
        raise BoardNotFound(f"too bright: mean brightness {mean:.0f}/255 (overexposed)")


def _segments_to_lines(segments: np.ndarray) -> list[tuple[np.ndarray, np.ndarray, float]]:
    """Merge collinear Hough segments into lines: (point, unit direction, support length)."""
    segs = segments.reshape(-1, 4).astype(np.float64)
    lengths = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    order = np.argsort(-lengths)
    lines: list[list[Any]] = []  # [theta, rho, points list, support]
    for i in order:
        x0, y0, x1, y1 = segs[i]
        theta = math.atan2(x1 - x0, -(y1 - y0)) % math.pi  # angle of the normal
        rho = x0 * math.cos(theta) + y0 * math.sin(theta)
        for line in lines:
            dt = abs(theta - line[0])
            dt = min(dt, math.pi - dt)
            r = x0 * math.cos(line[0]) + y0 * math.sin(line[0])
            r1 = x1 * math.cos(line[0]) + y1 * math.sin(line[0])
            if dt < math.radians(2) and abs(r - line[1]) < 1.5 and abs(r1 - line[1]) < 1.5:
                line[2] += [(x0, y0), (x1, y1)]
                line[3] += lengths[i]
                break
        else:
            lines.append([theta, rho, [(x0, y0), (x1, y1)], lengths[i]])
    out = []
    for _theta, _rho, pts, support in lines:
        arr = np.array(pts, np.float32)
        vx, vy, cx, cy = cv2.fitLine(arr, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        out.append((np.array([cx, cy], np.float64), np.array([vx, vy], np.float64), support))
    out.sort(key=lambda item: -item[2])
    return out


def _intersect(p1: np.ndarray, d1: np.ndarray, p2: np.ndarray, d2: np.ndarray) -> np.ndarray | None:
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-9:
        return None
    t = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / den
    return p1 + t * d1


def _enumerate_quads(
    lines: list[tuple[np.ndarray, np.ndarray, float]], min_side: float
) -> np.ndarray:
    """Every convex quad made of two pairs of roughly opposite lines (K×4×2, clockwise)."""
    pts = np.array([p for p, _, _ in lines])
    dirs = np.array([d for _, d, _ in lines])
    n = len(lines)
    # All pairwise intersections at once.
    den = dirs[:, None, 0] * dirs[None, :, 1] - dirs[:, None, 1] * dirs[None, :, 0]
    diff = pts[None, :, :] - pts[:, None, :]
    t = (diff[..., 0] * dirs[None, :, 1] - diff[..., 1] * dirs[None, :, 0]) / np.where(
        np.abs(den) < 1e-9, np.nan, den
    )
    cross = pts[:, None, :] + t[..., None] * dirs[:, None, :]
    cosines = np.abs(dirs @ dirs.T)
    normals = np.stack([-dirs[:, 1], dirs[:, 0]], axis=1)
    gap = np.abs(np.einsum("ijk,ik->ij", diff, normals))
    ii, jj = np.triu_indices(n, 1)
    # Opposite sides: within 40° of parallel and at least a board side apart.
    keep = (cosines[ii, jj] >= math.cos(math.radians(40))) & (gap[ii, jj] >= min_side)
    pairs = np.stack([ii[keep], jj[keep]], axis=1)
    if len(pairs) < 2:
        return np.empty((0, 4, 2))
    u, v = np.triu_indices(len(pairs), 1)
    a, b = pairs[u, 0], pairs[u, 1]
    c, d = pairs[v, 0], pairs[v, 1]
    ok = (a != c) & (a != d) & (b != c) & (b != d)
    ok &= cosines[a, c] <= math.cos(math.radians(45))  # the two pairs must cross
    a, b, c, d = a[ok], b[ok], c[ok], d[ok]
    quads = np.stack([cross[a, c], cross[c, b], cross[b, d], cross[d, a]], axis=1)
    quads = quads[np.isfinite(quads).all(axis=(1, 2))]
    if len(quads) == 0:
        return np.empty((0, 4, 2))
    centre = quads.mean(axis=1, keepdims=True)
    angles = np.arctan2(quads[..., 1] - centre[..., 1], quads[..., 0] - centre[..., 0])
    order = np.argsort(angles, axis=1)
    quads = np.take_along_axis(quads, order[..., None], axis=1)
    e1 = np.roll(quads, -1, axis=1) - quads
    e2 = np.roll(quads, -2, axis=1) - np.roll(quads, -1, axis=1)
    turns = e1[..., 0] * e2[..., 1] - e1[..., 1] * e2[..., 0]
    return quads[(turns > 0).all(axis=1)]


def _side_support(edges: np.ndarray, quads: np.ndarray, samples: int = 40) -> np.ndarray:
    """Fraction of each side (Q×4) lying on edge pixels."""
    t = np.linspace(0.05, 0.95, samples)
    a = quads
    b = np.roll(quads, -1, axis=1)
    pts = a[:, :, None, :] + (b - a)[:, :, None, :] * t[None, None, :, None]
    xs = np.clip(np.round(pts[..., 0]).astype(int), 0, edges.shape[1] - 1)
    ys = np.clip(np.round(pts[..., 1]).astype(int), 0, edges.shape[0] - 1)
    return edges[ys, xs].mean(axis=2)


OUTLINE_PER_SIDE = 8


def _outline_points(layout: Layout | None = None, per_side: int = OUTLINE_PER_SIDE) -> np.ndarray:
    """Board points along the 12 square outlines (where every board has an edge),
    square by square, ``4 * per_side`` points each."""
    layout = layout or Layout.load()
    t = (np.arange(per_side) + 0.5) / per_side
    pts = []
    for square in layout.squares:
        r = layout.rects[square]
        for x in r.x0 + (r.x1 - r.x0) * t:
            pts += [(x, r.y0), (x, r.y1)]
        for y in r.y0 + (r.y1 - r.y0) * t:
            pts += [(r.x0, y), (r.x1, y)]
    return np.array(pts, np.float64)


_OUTLINE = _outline_points()


def _structure(grey: np.ndarray, quad: np.ndarray) -> tuple[float, float]:
    """How board-like the quad's content is (0 = not at all, ~1 = clearly the board),
    strictly and forgivingly: ``(strict, forgiving)``.

    Two tests must both pass. (1) The picture correlates with its own quarter turn:
    the 4x4-less-corners grid is symmetric, even with tiles on it. (2) The square
    outlines carry edges: the gradient along them is well above the average (a
    symmetric sheet of paper, a tiled floor or a clutter rectangle fails here).
    Except on a board covered with tiles: their edges, a little off the outlines,
    raise the average as much as the outlines, so there a strong symmetry
    (``SYMMETRIC_ALONE``) with outlines near the average passes alone. The
    forgiving score takes the median square's outline instead of all of them: a hand
    over some squares hides their outlines but must not hide the board.
    """
    size = 96
    dst = (UNIT_CORNERS * (size - 1)).astype(np.float32)
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    top = cv2.warpPerspective(grey, h, (size, size), flags=cv2.INTER_AREA).astype(np.float32)
    small = cv2.resize(top, (48, 48), interpolation=cv2.INTER_AREA).astype(np.float64)
    inner = small[6:-6, 6:-6]  # the grid lies within 0.18..0.82; skip the edge art
    if inner.std() < 4.0:
        return 0.0, 0.0
    sym = []
    for k in (1, 2, 3):
        rot = np.rot90(inner, k)
        a = inner - inner.mean()
        b = rot - rot.mean()
        sym.append(float((a * b).sum() / math.sqrt((a * a).sum() * (b * b).sum() + 1e-9)))
    symmetry = min(sym)
    gx = cv2.Sobel(top, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(top, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.dilate(cv2.magnitude(gx, gy), np.ones((3, 3), np.uint8))
    pts = np.clip(np.round(_OUTLINE * (size - 1)).astype(int), 0, size - 1)
    along = mag[pts[:, 1], pts[:, 0]]
    per_square = along.reshape(-1, 4 * OUTLINE_PER_SIDE).mean(axis=1)
    lo, hi = round(0.18 * size), round(0.82 * size)
    average = float(mag[lo:hi, lo:hi].mean()) + 1e-6

    def score(outline: float) -> float:
        ratio = outline / average
        if ratio < MIN_OUTLINE_RATIO:
            if symmetry >= SYMMETRIC_ALONE and ratio >= SYMMETRIC_RATIO:
                return float(symmetry * 0.5)  # no outline bonus: 0.23..0.5
            return 0.0
        # Symmetry is only a bonus: tiles, text and a score track break it on real boards.
        return float(min(1.0, (ratio - 1.0) * 2.0 + max(0.0, symmetry) * 0.5))

    return score(float(along.mean())), score(float(np.median(per_square)))


def _find_outlines(image: np.ndarray) -> list[tuple[np.ndarray, float]]:
    """Board-related outlines (4×2 clockwise, full-resolution pixels), each with a
    confidence, the most board-like first.

    The outline may be one of the board's inner rings (score track, central panel)
    rather than its outer edge: :func:`_expand_outline` moves it out afterwards.
    Candidates need only part of each side on edge pixels (a hand may hide the rest);
    they are ranked by how much their content looks like the board.
    """
    height, width = image.shape[:2]
    scale = min(1.0, SEARCH_WIDTH / max(width, height))
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    _check_light(small)
    sh, sw = small.shape[:2]
    blurred = cv2.GaussianBlur(small, (3, 3), 0)
    edges = cv2.Canny(blurred, 40, 110, L2gradient=True)
    min_side = MIN_BOARD_FRACTION * min(sh, sw)
    segments = cv2.HoughLinesP(
        edges, 1, math.pi / 360, threshold=20, minLineLength=min_side * 0.35, maxLineGap=6
    )
    if segments is None:
        raise BoardNotFound("no board-sized quadrilateral in view (no long straight edges)")
    lines = _segments_to_lines(segments)
    fat_edges = cv2.dilate(edges, np.ones((3, 3), np.uint8)) > 0
    grey = _grey(small)
    try:
        found = _best_outline(lines[:MAX_LINES], fat_edges, grey, min_side)
    except BoardNotFound:
        if len(lines) <= MAX_LINES:
            raise
        # A board with many rings, or a busy table, can push one of its sides (a
        # weak one: blurred, half under an arm) out of the strongest lines.
        try:
            found = _best_outline(lines[:MAX_LINES_RETRY], fat_edges, grey, min_side)
        except BoardNotFound:
            # Last, an outline on its edges alone: a hand over the grid can hide the
            # squares' outlines among its own edges.
            found = _best_outline(
                lines[:MAX_LINES_RETRY], fat_edges, grey, min_side, edges_alone=True
            )
    return [(quad / scale, confidence) for quad, confidence in found]


def _best_outline(
    lines: list[tuple[np.ndarray, np.ndarray, float]],
    fat_edges: np.ndarray,
    grey: np.ndarray,
    min_side: float,
    edges_alone: bool = False,
) -> list[tuple[np.ndarray, float]]:
    """The board-like four-line outlines (search-scale pixels) with a confidence each,
    the most board-like first. With ``edges_alone``, failing any, the best square
    outline whose four sides all plainly show (CLEAR_SIDE_SUPPORT) even if its squares
    do not."""
    sh, sw = grey.shape[:2]
    q = _enumerate_quads(lines, min_side)
    if len(q) == 0:
        raise BoardNotFound("no board-sized quadrilateral in view")
    sides = np.linalg.norm(q - np.roll(q, -1, axis=1), axis=2)
    area = 0.5 * np.abs(
        np.sum(q[:, :, 0] * np.roll(q[:, :, 1], -1, 1) - q[:, :, 1] * np.roll(q[:, :, 0], -1, 1), 1)
    )
    support = _side_support(fat_edges, q)
    min_support = support.min(axis=1)
    margin = -0.02 * min(sh, sw)  # corners hugging the frame edge: the frame, not a board
    inside = np.all(
        (q[:, :, 0] > -margin)
        & (q[:, :, 0] < sw - 1 + margin)
        & (q[:, :, 1] > -margin)
        & (q[:, :, 1] < sh - 1 + margin),
        axis=1,
    )
    big = sides.min(axis=1) >= min_side
    ratio = sides.min(axis=1) / sides.max(axis=1)
    good = (min_support >= MIN_SIDE_SUPPORT) & big & inside
    if not good.any():
        if ((min_support >= MIN_SIDE_SUPPORT) & big).any():
            raise BoardNotFound(
                "board partly out of view: move the camera so all four corners show"
            )
        raise BoardNotFound("no board-sized quadrilateral in view")
    # Well supported outlines first (mean support: a hand over one side costs little);
    # the structure test then ranks the first few.
    score = np.where(good, support.mean(axis=1) * np.sqrt(area), -1.0)
    # Those passing the strict test rank first; those passing only the forgiving one
    # follow (a fallback: they cannot outrank a board found strictly).
    strict: list[tuple[float, int]] = []
    forgiving: list[tuple[float, int]] = []
    oblique = None
    checked = 0
    clear_outline = None
    for idx in np.argsort(-score)[:MAX_SHAPE_CHECKS]:
        if score[idx] < 0 or checked == CANDIDATES:
            break
        # A row of squares, or an arm's edge, with three board edges makes a
        # well-supported outline that cannot be the picture of a square.
        if squareness(q[idx], (sw, sh)) > MAX_SQUARENESS:
            continue
        checked += 1
        structures = _structure(grey, q[idx])
        if max(structures) < MIN_STRUCTURE:
            if (
                edges_alone
                and clear_outline is None
                and min_support[idx] >= CLEAR_SIDE_SUPPORT
                and ratio[idx] >= MIN_SIDE_RATIO
            ):
                clear_outline = int(idx)
            continue
        if ratio[idx] < MIN_SIDE_RATIO:
            oblique = ratio[idx]
            continue
        if structures[0] >= MIN_STRUCTURE:
            strict.append((structures[0], int(idx)))
        else:
            forgiving.append((structures[1], int(idx)))
    ranked = sorted(strict, reverse=True) + sorted(forgiving, reverse=True)
    if not ranked and clear_outline is not None:
        ranked = [(0.0, clear_outline)]
    if not ranked:
        if oblique is not None:
            raise BoardNotFound(
                f"board too oblique: its near and far sides differ {1 / oblique:.1f}x; "
                "raise the camera or look more from above"
            )
        raise BoardNotFound("no board-sized quadrilateral in view that looks like the board")
    return [
        (q[idx], float(min(1.0, support[idx].mean()) * min(1.0, 0.5 + structure)))
        for structure, idx in ranked
    ]


def _expand_outline(image: np.ndarray, quad: np.ndarray, samples: int = 48) -> np.ndarray:
    """Move each side of ``quad`` out to the board's outer edge.

    A board's art usually has rings parallel to its edge (a score track, a panel)
    whose contrast can beat the outer edge's (a dark board on a dark table). For each
    side, colour profiles across it (in the quad's own perspective, so parallel board
    lines stay parallel) are combined with a median along the side (robust to hands
    and table texture); from the edge the side lies on, the walk steps outward to
    every further sharp edge within ``EXPAND_GAP``. A soft, same-hue step (the board's
    shadow on the table) does not count. The outermost edge reached is the outline.

        >>> _expand_outline(frame, track_ring_quad)  # doctest: +SKIP
    """
    h = cv2.getPerspectiveTransform(UNIT_CORNERS.astype(np.float32), quad.astype(np.float32))
    side_px = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    colour = image if image.ndim == 3 else image[..., None]
    t = np.linspace(0.06, 0.94, samples)
    moved = []
    for side in range(4):
        step = 0.5 / max(side_px[side], 8.0)  # about half a pixel
        o = np.arange(-0.03, EXPAND_MAX, step)
        prof = profiles_across_side(colour, h, side, t, o)
        med = np.median(prof.reshape(samples, len(o), -1), axis=0)
        grad = np.zeros(len(o))
        grad[2:-2] = np.linalg.norm(med[4:] - med[:-4], axis=1)  # colour step over 2 px
        peak = grad >= EXPAND_MIN_STEP
        for shift in (1, 2):
            peak &= (grad >= np.roll(grad, shift)) & (grad >= np.roll(grad, -shift))
        peaks = np.nonzero(peak)[0]
        near = peaks[np.abs(o[peaks]) <= 0.025]
        current = float(o[near[np.argmax(grad[near])]]) if len(near) else 0.0

        def colour_at(x: float, o: np.ndarray = o, med: np.ndarray = med) -> np.ndarray:
            return med[int(np.clip(np.searchsorted(o, x), 0, len(o) - 1))]

        for p in peaks:
            # Ripples right next to an edge (blur, ringing) are not a second edge.
            if not (current + 0.015 < o[p] <= current + EXPAND_GAP):
                continue
            # The band between the edge so far and this one, against what lies beyond:
            # a shadow band is narrow, so it is sampled at its middle.
            inner, outer = colour_at((current + o[p]) / 2), colour_at(o[p] + 0.012)
            si, so = float(inner.sum()) + 1.0, float(outer.sum()) + 1.0
            hue_step = float(np.abs(inner / si - outer / so).max())
            if hue_step < 0.02 and so > 1.08 * si:
                continue  # brighter outside with the same hue: the board's own shadow
            current = float(o[p])
        moved.append(current)
    size = (image.shape[1], image.shape[0])
    grown = _grown(h, moved)
    if squareness(grown, size) <= MAX_SQUARENESS:
        return grown
    # One side walked out much further than the others (onto an arm's edge or a
    # stripe in the table): the board's rings are concentric, so it should have
    # moved as far as the others did.
    for side in np.argsort([-abs(m - np.median(np.delete(moved, i))) for i, m in enumerate(moved)]):
        for value in (float(np.median(np.delete(moved, side))), 0.0):
            trial = list(moved)
            trial[side] = value
            candidate = _grown(h, trial)
            if squareness(candidate, size) <= MAX_SQUARENESS:
                return candidate
    return grown


def _grown(h: np.ndarray, moved: Sequence[float]) -> np.ndarray:
    """The unit square with its sides moved out by ``moved`` (top, right, bottom, left),
    through ``h``."""
    top, right, bottom, left = moved
    unit = np.array(
        [[-left, -top], [1 + right, -top], [1 + right, 1 + bottom], [-left, 1 + bottom]]
    )
    return cv2.perspectiveTransform(unit.reshape(1, 4, 2), h).reshape(4, 2)


def _edge_points(
    image: np.ndarray, quad: np.ndarray, radius: float, samples: int, subpixel: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where the strongest colour edge crosses profiles laid across each side.

    Returns each side's unit direction (4×2), the edge point on every profile
    (4×S×2) and whether that profile had a clear edge (4×S). With ``subpixel`` the
    gradient peak is interpolated with a parabola.
    """
    steps = max(3, math.ceil(radius))
    offsets = np.arange(-steps, steps + 1, dtype=np.float64)
    t = np.linspace(0.06, 0.94, samples)
    b = np.roll(quad, -1, axis=0)
    d = b - quad
    d = d / np.maximum(np.linalg.norm(d, axis=1), 1e-9)[:, None]
    normal = np.stack([d[:, 1], -d[:, 0]], axis=1)  # outward for a clockwise quad
    base = quad[:, None, :] + (b - quad)[:, None, :] * t[None, :, None]  # 4×S×2
    pts = base[:, :, None, :] + normal[:, None, None, :] * offsets[None, None, :, None]
    mx = pts[..., 0].reshape(4 * samples, -1).astype(np.float32)
    my = pts[..., 1].reshape(4 * samples, -1).astype(np.float32)
    prof = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    prof = prof.astype(np.float32)
    if prof.ndim == 2:
        prof = prof[..., None]
    grad = np.linalg.norm(np.diff(prof, axis=1), axis=2)  # (4S, 2*steps)
    rows = np.arange(grad.shape[0])
    peak = np.argmax(grad, axis=1)
    strength = grad[rows, peak]
    valid = (strength > 8.0) & (peak > 0) & (peak < grad.shape[1] - 1)
    # diff index i sits between offsets i and i+1.
    pos = offsets[0] + peak + 0.5
    if subpixel:
        inner = np.clip(peak, 1, grad.shape[1] - 2)
        g0, g1, g2 = grad[rows, inner - 1], grad[rows, inner], grad[rows, inner + 1]
        denom = g0 - 2 * g1 + g2
        sub = np.where(np.abs(denom) > 1e-6, 0.5 * (g0 - g2) / np.where(denom == 0, 1, denom), 0.0)
        pos = offsets[0] + inner + 0.5 + np.clip(sub, -0.5, 0.5)
    edge_pts = base + normal[:, None, :] * pos.reshape(4, samples)[..., None]
    return d, edge_pts, valid.reshape(4, samples)


def _refine_outline(
    image: np.ndarray,
    quad: np.ndarray,
    radius: float,
    samples: int = 40,
    keep_missing: bool = True,
) -> tuple[np.ndarray, float]:
    """Re-fit each side from colour-edge profiles across it; returns corners and inlier share.

    Sub-pixel: the gradient peak along each profile is interpolated with a parabola.
    Robust: profiles with no clear edge (a hand, a tile over the side) are dropped,
    and the line is fitted with a Huber loss, then again without far outliers.
    """
    a = quad
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    if np.any(lengths < 8):
        return quad, 0.0
    d, edge_pts, valid = _edge_points(image, quad, radius, samples, subpixel=True)
    lines: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
    share = []
    for side in range(4):
        p = edge_pts[side][valid[side]]
        old = (a[side], d[side], None)
        if len(p) < samples * 0.3:
            # Too little of this side shows (a hand, a weak edge): keep it where it was.
            lines.append(old)
            share.append(0.0)
            continue
        vx, vy, cx, cy = cv2.fitLine(p.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        direction, centre = np.array([vx, vy]), np.array([cx, cy])
        dist = np.abs((p - centre) @ np.array([-vy, vx]))
        # Inliers lie on one edge: within 1.5 px or 0.8% of the side (lens distortion
        # bends a straight edge by a few pixels; the curve is modelled below).
        keep = dist < max(1.5, 0.008 * lengths[side])
        if keep.sum() < 0.3 * samples:
            lines.append(old)
            share.append(0.0)
            continue
        fit = cv2.fitLine(p[keep].astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01)
        vx, vy, cx, cy = fit.ravel()
        direction, centre = np.array([vx, vy]), np.array([cx, cy])
        curve = None
        if keep.sum() >= 0.5 * samples:
            # A parabola across the line: the edge's bend, to extrapolate the corners
            # along its tangent rather than along the chord.
            q = p[keep] - centre
            u = q @ direction
            v = q @ np.array([-direction[1], direction[0]])
            curve = np.polyfit(u / lengths[side], v, 2)
            # A wide-angle lens bends an edge by up to ~1.5% of its length; more is
            # two edges mixed.
            if abs(curve[0]) * 0.25 > 0.02 * lengths[side]:
                curve = None
        lines.append((centre, direction, curve))
        share.append(keep.sum() / samples)
    # Tracking must not keep a side where it was (the board may have moved): it
    # passes keep_missing=False and gets a failure instead.
    if sum(s > 0 for s in share) < (2 if keep_missing else 4):
        return quad, 0.0
    corners = []
    for i in range(4):
        pt = _intersect(lines[i - 1][0], lines[i - 1][1], lines[i][0], lines[i][1])
        if pt is None:
            return quad, 0.0
        for _ in range(2):
            tangents = [_tangent_at(lines[k], pt, lengths[k % 4]) for k in (i - 1, i)]
            better = _intersect(*tangents[0], *tangents[1])
            if better is None or np.linalg.norm(better - pt) > 0.03 * lengths[i]:
                break
            pt = better
        corners.append(pt)
    return np.array(corners), float(np.mean(share) if keep_missing else min(share))


def _tangent_at(
    line: tuple[np.ndarray, np.ndarray, np.ndarray | None], point: np.ndarray, length: float
) -> tuple[np.ndarray, np.ndarray]:
    """The fitted edge's tangent (point, direction) where it passes ``point``."""
    centre, direction, curve = line
    if curve is None:
        return centre, direction
    normal = np.array([-direction[1], direction[0]])
    u = float((point - centre) @ direction) / length
    v = float(np.polyval(curve, u))
    slope = float(np.polyval(np.polyder(curve), u)) / length
    tangent = direction + slope * normal
    return centre + direction * u * length + normal * v, tangent / np.linalg.norm(tangent)


def _fit_edges(image: np.ndarray, quad: np.ndarray) -> tuple[np.ndarray, float]:
    """Each side of ``quad`` snapped to the board edge near it (see :func:`_refine_outline`).

    The outline given comes from straight-sided profile walks, so on a strongly
    curved lens it can lie ~1% off a bowed edge: the fit searches that far
    (CURVE_REACH of a side) either way.
    """
    reach = max(2.5, CURVE_REACH * board_width_px(quad))
    return _refine_outline(image, quad, reach)


def _fitted_outline(
    image: np.ndarray, outline: np.ndarray, confidence: float
) -> tuple[np.ndarray, float]:
    """One outline of the search moved out to the board's outermost edge and fitted
    to the edge pixels there, with its confidence."""
    expanded = _expand_outline(image, _order_clockwise(outline))
    quad, share = _fit_edges(image, expanded)
    if share < 0.3 or not convex_clockwise(quad):
        return expanded, confidence  # the profile walk is still better than a failed fit
    return quad, min(confidence, 0.5 + 0.5 * share)


def _board_edge(
    image: np.ndarray,
    quad: np.ndarray,
    confidence: float,
    layout: Layout,
    look: BoardLook | None,
) -> tuple[np.ndarray, float]:
    """The board's outer edge (4x2 clockwise) and a confidence, from a fitted outline
    (:func:`_fitted_outline`); :class:`BoardNotFound` if it cannot be the board's
    picture."""
    agreed = outer_rim(image, agree_sides(image, quad))
    size = (image.shape[1], image.shape[0])
    square = squareness(quad, size) <= MAX_SQUARENESS
    if not np.allclose(agreed, quad):
        refitted, refit_share = _fit_edges(image, agreed)
        ok = refit_share >= 0.3 and convex_clockwise(refitted)
        moved = refitted if ok else agreed
        moved_square = squareness(moved, size) <= MAX_SQUARENESS
        # A side moved onto an arm lying along it makes the outline a rectangle.
        if moved_square or not square:
            quad, square = moved, moved_square
    if square and look is not None and look.rim is not None:
        # The registered rim may start outside this outline: a board whose outer
        # band has the table's colour shows its score track's ring as its edge.
        offset = rim_offset(look.rim, image, _order_clockwise(quad))
        if offset:
            quad = moved_outline(_order_clockwise(quad), offset)
    elif square:
        # No registered look: the grid inside the outline tells an inner ring from
        # the edge (the contract fixes where the grid lies on the board).
        ordered = _order_clockwise(quad)
        offset = grid_offset(image, ordered, layout)
        if offset:
            moved = moved_outline(ordered, offset)
            snapped, share = _fit_edges(image, moved)
            quad = snapped if share >= 0.3 and convex_clockwise(snapped) else moved
    if not square:
        raise BoardNotFound(
            "the outline found is not square: something lies along an edge of the board "
            "(an arm, a box); clear the edges or register the board by hand"
        )
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    if sides.min() / sides.max() < MIN_SIDE_RATIO:
        raise BoardNotFound(
            f"board too oblique: its near and far sides differ {sides.max() / sides.min():.1f}x; "
            "raise the camera or look more from above"
        )
    return _order_clockwise(quad), confidence


def _grid_checked(
    image: np.ndarray,
    layout: Layout,
    look: BoardLook | None,
    outlines: list[tuple[np.ndarray, float]],
    first: np.ndarray,
    quad: np.ndarray,
    confidence: float,
) -> tuple[np.ndarray, float]:
    """Of ``quad`` (the board's edge from ``first``, the search's first outline
    fitted) and the edges from the next outlines, the one the board's grid fits best,
    if it fits clearly better than ``quad``.

    The search ranks outlines by how board-like their content is. That cannot tell an
    outline one side of which lies 1-2% off (on a bowed edge, or on the line of a
    shadow) from the right one, and an outline mixing the board's edge with one of
    its inner lines can even win it. The grid's fit tells them apart: on the tuning
    frames it chose a right outline over a wrong first in 7 frames of 1,440 without
    hands, and a wrong one in none (`docs/calibration.md`, session 10).
    """
    best = (float(grid_fit(image, quad, layout).max()) + GRID_BETTER, quad, confidence)
    tried = [first]
    for outline, outline_confidence in outlines[1:GRID_CANDIDATES]:
        fitted, fitted_confidence = _fitted_outline(image, outline, outline_confidence)
        # Most outlines of the search are rings of one board that the fit has taken
        # to the same edge: the rest of the way would end where the first did.
        if any(_same_quad(fitted, other) for other in tried):
            continue
        tried.append(fitted)
        try:
            other, other_confidence = _board_edge(image, fitted, fitted_confidence, layout, look)
        except BoardNotFound:
            continue
        fit = float(grid_fit(image, other, layout).max())
        if fit > best[0]:
            best = (fit, other, other_confidence)
    return best[1], best[2]


def _same_quad(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two clockwise outlines have their corners within SAME_OUTLINE."""
    width = board_width_px(a)
    return any(
        float(np.abs(np.roll(a, k, axis=0) - b).max()) <= SAME_OUTLINE * width for k in range(4)
    )


def find_board(
    image: np.ndarray,
    layout: Layout,
    previous: BoardLocation | None = None,
    look: BoardLook | None = None,
) -> BoardLocation:
    """Locate the board automatically; raise :class:`BoardNotFound` with the reason.

    With ``previous`` the board is first looked for around its old corners (fast,
    keeps the old orientation); only if that fails is the whole frame searched.
    A ``look`` captured at registration decides which edge is south, and its rim
    profile moves an outline found on an inner ring out to the board's edge.

        >>> loc = find_board(frame, Layout.load())  # doctest: +SKIP
        >>> loc.method, loc.orientation_source      # doctest: +SKIP
        ('auto', 'nearest-edge')
    """
    if image is None or image.ndim not in (2, 3) or image.size == 0:
        raise BoardNotFound("not an image")
    if previous is not None:
        tracked = track_board(image, previous)
        if tracked is not None:
            return tracked
    outlines = _find_outlines(image)
    first, first_confidence = _fitted_outline(image, *outlines[0])
    quad, confidence = _board_edge(image, first, first_confidence, layout, look)
    quad, confidence = _grid_checked(image, layout, look, outlines, first, quad, confidence)
    location = BoardLocation.from_corners(quad, "auto", confidence, "auto")
    return orient(image, location, layout, look)


def track_board(image: np.ndarray, previous: BoardLocation) -> BoardLocation | None:
    """The board near its previous place, or ``None`` if it cannot be confirmed there.

    Cheap (a few thousand pixel samples): each side is re-fitted within a window
    around the old one. The corner order (orientation) is kept. Every side must be
    re-fitted, with one exception: when a hand hides one side and the other three
    are found exactly where they were (within 1.5 px or 0.4% of the board), the
    board has not moved (a rigid board cannot keep three sides and move the
    fourth), so the hidden side is kept too.
    """
    quad = previous.corners
    radius = max(6.0, 0.02 * board_width_px(quad))
    share = 0.0
    for r in (radius, 2.5):
        fitted, share = _refine_outline(image, quad, r, keep_missing=False)
        if share < 0.5:  # mean over the sides: a hand may hide much of one
            return _three_sides_unmoved(image, previous)
        quad = fitted
    if not convex_clockwise(quad):
        return None
    return BoardLocation.from_corners(
        quad,
        previous.method if previous.method == "auto" else "auto",
        min(previous.confidence, share),
        "tracked" if previous.orientation_source != "signature" else "signature",
    )


def _three_sides_unmoved(image: np.ndarray, previous: BoardLocation) -> BoardLocation | None:
    """``previous`` itself if three of its sides re-fit in place (the fourth hidden)."""
    old = previous.corners
    # A little looser than a bump (MOVE_TOLERANCE_PX): a straight fit of a side the
    # lens bends slightly misses its corners by a fraction of a pixel more.
    tolerance = max(1.5, 0.004 * previous.width_px())
    fitted, shares = _refine_sides(image, old, 2.5)
    if sum(s >= 0.5 for s in shares) < 3:
        return None
    for side, s in enumerate(shares):
        if s < 0.5:
            continue
        # The fitted side must pass through both of its old corners.
        centre, direction = fitted[side]
        normal = np.array([-direction[1], direction[0]])
        for corner in (old[side], old[(side + 1) % 4]):
            if abs(float((corner - centre) @ normal)) > tolerance:
                return None
    return previous


def _refine_sides(
    image: np.ndarray, quad: np.ndarray, radius: float, samples: int = 40
) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[float]]:
    """Each side re-fitted as a straight line (point, direction) and its inlier share."""
    a = quad
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    d, edge_pts, valid = _edge_points(image, quad, radius, samples, subpixel=False)
    lines, shares = [], []
    for side in range(4):
        p = edge_pts[side][valid[side]]
        if len(p) < 0.3 * samples:
            lines.append((a[side], d[side]))
            shares.append(0.0)
            continue
        vx, vy, cx, cy = cv2.fitLine(p.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        centre, direction = np.array([cx, cy], np.float64), np.array([vx, vy], np.float64)
        dist = np.abs((p - centre) @ np.array([-vy, vx]))
        keep = dist < max(1.5, 0.008 * lengths[side])
        lines.append((centre, direction))
        shares.append(float(keep.sum()) / samples)
    return lines, shares
