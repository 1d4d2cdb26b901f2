"""Tell the players when the camera leaves many tiles unread, and what usually helps.

A "?" is the right answer for a tile the camera cannot read, and the game asks the
players about it rather than guess. But when steady view after steady view leaves
many tiles "?", the players keep being asked, and the cause is nearly always the
set-up, which only they can fix: a tile set that was never enrolled, or a smeared or
soft picture (a camera that shakes, a long exposure in dim light, a lens out of
focus). In the simulator about one game in sixteen has a camera that smears every frame; there
an enrolled set's steady views leave half its tiles or more "?" and many of its turns
go to the players, while the other games leave almost none (models/HISTORY.md,
"Session 31"). Each steady view's picture of the board is measured for blur
(:mod:`vision.photo_blur`): a lens out of focus is then named as the cause, whether the
set is enrolled or not. A camera smeared in one direction by its shaking measures far
less (a 7-px smear 1.4 px), so the advice for it stays the general one.

:class:`UnreadTiles` counts, over the last few steady views, the squares read as a
tile or "?" (not empty, not a hand), and how many of them were "?"::

    >>> import numpy as np
    >>> from vision.recognizer import LABELS
    >>> sure, unsure = np.eye(len(LABELS))[0], np.full(len(LABELS), 1 / len(LABELS))
    >>> unread = UnreadTiles()
    >>> for _ in range(5):
    ...     unread.add({"a1": sure, "a2": unsure, "a3": unsure, "a4": sure}, threshold=0.99)
    >>> unread.unread, unread.tiles
    (10, 20)
    >>> print(unread.advice(enrolled=True))  # doctest: +NORMALIZE_WHITESPACE
    10 of the last 20 tiles were left unread ("?"): a smeared or soft picture is the
    usual cause; mount the camera firmly, add light and check the focus
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import numpy as np

from vision.photo_blur import focus_verdict
from vision.recognizer import COVERED, EMPTY

VIEWS = 5
"""How many recent steady views are counted: enough tiles to judge (a game's first
views hold only the start tiles), few enough that the advice goes once the picture
is fixed."""
MIN_TILES = 20
"""Fewer tiles than this in those views say too little to advise on: with 8, one "?"
among a game's first views of 4 tiles each was enough (a false alarm in one of the
simulator's ten enrolled games; models/HISTORY.md, "Session 31")."""
UNREAD_SHARE = 0.25
"""Above this share of unread tiles the players are told. In the simulator's games the
one whose camera smears every frame leaves half the tiles or more unread in every run
of 5 views after its first few; the others at most 3 of 21, on a board 283 px wide
(models/HISTORY.md, "Session 31")."""


class UnreadTiles:
    """The tiles the recent steady views left unread, and advice when they are many."""

    def __init__(self, views: int = VIEWS) -> None:
        self._views: deque[tuple[int, int, float | None]] = deque(maxlen=views)

    def reset(self) -> None:
        """Forget the views counted so far (the board registered again: the camera moved)."""
        self._views.clear()

    def add(
        self,
        probabilities: Mapping[str, np.ndarray],
        threshold: float,
        blur_px: float | None = None,
    ) -> None:
        """Count one steady view: per square, its class probabilities; and how blurred
        its picture of the board was (:mod:`vision.photo_blur`), if measured."""
        tiles = unread = 0
        for p in probabilities.values():
            best = int(np.argmax(p))
            if best == COVERED or (best == EMPTY and p[best] >= threshold):
                continue  # a hand (not the picture's fault), or surely bare: no tile
            tiles += 1
            unread += int(p[best] < threshold)
        self._views.append((unread, tiles, blur_px))

    @property
    def unread(self) -> int:
        return sum(u for u, _, _ in self._views)

    @property
    def tiles(self) -> int:
        return sum(t for _, t, _ in self._views)

    @property
    def blur_px(self) -> float | None:
        """The recent views' pictures' blur (the median of those measured), or None."""
        measured = [b for _, _, b in self._views if b is not None]
        return float(np.median(measured)) if measured else None

    def advice(self, *, enrolled: bool) -> str | None:
        """A one-line hint when many of the recent tiles were left unread, else None.
        Without an enrolment the likeliest cause is a tile set the model never saw."""
        tiles, unread = self.tiles, self.unread
        if tiles < MIN_TILES or unread <= UNREAD_SHARE * tiles:
            return None
        enrol = "if the tiles are your own set, enrol it (Enrol tiles page, or setupcam enroll)"
        blur = self.blur_px
        if blur is not None and focus_verdict(blur) == "blurred":
            # Said first whatever the set: a blurred picture leaves any set unread.
            cause = (
                f"the picture is blurred ({blur:.1f} px): check the camera's focus (the "
                "Calibrate page measures it), add light and mount the camera firmly"
            )
            if not enrolled:
                cause += f"; and {enrol}"
        elif enrolled:
            cause = (
                "a smeared or soft picture is the usual cause; mount the camera firmly, add "
                "light and check the focus"
            )
        else:
            cause = enrol
        return f'{unread} of the last {tiles} tiles were left unread ("?"): {cause}'
