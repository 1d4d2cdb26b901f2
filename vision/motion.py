"""Motion over the board: a hand arriving, tiles being pushed, the board bumped.

Each frame the board is warped to a small grey thumbnail through the current
board location and compared with the previous frame's, block by block. Camera
shake of a pixel or two barely changes the blurred thumbnail; a hand does::

    >>> import numpy as np
    >>> detector = MotionDetector()
    >>> corners = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)
    >>> still = np.full((400, 400, 3), 90, np.uint8)
    >>> detector.update(still, corners), detector.update(still, corners)
    (False, False)
    >>> moved = still.copy(); moved[150:250, 150:250] = 250
    >>> detector.update(moved, corners)
    True
"""

from __future__ import annotations

from collections import deque

import cv2
import numpy as np

from engine import Edge
from vision.board_view import board_homography

THUMB_PX = 48
OVERSAMPLE = 4
BLOCK_PX = 8
WATCHED = (0.02, 0.98)
"""The part of the board watched, in board units: all of it but the very rim. A hand
still hovering over the board between two tiles means the turn is not over."""
BORDER = 0.14
"""How far in from the board's edge (board units) the border band watched for arms
reaches: short of the grid (0.18), so a tile placed on an outer square, its shadow
and a stack's edges never count as an arm."""
REGISTRATION_MOVE_PX = 4.0
"""A board outline moving more than this (pixels) is a new registration."""
SHAKE_PX = 0.6
"""Thumbnail pixels of camera shake whose effect is not counted as motion."""
EARLIER_VIEWS = 3
"""Steady views kept besides the last, to tell a shadow gone from an arm come."""
BLOCK_THRESHOLD = 8.0
"""Mean unexplained grey change (0-255, brightness-normalised) in one 8x8 block of
the thumbnail that counts as motion."""


class MotionDetector:
    """Compares each frame's board thumbnail with the previous one."""

    def __init__(self, threshold: float = BLOCK_THRESHOLD) -> None:
        self.threshold = threshold
        self._previous: np.ndarray | None = None
        self._corners: np.ndarray | None = None
        self._background: np.ndarray | None = None
        self._earlier_backgrounds: deque[np.ndarray] = deque(maxlen=EARLIER_VIEWS)
        """The steady views before the last one: what the border looks like again once
        something that lay over it when the last was taken (a shadow) has gone."""
        self._brightness: tuple[float, float] | None = None
        self.change_from_background: np.ndarray | None = None
        """Per thumbnail pixel, how much the board differs from the last steady view."""
        self.intrusion = 0.0
        """The largest change on the border ring against the last steady view."""
        self.intrusion_by_edge: dict[Edge, float] = {}
        """The same along the middle of each edge's side of the ring: where an arm from
        the player sitting there crosses it."""
        self.level = 0.0
        """The largest block change of the last frame (for the dashboard and tuning)."""

    def reset(self) -> None:
        self._previous = None
        self._corners = None
        self._background = None
        self._earlier_backgrounds.clear()
        self._brightness = None

    def interrupt(self) -> None:
        """A gap in the frames (the board was not found): compare afresh afterwards,
        but keep the last steady view for whatever outline comes next."""
        self._previous = None

    def update(self, image: np.ndarray, corners: np.ndarray) -> bool:
        """True when the board changed visibly since the previous frame."""
        corners = np.asarray(corners, np.float64)
        old_corners = self._corners
        registered_anew = (
            old_corners is None or np.abs(corners - old_corners).max() > REGISTRATION_MOVE_PX
        )
        if registered_anew:
            # The board was registered anew (bumped, found again): compare frame to frame
            # afresh. Smaller outline jitter from re-fitting each frame is ignored: the
            # view is warped through the same outline every frame, so it compares like
            # with like.
            self._corners = corners
            self._previous = None
        thumb = self._normalised(_thumbnail(image, self._corners))
        previous, self._previous = self._previous, thumb
        if registered_anew and self._background is not None and old_corners is not None:
            self._background, rewarped = self._carried_background(
                self._background, old_corners, thumb
            )
            earlier = list(self._earlier_backgrounds)
            self._earlier_backgrounds.clear()
            if self._background is not None:
                # The views before it are carried over the same way.
                self._earlier_backgrounds.extend(
                    _rewarp(e, old_corners, self._corners) if rewarped else e for e in earlier
                )
        self.intrusion = 0.0
        self.intrusion_by_edge = {}
        self.change_from_background = None
        if self._background is not None:
            self.change_from_background = _unexplained_change(self._background, thumb)
            ring = _ring_change(self._background, thumb)
            for earlier in self._earlier_backgrounds:
                # An arm differs from every view; a shadow that lay over the border in
                # the last ones (the border pictured anew under it, then a steady view),
                # and has gone, does not differ from the one before it came.
                ring = np.minimum(ring, _ring_change(earlier, thumb))
            self.intrusion = _ring_level(ring)
            self.intrusion_by_edge = edge_levels(ring)
        if previous is None:
            self.level = 0.0
            return False
        blocks = _block_means(_unexplained_change(previous, thumb))
        self.level = float(blocks.max())
        return self.level > self.threshold

    def _normalised(self, thumb: np.ndarray) -> np.ndarray:
        """Lamps flicker and cameras adjust their exposure: a change of the whole
        picture's brightness is not motion, so views are compared brightness-normalised.
        The brightness followed is the border band's (its median: an arm may lie over
        part of it), since the whole board's changes with every light tile put down;
        the scale is set once, from the first view's mean, which the thresholds assume.
        """
        band = max(float(np.median(thumb[_BAND > 0])), 1.0)
        if self._brightness is None:
            self._brightness = (band, max(float(thumb.mean()), 1.0))
        band_first, mean_first = self._brightness
        return thumb * (128.0 / mean_first * band_first / band)

    def _carried_background(
        self, background: np.ndarray, old_corners: np.ndarray, thumb: np.ndarray
    ) -> tuple[np.ndarray | None, bool]:
        """The last steady view, carried over to a new board outline, or None; and
        whether it was warped through both outlines to carry it.

        Either the camera and board stayed put and only the outline was fitted anew
        (then the old picture, warped through both outlines, still matches), or the
        board itself moved (then the picture, being in board coordinates, matches as
        it is). Whichever matches the border now is kept; the median over the border
        ignores an arm lying over part of it. If neither matches, it is dropped.
        """
        candidates = (background, _rewarp(background, old_corners, self._corners))
        mismatches = [_ring_median(c, thumb) for c in candidates]
        best = int(np.argmin(mismatches))
        if mismatches[best] > self.threshold / 2:
            return None, False
        return candidates[best], best == 1

    @property
    def has_background(self) -> bool:
        return self._background is not None

    def set_background(self) -> None:
        """Remember the board as it looks now, with no hand over it (a steady view)."""
        if self._background is not None:
            self._earlier_backgrounds.append(self._background)
        self._background = self._previous

    @property
    def hand_over_board(self) -> bool:
        """True while something lies over the board's border ring, where no tile ever
        goes: an arm reaching in, even one that holds still."""
        return self.intrusion > self.threshold


