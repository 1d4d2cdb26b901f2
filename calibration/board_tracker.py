"""Keep the board located frame after frame, and notice when it moved.

Each frame first re-fits the board's outline near where it was
(:func:`calibration.board_finder.track_board`, about a millisecond); an outline that has
not moved keeps the registration. Only when the re-fit is not confirmed does the frame
cost one small warp: the board seen from above as a thumbnail, its border band compared
with the registration's. :class:`BoardTracker` returns the registered location unchanged
while the band matches, waits while a hand hides it, and finds the board anew
(:func:`calibration.board_finder.find_board`) only when a difference lasts.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np

from calibration.board_finder import find_board, track_board
from calibration.board_location import BoardLocation, BoardNotFound
from calibration.orientation import BoardLook
from calibration.rim_profile import STILL_THERE, rim_match
from engine.layout import Layout

THUMB = 128  # top-down thumbnail side (pixels) for the cheap drift check
THUMB_MARGIN = 0.04  # board units of table kept around the board: its outline is texture
RING = (0.03, 0.16)  # the border band (inside the grid's 0.18) that hands rarely cover
MOVE_TOLERANCE_PX = 1.0  # corner motion below this is noise, not a bump
PATCH_MATCH = 0.85  # per-patch correlation above which a patch "still matches"
MIN_MATCHING = 0.5  # share of border patches that must match to call the board unmoved
MAX_THUMB_SHIFT = 1.2  # thumbnail pixels of slide allowed: about 1% of the board width, the
# accuracy the squares are read at; camera shake slides the picture about that much
MIN_VISIBLE_MATCHING = 0.3  # with no slide at all, this share of matching patches will do
PATIENCE_FRAMES = 10  # frames the board must look different before it is sought anew
MIN_REREGISTER_MATCHING = 0.7  # a board found from scratch must look this much like the
# registered one: under a hand a wrong outline (or a wrong turn) can pass a lower bar


def _thumb_homography(location: BoardLocation, scale: float) -> np.ndarray:
    """Pixels (of an image scaled by ``scale``) -> thumbnail pixels."""
    span = 1 + 2 * THUMB_MARGIN
    board_to_thumb = np.array(
        [
            [(THUMB - 1) / span, 0, THUMB_MARGIN * (THUMB - 1) / span],
            [0, (THUMB - 1) / span, THUMB_MARGIN * (THUMB - 1) / span],
            [0, 0, 1],
        ]
    )
    unscale = np.diag([1 / scale, 1 / scale, 1.0])
    return board_to_thumb @ location.image_to_board @ unscale


def board_thumbnail(image: np.ndarray, location: BoardLocation) -> np.ndarray:
    """The board seen from above, grey, ``THUMB``² pixels, with a thin margin of table."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    scale = 1.0
    # Shrink first so the warp averages rather than aliases (and costs less).
    while grey.shape[1] * scale > 4 * THUMB and location.width_px() * scale > 2 * THUMB:
        grey = cv2.pyrDown(grey)
        scale /= 2
    h = _thumb_homography(location, scale)
    return cv2.warpPerspective(grey, h, (THUMB, THUMB), flags=cv2.INTER_LINEAR)


def _thumb_px(v: float) -> int:
    """The thumbnail pixel of board coordinate ``v`` (the table margin included)."""
    return round((v + THUMB_MARGIN) * (THUMB - 1) / (1 + 2 * THUMB_MARGIN))


def _ring_patches() -> list[tuple[slice, slice]]:
    """Sixteen patches of the border band of the thumbnail, four per side."""
    lo, hi = _thumb_px(-THUMB_MARGIN), _thumb_px(RING[1])
    cuts = [_thumb_px(v) for v in (0.0, 0.25, 0.5, 0.75, 1.0)]
    patches = []
    for a, b in itertools.pairwise(cuts):
        patches.append((slice(lo, hi), slice(a, b)))  # north band
        patches.append((slice(THUMB - hi, THUMB - lo), slice(a, b)))  # south band
        patches.append((slice(a, b), slice(lo, hi)))  # west band
        patches.append((slice(a, b), slice(THUMB - hi, THUMB - lo)))  # east band
    return patches


_PATCHES = _ring_patches()


def border_match(reference: np.ndarray, current: np.ndarray) -> float:
    """Share of border patches whose content still matches the reference (0..1)."""
    matched = 0
    for rows, cols in _PATCHES:
        a = reference[rows, cols].astype(np.float32)
        b = current[rows, cols].astype(np.float32)
        a = a - a.mean()
        b = b - b.mean()
        va, vb = float((a * a).mean()), float((b * b).mean())
        if va < 16.0 or vb < 16.0:
            # A flat patch has no texture to correlate: both must be flat and alike.
            ok = (
                va < 16.0
                and vb < 16.0
                and abs(float(reference[rows, cols].mean()) - float(current[rows, cols].mean()))
                < 12
            )
        else:
            ok = float((a * b).mean()) / math.sqrt(va * vb) > PATCH_MATCH
        matched += ok
    return matched / len(_PATCHES)


