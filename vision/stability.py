"""Wait for a steady view: commit nothing while hands are over the board.

The classifier's readings are only trusted when nothing is moving over the board.
The :class:`StabilityTracker` watches the stream of readings and says when the
board has been still and unobstructed for a moment, handing over the readings
pooled over that moment (:func:`pooled`), which also smooths a reading that flickers
between two classes under one lamp::

    >>> import numpy as np
    >>> tracker = StabilityTracker(settle_s=0.3)
    >>> probs = {"b2": np.eye(3)[0]}
    >>> [tracker.update(t / 10, probs, obstructed=False) is not None for t in range(5)]
    [False, False, False, True, False]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

SETTLE_S = 0.35
"""How long the board must stay still and unobstructed before a view counts."""
MAX_POOL_S = 1.0
"""Readings older than this are not pooled into the view."""
LONGER_LOOK_S = 0.9
"""How long the board must stay still for a view taken back for a longer look
(:meth:`StabilityTracker.look_longer`): nearly the whole pool of frames."""


def pooled(*readings: np.ndarray) -> np.ndarray:
    """Readings of one square combined as their normalised geometric mean (a
    logarithmic pool): where they lean to one class the result is surer than their
    average, and a class any reading rules out stays ruled out. A steady view's
    frames, and then the view and its closer look at four turns, are pooled this way:
    averaging their probabilities instead let the less sure readings hold many
    squares below the "?" threshold (models/HISTORY.md: "Session 11" for the closer
    look, "Session 31" for the frames).

    >>> p = pooled(np.array([0.95, 0.05]), np.array([0.999, 0.001]))
    >>> round(float(p[0]), 3), round(float(p.sum()), 6)
    (0.993, 1.0)
    """
    floor = 1e-12  # a zero in one reading must not make the product all zero
    logs = np.mean([np.log(np.maximum(r, floor)) for r in readings], axis=0)
    product = np.exp(logs - logs.max(axis=-1, keepdims=True))
    return product / product.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class StableView:
    """The board's readings, pooled over a still, unobstructed moment, and, when the
    frames' crops were given, each frame's crops (oldest first), to look through again
    (:mod:`vision.burst`)."""

    time: float
    probabilities: Mapping[str, np.ndarray]
    frames: int
    frame_crops: tuple[np.ndarray, ...] | None = None


class StabilityTracker:
    """Turns per-frame readings into one :class:`StableView` per still moment."""

    def __init__(self, settle_s: float = SETTLE_S) -> None:
        self.settle_s = settle_s
        self._window: deque[tuple[float, Mapping[str, np.ndarray], np.ndarray | None]] = deque()
        self._emitted = False
        self._looking_longer = False
        self.current_view: StableView | None = None
        """The view emitted for the current still moment, until something moves."""

    def reset(self) -> None:
        self._window.clear()
        self._emitted = False
        self._looking_longer = False
        self.current_view = None

    @property
    def looked_longer(self) -> bool:
        """True once this still moment's view was taken back for a longer look."""
        return self._looking_longer

    def look_longer(self) -> None:
        """Take back the view just emitted: the board must stay still until the window
        spans :data:`LONGER_LOOK_S`, and then the view comes again, over all those
        frames. Once per still moment; for a view that left tiles in doubt, as more
        frames of a camera that smears every frame read better together
        (models/HISTORY.md, "Session 33").

        >>> tracker = StabilityTracker(settle_s=0.3)
        >>> probs = {"b2": np.eye(3)[0]}
        >>> views = [tracker.update(t / 10, probs, obstructed=False) for t in range(4)]
        >>> views[-1].frames
        4
        >>> tracker.look_longer()
        >>> later = [tracker.update(t / 10, probs, obstructed=False) for t in range(4, 12)]
        >>> [v.frames for v in later if v is not None]
        [10]
        """
        self._emitted = False
        self._looking_longer = True

    def restart(self, longer: bool = False) -> None:
        """The board changed though nothing was seen moving: a new still moment starts
        now, and with ``longer`` it must last :data:`LONGER_LOOK_S`.

        >>> tracker = StabilityTracker(settle_s=0.3)
        >>> probs = {"b2": np.eye(3)[0]}
        >>> tracker.restart(longer=True)
        >>> views = [tracker.update(t / 10, probs, obstructed=False) for t in range(12)]
        >>> [t for t, v in enumerate(views) if v is not None]
        [9]
        """
        self.reset()
        self._looking_longer = longer

    @property
    def idle(self) -> bool:
        """True when no still moment has begun (something moves, or nothing was fed)."""
        return not self._window

    def update(
        self,
        time: float,
        probabilities: Mapping[str, np.ndarray] | None,
        obstructed: bool,
        crops: np.ndarray | None = None,
    ) -> StableView | None:
        """Feed one frame (and its squares' ``crops``, in the readings' order); returns a
        view once per still moment, else None."""
        if probabilities is None or obstructed:
            self.reset()
            return None
        # A reading flickering between two classes is not the board changing (motion
        # and hands are what say that): it is pooled over the window, not waited out.
        self._window.append((time, probabilities, crops))
        while self._window and time - self._window[0][0] > MAX_POOL_S:
            self._window.popleft()
        settle_s = LONGER_LOOK_S if self._looking_longer else self.settle_s
        if self._emitted or time - self._window[0][0] < settle_s - 1e-9:
            return None
        return self._emit(time)

    def flush(self, last_frame_only: bool = False) -> StableView | None:
        """The view of the still moment under way, however short, if it has given none:
        a recording that ends right after the last tile is put down still has its
        last board read. With ``last_frame_only``, the last frame alone, even if the
        moment gave its view (the board changed since, too late to be seen as such).

        >>> tracker = StabilityTracker(settle_s=0.3)
        >>> tracker.update(0.0, {"b2": np.eye(3)[0]}, obstructed=False) is None
        True
        >>> tracker.flush().frames, tracker.flush(), tracker.flush(last_frame_only=True).frames
        (1, None, 1)
        """
        if not self._window or (self._emitted and not last_frame_only):
            return None
        if last_frame_only:
            while len(self._window) > 1:
                self._window.popleft()
        return self._emit(self._window[-1][0])

    def _emit(self, time: float) -> StableView:
        self._emitted = True
        squares = list(self._window[-1][1])
        view = {s: pooled(*(frame[1][s] for frame in self._window)) for s in squares}
        crops_seen = tuple(frame[2] for frame in self._window if frame[2] is not None)
        whole = crops_seen if len(crops_seen) == len(self._window) else None
        self.current_view = StableView(time, view, len(self._window), whole)
        return self.current_view
