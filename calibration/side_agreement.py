"""Put right the one side of a found board outline that does not look like the others.

The board's border art runs the same way along all four sides (outer edge, score
track, the panel inside it), so the colours met walking inward from a correctly
placed side are the same from every side. An outline side that snapped to
something else (a stripe in the table's wood, the edge of an arm resting on the
board) meets them at the wrong distance: comparing each side's profile with the
other three's says how far, and the side is moved there::

    >>> import numpy as np
    >>> quad = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)
    >>> moved = move_side(quad, side=0, inward=0.1)   # the north side, 10% inward
    >>> moved.round().tolist()
    [[100.0, 120.0], [300.0, 120.0], [300.0, 300.0], [100.0, 300.0]]

Only one side is moved per round (the one whose move gains most), and only when its
profile then matches the others well: a side hidden by a hand or a board whose
sides differ is left alone.

The opposite mistake, all four sides on the score track's edge just inside a
thin dark rim of the board, cannot show as disagreement; :func:`outer_rim` looks
for it: a colour step a little outside the sides (all but one may do, if it shows
clearly: an arm may lie over one), with the same colour between it and the outline.
"""

from __future__ import annotations

import cv2
import numpy as np

UNIT = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)

STEP = 0.004
"""Profile sample spacing, in board units."""
DEPTHS = np.arange(-0.12, 0.42 + STEP / 2, STEP)
"""Where each side's profile is sampled: board units inward from the side (negative:
outside it). Far enough inward that a side stuck a fifth of the board out can still
find the art."""
ALONG = np.arange(0.15, 0.851, 0.02)
"""Positions along each side whose colours are combined (median) into its profile;
the corners, where two sides' art meets, are left out."""
COMPARED = (DEPTHS >= -0.02) & (DEPTHS <= 0.17)
"""The part of the profile compared: the outer edge, the score track and the panel's
edge, short of the square grid (0.18), whose frames differ in colour per side."""
SHIFTS = range(-25, 61)
"""Candidate moves, in samples: 0.1 board units outward to 0.24 inward."""
MIN_MATCH = 0.75
"""Correlation with the other sides' profile a moved side must reach."""
MIN_GAIN = 0.05
"""Improvement of that correlation over leaving the side where it is."""
ROUNDS = 3


def _side_points(side: int) -> np.ndarray:
    """Board points of ``side``'s profile samples, DEPTHS x ALONG x 2."""
    d, t = np.meshgrid(DEPTHS, ALONG, indexing="ij")
    x, y = {0: (t, d), 1: (1 - d, t), 2: (1 - t, 1 - d), 3: (d, 1 - t)}[side]
    return np.stack([x, y], axis=-1)


_POINTS = [_side_points(side).reshape(-1, 1, 2) for side in range(4)]