def _thumb_shift(reference: np.ndarray, current: np.ndarray) -> float:
    """How far (thumbnail pixels) the picture slid against the reference.

    Patch correlation alone forgives a shift of a few pixels (smooth art still
    correlates); phase correlation measures it, so a small bump under a hand is
    noticed instead of reading squares through a slightly stale homography. It is
    measured on the four sides of the border band, where tiles never go (over the
    whole board, a tile put down near the middle moved the estimate by up to a
    pixel), and the sides' median ignores one side a hand lies over.
    """
    shifts = []
    for (rows, cols), window in zip(_BAND_STRIPS, _STRIP_WINDOWS, strict=True):
        a = reference[rows, cols].astype(np.float32)
        b = current[rows, cols].astype(np.float32)
        (dx, dy), _ = cv2.phaseCorrelate(a, b, window)
        shifts.append((dx, dy))
    dx, dy = np.median(np.array(shifts), axis=0)
    return float(math.hypot(dx, dy))


def _band_strips() -> list[tuple[slice, slice]]:
    """The thumbnail's four border strips (north, south, west, east), table margin
    included: its edge against the board is the sharpest texture there is."""
    depth = _thumb_px(RING[1])
    everything = slice(None)
    return [
        (slice(0, depth), everything),
        (slice(THUMB - depth, THUMB), everything),
        (everything, slice(0, depth)),
        (everything, slice(THUMB - depth, THUMB)),
    ]


_BAND_STRIPS = _band_strips()
_STRIP_WINDOWS = [
    cv2.createHanningWindow(np.zeros((THUMB, THUMB))[strip].shape[::-1], cv2.CV_32F)
    for strip in _BAND_STRIPS
]
"""Each strip's phase-correlation window (the same every frame)."""


def _thumb_rotation(reference: np.ndarray, current: np.ndarray) -> int:
    """Quarter turns (clockwise) that best align ``current``'s orientation with the reference."""
    scores = []
    for k in range(4):
        rot = np.rot90(current, k).astype(np.float32)
        a = reference.astype(np.float32) - reference.mean()
        b = rot - rot.mean()
        scores.append(float((a * b).sum() / math.sqrt(float((a * a).sum() * (b * b).sum()) + 1e-9)))
    return int(np.argmax(scores))


def _still_px(location: BoardLocation) -> float:
    """How far a corner may move, in pixels, and the board still count as not moved:
    noise grows with the board's size in the picture."""
    return max(MOVE_TOLERANCE_PX, 0.002 * location.width_px())


def _same_outline(a: BoardLocation, b: BoardLocation) -> bool:
    """The same four corners (as a set), up to noise: the board has not moved."""
    tolerance = _still_px(b)
    return any(
        float(np.max(np.linalg.norm(np.roll(a.corners, k, 0) - b.corners, axis=1))) <= tolerance
        for k in range(4)
    )