def _thumb_to_board(px: int) -> np.ndarray:
    """Homography from a ``px``-wide thumbnail's pixels to board units (WATCHED)."""
    lo, hi = WATCHED
    step = (hi - lo) / px
    return np.array([[step, 0, lo + step / 2], [0, step, lo + step / 2], [0, 0, 1]])


def _thumbnail(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The watched part of the board, grey, THUMB_PX wide, slightly blurred."""
    # warpPerspective samples points (it has no area filter), which aliases fine
    # art badly when shrinking ~10x; warp to 4x the size and average down instead.
    size = THUMB_PX * OVERSAMPLE
    m = board_homography(corners) @ _thumb_to_board(size)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    large = cv2.warpPerspective(
        grey, m, (size, size), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    )
    thumb = cv2.resize(large, (THUMB_PX, THUMB_PX), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(thumb, (3, 3), 0).astype(np.float32)


def _rewarp(thumb: np.ndarray, old_corners: np.ndarray, new_corners: np.ndarray) -> np.ndarray:
    """A thumbnail taken through ``old_corners`` as seen through ``new_corners``."""
    to_board = _thumb_to_board(THUMB_PX)
    new_to_old = (
        np.linalg.inv(to_board)
        @ np.linalg.inv(board_homography(old_corners))
        @ board_homography(new_corners)
        @ to_board
    )
    return cv2.warpPerspective(
        thumb,
        new_to_old,
        (THUMB_PX, THUMB_PX),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _ring_median(background: np.ndarray, thumb: np.ndarray) -> float:
    return float(np.median(_ring_blocks_levels(_ring_change(background, thumb))))


def _unexplained_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    # A camera shaken by a fraction of a pixel changes sharp edges a lot and flat
    # areas not at all; discount the change such a shake explains (it grows with the
    # local gradient), so only new things on the board count.
    return np.maximum(np.abs(after - before) - SHAKE_PX * _gradient(before), 0)


def _ring_change(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """:func:`_unexplained_change` for the border ring, where no tile ever goes: a
    shaken edge lands up to a pixel from where it was, so each pixel is allowed the
    strongest edge around it in either view. On small boards (a thumbnail pixel is
    6-7 image pixels) the border track's edges alone otherwise looked like an arm;
    on the squares this would also hide a tile put down on a like-coloured one."""
    edges = cv2.dilate(np.maximum(_gradient(before), _gradient(after)), _NEIGHBOURS)
    return np.maximum(np.abs(after - before) - SHAKE_PX * edges, 0)


_NEIGHBOURS = np.ones((3, 3), np.uint8)


def _gradient(thumb: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(thumb, cv2.CV_32F, 1, 0, ksize=3) / 8
    gy = cv2.Sobel(thumb, cv2.CV_32F, 0, 1, ksize=3) / 8
    return np.hypot(gx, gy)


def _block_means(change: np.ndarray) -> np.ndarray:
    side = THUMB_PX // BLOCK_PX
    return change.reshape(side, BLOCK_PX, side, BLOCK_PX).mean(axis=(1, 3))


def _border_band() -> np.ndarray:
    """Per thumbnail pixel, 1 inside the border band (see BORDER), else 0."""
    lo, hi = WATCHED
    centres = lo + (np.arange(THUMB_PX) + 0.5) * (hi - lo) / THUMB_PX
    outer = (centres < BORDER) | (centres > 1 - BORDER)
    return (outer[:, None] | outer[None, :]).astype(np.float32)


_BAND = _border_band()
_BAND_SHARE = _block_means(_BAND)
_RING = _BAND_SHARE > 0
"""The thumbnail blocks the border band passes through."""


def _ring_blocks_levels(change: np.ndarray) -> np.ndarray:
    """Mean change over the border band's part of each ring block."""
    return _block_means(change * _BAND)[_RING] / _BAND_SHARE[_RING]


def _ring_level(change: np.ndarray) -> float:
    return float(_ring_blocks_levels(change).max())


ACROSS_EDGE = (0.2, 0.8)
"""The part of each side, in board units, whose band tells which edge an arm came over:
the corners, where two sides' bands meet, belong to neither."""


def _edge_strips() -> dict[Edge, tuple[np.ndarray, np.ndarray]]:
    """Per edge, the thumbnail rows and columns of the middle of its side of the band."""
    lo, hi = WATCHED
    centres = lo + (np.arange(THUMB_PX) + 0.5) * (hi - lo) / THUMB_PX
    middle = (centres > ACROSS_EDGE[0]) & (centres < ACROSS_EDGE[1])
    near, far = centres < BORDER, centres > 1 - BORDER
    # The thumbnail is the board warped north up: rows run north to south.
    return {
        Edge.SOUTH: (far, middle),
        Edge.WEST: (middle, near),
        Edge.NORTH: (near, middle),
        Edge.EAST: (middle, far),
    }


_EDGE_STRIPS = _edge_strips()


def edge_levels(change: np.ndarray) -> dict[Edge, float]:
    """The largest block change along the middle of each side of the border band.

    >>> change = np.zeros((THUMB_PX, THUMB_PX), np.float32)
    >>> change[-4:, 20:28] = 40.0  # an arm over the south side of the board
    >>> {edge.value: round(level) for edge, level in edge_levels(change).items()}
    {'S': 27, 'W': 0, 'N': 0, 'E': 0}
    """
    levels = {}
    for edge, (rows, cols) in _EDGE_STRIPS.items():
        strip = change[np.ix_(rows, cols)]
        # Across the band's depth, then along the side over a block's width: an arm
        # is a block wide or more, a speck of noise is not.
        profile = strip.mean(axis=0) if edge in (Edge.SOUTH, Edge.NORTH) else strip.mean(axis=1)
        along = np.convolve(profile, np.full(BLOCK_PX, 1 / BLOCK_PX), mode="valid")
        levels[edge] = float(along.max())
    return levels


def region_mean(change: np.ndarray, rect: tuple[float, float, float, float]) -> float:
    """Mean of ``change`` (a thumbnail) over a board-units rectangle (x0, y0, x1, y1)."""
    lo, hi = WATCHED
    x0, y0, x1, y1 = (round((v - lo) / (hi - lo) * THUMB_PX) for v in rect)
    return float(change[y0:y1, x0:x1].mean())