def side_samples(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """For each side of ``quad`` (NW, NE, SE, SW order; side i joins corners i and
    i+1, ALONG running from corner i to i+1), the colour at each depth of DEPTHS and
    each position of ALONG: 4 x len(DEPTHS) x len(ALONG) x 3."""
    h = cv2.getPerspectiveTransform(UNIT, quad.astype(np.float32))
    bgr = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    sides = []
    for points in _POINTS:
        pixels = cv2.perspectiveTransform(points, h).reshape(-1, 2).astype(np.float32)
        samples = cv2.remap(
            bgr,
            pixels[:, 0].reshape(1, -1),
            pixels[:, 1].reshape(1, -1),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        sides.append(samples.reshape(len(DEPTHS), len(ALONG), 3))
    return np.array(sides, np.float32)


def side_profiles(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Each side's median colour at each depth of DEPTHS: 4 x len(DEPTHS) x 3."""
    return np.median(side_samples(image, quad), axis=2)


def _normalised(profile: np.ndarray) -> np.ndarray:
    centred = profile - profile.mean(axis=0)
    return centred / (np.linalg.norm(centred) + 1e-6)


_COMPARED_AT = np.flatnonzero(COMPARED)
_VALID_SHIFTS = np.array(
    [k for k in SHIFTS if _COMPARED_AT[0] + k >= 0 and _COMPARED_AT[-1] + k < len(DEPTHS)]
)
_WINDOWS = _COMPARED_AT[None, :] + _VALID_SHIFTS[:, None]
"""For each candidate shift, the profile samples it lines up with the compared part."""


def best_shift(profile: np.ndarray, reference: np.ndarray) -> tuple[int, float, float]:
    """The shift (samples, positive inward) that best lines ``profile`` up with
    ``reference``: (shift, its correlation, the correlation with no shift)."""
    target = _normalised(reference[_COMPARED_AT])
    windows = profile[_WINDOWS]  # shifts x compared x 3
    centred = windows - windows.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(centred.reshape(len(centred), -1), axis=1) + 1e-6
    scores = (centred * target).sum(axis=(1, 2)) / norms
    best = int(np.argmax(scores))
    unmoved = np.flatnonzero(_VALID_SHIFTS == 0)
    return int(_VALID_SHIFTS[best]), float(scores[best]), float(scores[unmoved[0]])


def move_side(
    quad: np.ndarray, side: int, inward: float, inward_end: float | None = None
) -> np.ndarray:
    """``quad`` with one side moved ``inward`` board units (negative: outward); with
    ``inward_end`` its second corner (i+1) moves that much instead, turning the side."""
    board = UNIT.astype(np.float64).copy()
    axis = 1 if side in (0, 2) else 0
    sign = 1 if side in (0, 3) else -1
    board[side, axis] += sign * inward
    board[(side + 1) % 4, axis] += sign * (inward if inward_end is None else inward_end)
    h = cv2.getPerspectiveTransform(UNIT, quad.astype(np.float32))
    return cv2.perspectiveTransform(board.reshape(-1, 1, 2), h).reshape(-1, 2)


SEGMENTS = np.array_split(np.arange(len(ALONG)), 3)
"""Thirds of each side, also matched on their own: an arm lying over part of a side
hides only some of them, and a side off at one end only needs turning, not moving."""


def _side_move(samples: np.ndarray, reference: np.ndarray) -> tuple[float, float, float, float]:
    """How one side (its samples) should move to match ``reference``: (gain, match,
    move at its first corner, move at its second), moves in samples."""
    shift, match, unmoved = best_shift(np.median(samples, axis=1), reference)
    whole = (match - unmoved, match, float(shift), float(shift))
    fits = []
    for segment in SEGMENTS:
        shift, match, unmoved = best_shift(np.median(samples[:, segment], axis=1), reference)
        if match >= MIN_MATCH:
            fits.append((float(ALONG[segment].mean()), shift, match, unmoved))
    if not fits:
        return whole
    gain = float(np.mean([m - u for _, _, m, u in fits]))
    match = float(np.mean([m for _, _, m, _ in fits]))
    if len(fits) == 1:
        return max(whole, (gain, match, fits[0][1], fits[0][1]))
    # The visible thirds' moves, as a line along the side, give each corner's move.
    slope, at_start = np.polyfit([f[0] for f in fits], [f[1] for f in fits], 1)
    return max(whole, (gain, match, float(at_start), float(at_start + slope)))


def agree_sides(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """``quad`` with sides that disagree with the others moved to agree (see above)."""
    for _ in range(ROUNDS):
        samples = side_samples(image, quad)
        profiles = np.median(samples, axis=2)
        moves = []
        for side in range(4):
            others = np.median(np.delete(profiles, side, axis=0), axis=0)
            moves.append((*_side_move(samples[side], others), side))
        gain, match, start, end, side = max(moves)
        if max(abs(start), abs(end)) < 0.5 or gain < MIN_GAIN or match < MIN_MATCH:
            break
        quad = move_side(quad, side, start * STEP, end * STEP)
    return quad


RIM_DEPTHS = range(5, 21)
"""Candidate rims, in samples outside the outline: 0.02 to 0.08 board units."""
MIN_RIM_STEP = 9.0
"""Colour step (BGR distance, 0-255 scale) the rim's edge must show on RIM_SIDES
sides; twice that when the remaining side does not show it."""
RIM_SIDES = 3
"""Sides on which the rim must show."""
MAX_RIM_SPREAD = 10.0
"""Largest colour difference between the sides' rims: the rim is the board's, one
colour all round; the table beyond the outline differs from side to side."""


def outer_rim(image: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """``quad`` grown to the board's rim if one is found just outside it, else as is."""
    profiles = side_profiles(image, quad)
    edge = int(np.argmin(np.abs(DEPTHS)))
    best, best_step = 0, MIN_RIM_STEP
    for depth in RIM_DEPTHS:
        i = edge - depth
        outside = profiles[:, i - 3 : i - 1].mean(axis=1)
        inside = profiles[:, i + 1 : i + 3].mean(axis=1)
        steps = np.linalg.norm(outside - inside, axis=1)
        # All sides but one: a hand or an arm may lie over the rim of one.
        shown = np.argsort(steps)[4 - RIM_SIDES :]
        step = float(steps[shown].min())
        if steps.min() < MIN_RIM_STEP:
            # A side without the rim (under an arm?) is allowed only when the rim
            # shows clearly on the others.
            step /= 2
        rim = profiles[shown, i + 1 : edge - 1].mean(axis=1)
        spread = float(np.linalg.norm(rim - np.median(rim, axis=0), axis=1).max())
        if step >= best_step and spread <= MAX_RIM_SPREAD:
            best, best_step = depth, step
    if not best:
        return quad
    grown = UNIT.astype(np.float64) * (1 + 2 * best * STEP) - best * STEP
    h = cv2.getPerspectiveTransform(UNIT, quad.astype(np.float32))
    return cv2.perspectiveTransform(grown.reshape(-1, 1, 2), h).reshape(-1, 2)