class BoardTracker:
    """Keeps the board located frame after frame and notices when it moved.

    Each frame costs one small warp: the board's border band is compared with the
    reference frame's. While it matches, the registered location is returned
    unchanged. When it drifts (table bumped, camera moved) the board is
    re-registered; if that fails the tracker is *lost* and returns ``None`` —
    squares are never read through a stale homography. ``state`` is
    ``"tracking"``, ``"re-registering"``, ``"searching"`` or ``"lost: <reason>"``.

        >>> tracker = BoardTracker(Layout.load())
        >>> loc = tracker.update(frame)  # doctest: +SKIP
        >>> tracker.state                # doctest: +SKIP
        'tracking'
    """

    def __init__(
        self,
        layout: Layout,
        look: BoardLook | None = None,
        initial: BoardLocation | None = None,
    ) -> None:
        self.layout = layout
        self.look = look
        self.state = "searching"
        self._location: BoardLocation | None = None
        self._reference: np.ndarray | None = None
        self._pending = initial  # a registration to adopt on the first frame
        self._doubtful = 0  # frames in a row the board has looked different where it was
        self.reregistrations = 0

    @property
    def location(self) -> BoardLocation | None:
        """The current location, or ``None`` unless the state is ``"tracking"``."""
        return self._location if self.state == "tracking" else None

    @property
    def registered(self) -> BoardLocation | None:
        """The location in use, or one registered and taken up on the next frame (the
        user's corners, a calibration file's)."""
        return self._pending if self._pending is not None else self.location

    def reset(self, location: BoardLocation | None = None) -> None:
        """Forget the reference (e.g. after the user registered the board by hand)."""
        self._location, self._reference, self._pending = None, None, location
        self.state = "searching"

    def update(self, image: np.ndarray) -> BoardLocation | None:
        """Process one frame; returns the board location or ``None`` when not sure of it."""
        if self._pending is not None:
            return self._adopt_pending(image, self._pending)
        if self._location is None or self._reference is None:
            try:
                found = find_board(image, self.layout, look=self.look)
            except BoardNotFound as err:
                self.state = f"lost: {err.reason}"
                return None
            self._adopt(image, found)
            return self._location
        old = self._location
        # 1. Re-fit the outline near where it was (about a millisecond). A confirmed
        #    outline that has not moved means the registration still holds exactly.
        tracked = track_board(image, old)
        if tracked is not None:
            moved = float(np.max(np.linalg.norm(tracked.corners - old.corners, axis=1)))
            if moved <= _still_px(old):
                self.state = "tracking"
                self._doubtful = 0
                return old
        # 2. The outline was not confirmed (hands over a side?) or its re-fit moved. A
        #    board whose border band, seen where it was, still looks the same has not
        #    moved, whatever the re-fit says: hands, shadows and neighbouring edges fool
        #    the re-fit, and adopting a fooled outline would read every square wrong.
        #    A hand hides part of the band: the patches it leaves visible must still
        #    match and the picture must not have slid.
        current = board_thumbnail(image, old)
        match = border_match(self._reference, current)
        if match >= MIN_VISIBLE_MATCHING and (
            _thumb_shift(self._reference, current) <= MAX_THUMB_SHIFT
        ):
            self.state = "tracking"
            self._doubtful = 0
            return old
        # 3. It looks different where it was: if the re-fitted outline looks like the
        #    registered board, the board was bumped there.
        if tracked is not None:
            current = board_thumbnail(image, tracked)
            if border_match(self._reference, current) >= MIN_MATCHING:
                self.reregistrations += 1
                self._location, self._reference = tracked, current
                self.state = "tracking"
                self._doubtful = 0
                return tracked
        # 4. Usually a hand: say nothing for a moment rather than search from scratch
        #    under it (squares are not read meanwhile). Only a difference that lasts
        #    means the board or the camera really moved.
        self._doubtful += 1
        if self._doubtful < PATIENCE_FRAMES:
            self.state = "checking: the board looks different here (hands over it?)"
            return None
        return self._reregister(image)

    def _adopt_pending(self, image: np.ndarray, pending: BoardLocation) -> BoardLocation | None:
        """Start from a registration made earlier (a calibration file), unless the
        board's look shows the board has left it since: then find the board anew, and
        adopt what is found only if it looks like the registered board."""
        if self._looks_registered(image, pending):
            self._pending = None
            self._adopt(image, pending)
            return self._location
        try:
            found = find_board(image, self.layout, look=self.look)
        except BoardNotFound as err:
            self.state = f"lost: the board is not where it was registered, and {err.reason}"
            return None
        if not self._looks_registered(image, found):
            # A hand over the rim, or something else found: keep the registration and
            # look again on the next frame.
            self.state = "checking: the board is not where it was registered"
            return None
        self._pending = None
        self._adopt(image, found)
        return self._location

    def _looks_registered(self, image: np.ndarray, location: BoardLocation) -> bool:
        """Whether the rim at ``location`` looks like the registered look's (``True``
        when there is no rim to compare)."""
        if self.look is None or self.look.rim is None:
            return True
        return rim_match(self.look.rim, image, location.corners) >= STILL_THERE

    def _adopt(self, image: np.ndarray, location: BoardLocation) -> None:
        self._location = location
        self._reference = board_thumbnail(image, location)
        self.state = "tracking"

    def _reregister(self, image: np.ndarray) -> BoardLocation | None:
        self.state = "re-registering"
        assert self._location is not None and self._reference is not None
        reference = self._reference
        try:
            found = find_board(image, self.layout, look=self.look)
        except BoardNotFound as err:
            self.state = f"lost: {err.reason}"
            return None
        old = self._location
        if _same_outline(found, old):
            # Found again where it was (under hands the outline test had failed).
            self.state = "tracking"
            return old
        if found.orientation_source == "nearest-edge":
            # Found from scratch without a look: keep the registered orientation by
            # matching the board's own picture against the reference.
            turns = _thumb_rotation(reference, board_thumbnail(image, found))
            found = found.rotated(turns % 4, "tracked")
        current = board_thumbnail(image, found)
        if border_match(reference, current) < MIN_REREGISTER_MATCHING:
            # Found something, but it does not look like the registered board from
            # here (a hand over it, or a different outline): do not trust it yet.
            self.state = "lost: the board moved and could not be re-registered with confidence"
            return None
        self.reregistrations += 1
        self._location = found
        self._reference = current
        self.state = "tracking"
        self._doubtful = 0
        return found
