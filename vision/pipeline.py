"""The live pipeline: one camera frame in, the game's view of it out.

Explicit stages, each testable alone (as in chesscog): undistort, locate the
board, read the squares, detect motion and hands, wait for a steady view, decide
the position under the game's constraints. :meth:`LivePipeline.process` runs
them on one frame; :class:`vision.runner.PipelineRunner` runs them on a source.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from calibration.board_location import BoardLocation, manual_board
from calibration.board_tracker import BoardTracker
from calibration.camera_file import Calibration, undistort
from calibration.orientation import BoardLook, orient
from engine import ALL_TILES, Edge, Layout, Position, Seats
from vision.burst import accumulated, averaged, burst_of, registered
from vision.deblur import LEFT_SMEAR_PX, SMEAR_PX, unsmeared
from vision.decoder import EMPTY, Decision, GameContext, decode
from vision.motion import MotionDetector, region_mean
from vision.photo_blur import photo_blur_px
from vision.recognizer import COVERED, Label, Reading, TileRecognizer, label_of
from vision.stability import SETTLE_S, StabilityTracker, StableView, pooled
from vision.unread import UnreadTiles

TOUCHED = 6.0
"""Mean change (grey levels, brightness-normalised) in a square's middle, against the
last steady view, above which the square counts as disturbed this turn."""
SQUARE_MIDDLE_INSET = 0.03
"""How far a square's middle lies inside its outline, on each side (board units; the
standard layout's squares are 0.14 wide): a tile placed on the square changes its
middle; a neighbour's shadow or a slightly shifted tile edge barely does."""
CHANGED_FRAMES = 3
"""A square newly disturbed (:data:`TOUCHED`) in this many frames running, with no hand
seen, is a tile put down between two frames (a camera too slow to catch the hand, a
fast video). A camera's shake disturbs a square for a frame or two, and less."""
SECOND_LOOK_SQUARES = 3
"""A frame's squares left "?" (not hands) are read again at all four quarter turns, at
most this many per frame: 4 crops each, about 0.8 ms a square (12 crops take 2.4-2.5 ms
in `bench_recognizer`), so a frame stays well
inside its 20 ms (models/HISTORY.md, "Session 11")."""
STALE_BORDER_S = 2.0
"""Something over the board's border that has not moved for this long is taken as
part of the table (a cup, a shadow, a border that looked different when the steady
view was taken), not as an arm: the border's reference picture is taken anew."""


GONE_ON_S = 20.0
"""A play seen this soon after the last one, by an arm from the edge of the player who
made it, is that player's turn going on (a pause between two tiles), not the next
player's play."""

COVERED_SHARE = 0.75
"""A steady view reading this share of its squares as under a hand is taken for
corners off the board: hands over the board keep it from being steady at all."""


class GameLink(Protocol):
    """What the pipeline needs from the game: the context to decode against, and
    somewhere to send its decisions (the session, or the evaluation harness)."""

    def context(self) -> GameContext | None: ...

    def on_decision(self, decision: Decision) -> None: ...

    def forget_foreign(self, square: str) -> None:
        """The tile said not to be a play is no longer what the camera reads on
        ``square`` (taken away, or covered by a tile played)."""

    def on_turn_gone_on(self, decision: Decision) -> None:
        """The player of the last play, or of the play the players were asked about,
        went on with that turn: ``decision`` is the whole turn, from the board before
        it (it replaces the play recorded, or answers the question)."""


@dataclass(frozen=True)
class FrameReport:
    """Everything one frame produced, for the dashboard, the tests and the evaluation.
    Made once per frame and never changed: the camera thread hands it to the web
    requests that draw it."""

    time: float
    location: BoardLocation | None
    readings: dict[str, Reading] | None
    obstructed: bool
    motion: float
    view: StableView | None = None
    decision: Decision | None = None
    board_state: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    picture: np.ndarray | None = field(default=None, repr=False)
    """The frame as the stages read it: the lens's distortion taken out. The corners
    and squares above are in its pixels, so it is the picture to draw them on."""

    @property
    def total_ms(self) -> float:
        return sum(self.timings_ms.values())


class LivePipeline:
    """The per-frame stages. Not thread-safe: one thread feeds it frames."""

    def __init__(
        self,
        recognizer: TileRecognizer,
        layout: Layout | None = None,
        *,
        calibration: Calibration | None = None,
        look: BoardLook | None = None,
        settle_s: float = SETTLE_S,
        link: GameLink | None = None,
    ) -> None:
        self.recognizer = recognizer
        self.layout = layout or Layout.load()
        self.calibration = calibration
        initial = None
        if calibration is not None and calibration.board_corners is not None:
            initial = manual_board(calibration.board_corners)
        self.board = BoardTracker(self.layout, look=look, initial=initial)
        self._registration_fitted = False  # to the first frame's size
        self.lens_misfit: str | None = None
        """Why the calibration's lens model is not used (pictures of another shape)."""
        self.motion = MotionDetector()
        self.stability = StabilityTracker(settle_s)
        self.unread = UnreadTiles()
        self.link = link
        self.deciding = True
        """False while the table shows something other than the game (the Enrol
        page's photos): the board is read and shown, but no play is decided."""
        self._decided: GameContext | None = None
        self._touch_since_steady: dict[str, float] = {}
        self._explained: set[str] | None = None
        """Squares disturbed when this still moment began (a hand's work, seen); None
        while something moves over the board."""
        self._disturbed_frames: dict[str, int] = {}
        """Per square newly disturbed in this still moment: frames running."""
        self._arm_seen = False
        """An arm came over the board's border since the last steady view."""
        self._arm_edges: Counter[Edge] = Counter()
        """Per edge, the frames since the last steady view that saw an arm over it. The
        hand at the end of an arm may reach over another side's band for a frame or
        two (placing a tile on an outer square): its own edge holds it far longer."""
        self._last_play: tuple[GameContext, Decision, float] | None = None
        """The last play scored without asking: its game before it, and when."""
        self._last_asked: tuple[GameContext, Decision, float] | None = None
        """The last play the players were asked about: its game before it, and when."""
        self._moved_unseen = False
        """The last frame saw motion, and no arm since the last steady view."""
        self._view_labels: dict[str, Label] = {}
        """What the last steady view read on each square (its likeliest class)."""
        self._border_still_since: float | None = None
        inset = SQUARE_MIDDLE_INSET
        self._square_middles = {
            s: (r.x0 + inset, r.y0 + inset, r.x1 - inset, r.y1 - inset)
            for s, r in self.layout.rects.items()
        }
        """The middle of each square, where :data:`TOUCHED` is measured."""

    def _fit_registration(self, width: int, height: int) -> None:
        """The calibration file's board, for a camera that streams ``width`` x ``height``:
        made at another resolution of the same shape, its corners scaled; of another
        shape, the board is found anew (reading through wrong corners reads nonsense)."""
        calibration = self.calibration
        if calibration is None:
            return
        if calibration.has_lens and not calibration.same_shape(width, height):
            self.lens_misfit = (
                f"the lens calibration was made on {calibration.image_size[0]}x"
                f"{calibration.image_size[1]} pictures and the camera sends {width}x{height}, "
                "another shape: it is not used (calibrate the lens at this size)"
            )
        if calibration.board_corners is None or calibration.image_size == (width, height):
            return
        corners = calibration.board_corners_for(width, height)
        self.board.reset(None if corners is None else manual_board(corners))

    def undistorted(self, image: np.ndarray) -> np.ndarray:
        """The frame with the lens's distortion taken out, when the calibration has a
        lens model that fits the camera's pictures."""
        if self.calibration is None or not self.calibration.has_lens or self.lens_misfit:
            return image
        return undistort(image, self.calibration)

    def set_board_corners(self, corners: Any) -> None:
        """Register the board by hand (the dashboard's drag handles)."""
        self._register(manual_board(corners))
        self.unread.reset()  # the camera was likely moved: its picture is judged afresh

    def _register(self, location: BoardLocation) -> None:
        self.board.reset(location)
        self.motion.reset()
        self.stability.reset()
        # What the last steady view read, square by square, was read through the old
        # outline: after a turn to the seats, under other names. Compared with this
        # outline's readings, every square would look changed, and the board would be
        # waited on the longer look, with no view of it to see the first arm come.
        self._view_labels = {}
        self._touch_since_steady = {}

    def turn_to_seats(
        self, image: np.ndarray, seats: Seats
    ) -> tuple[BoardLocation, BoardLocation] | None:
        """When nothing has said which edge is south yet (the board was found with
        south taken as the edge nearest the camera), decide it from the seats: each
        edge's bonus frames have the colour of the player sitting there.

        Returns the locations before and after, if the board was turned (the caller
        renames what it read with :func:`turned_position`), else ``None``. From then
        on the seats' look also orients the board when it has to be found again.
        """
        location = self.board.location
        if location is None or location.orientation_source != "nearest-edge":
            return None
        look = BoardLook.from_seats(seats.by_edge)
        if look is None or not look.distinct():
            return None
        image = self.undistorted(image)
        turned = orient(image, location, self.layout, look)
        self.board.look = look
        if np.allclose(turned.corners, location.corners):
            self.board.reset(turned)
            return None
        self._register(turned)
        return location, turned

    def process(self, image: np.ndarray, now: float) -> FrameReport:
        """Run the stages on one frame taken at ``now`` (seconds, the source's clock)."""
        timings: dict[str, float] = {}
        clock = time.perf_counter()

        def lap(stage: str) -> None:
            nonlocal clock
            t = time.perf_counter()
            timings[stage] = (t - clock) * 1000
            clock = t

        if not self._registration_fitted:
            self._registration_fitted = True
            self._fit_registration(image.shape[1], image.shape[0])
        if self.calibration is not None and self.calibration.has_lens:
            image = self.undistorted(image)
            lap("undistort")
        location = self.board.update(image)
        lap("locate")
        if location is None:
            # Keep the last steady view: if the board is found again where it was (or
            # moved bodily), the motion detector carries it over to the new outline.
            self.motion.interrupt()
            self.stability.reset()
            return FrameReport(
                now,
                location=None,
                readings=None,
                obstructed=True,
                motion=0.0,
                board_state=self.board.state,
                timings_ms=timings,
                picture=image,
            )
        readings, crops = self.recognizer.read_board_with_crops(
            image, location.corners, self.layout, second_look=SECOND_LOOK_SQUARES
        )
        lap("read")
        obstructed = self._watch_hands(image, location.corners, readings, now)
        lap("motion")
        view = self._steady_view(now, readings, crops, obstructed, image, location.corners)
        decision = self._decide(view)
        if view is not None:
            self._start_from(view)
        lap("decide")
        return FrameReport(
            now,
            location,
            readings,
            obstructed,
            self.motion.level,
            view,
            decision,
            self.board.state,
            timings,
            image,
        )

    def _watch_hands(
        self, image: np.ndarray, corners: np.ndarray, readings: Mapping[str, Reading], now: float
    ) -> bool:
        """The motion stage: whether hands are over the board (the frame is obstructed),
        and which squares they touched. A tile put down with no hand seen makes the
        steady view wait the longer look."""
        moving = self.motion.update(image, corners)
        # Hands are seen directly: moving, or an arm over the border ring. A square the
        # classifier calls "covered" in a still, clear view is just unreadable (the
        # decoder weighs it); it is no reason to wait forever.
        hand_over_border = self._hand_over_border(now, moving)
        obstructed = moving or hand_over_border
        self._arm_seen |= hand_over_border
        if hand_over_border:
            self._arm_edges.update(
                edge
                for edge, level in self.motion.intrusion_by_edge.items()
                if level > self.motion.threshold
            )
        disturbed = self._note_touched_squares() | self._read_otherwise(readings)
        if self._changed_unseen(disturbed, obstructed) or (
            # Something moved over the board, but no arm came over its border: a tile
            # put down between two frames, as above.
            not obstructed and self._moved_unseen and self.stability.idle
        ):
            # The player may still be putting tiles down: wait the longer look, which
            # outlasts the moment between two tiles of one turn.
            self.stability.restart(longer=True)
        self._moved_unseen = obstructed and not self._arm_seen
        return obstructed

    def _steady_view(
        self,
        now: float,
        readings: Mapping[str, Reading],
        crops: np.ndarray,
        obstructed: bool,
        image: np.ndarray,
        corners: np.ndarray,
    ) -> StableView | None:
        """The wait-for-a-steady-view stage: a new steady view of the board once it has
        held still long enough (looked at again more closely), else ``None``."""
        probabilities = {s: r.probabilities for s, r in readings.items()}
        view = self.stability.update(now, probabilities, obstructed, crops)
        if view is None:
            return None
        view = self._second_look(view, image, corners)
        if self._worth_a_longer_look(view):
            self.stability.look_longer()
            return None
        blur = photo_blur_px(image, corners)
        self.unread.add(view.probabilities, self.recognizer.threshold, blur)
        return view

    def _start_from(self, view: StableView) -> None:
        """A steady view is the new reference: what happens over the board from now on
        is measured against it, and the arms and touches seen before it are forgotten."""
        self.motion.set_background()  # a steady view: nothing over the board now
        self._touch_since_steady = {}
        self._explained, self._disturbed_frames = set(), {}
        self._arm_seen = False
        self._arm_edges = Counter()
        self._view_labels = {
            square: label_of(int(np.argmax(probs))) for square, probs in view.probabilities.items()
        }

    def unread_advice(self) -> str | None:
        """A hint for the players when the recent steady views left many tiles "?"."""
        return self.unread.advice(enrolled=self.recognizer.enrollment is not None)

    def covered_advice(self) -> str | None:
        """A hint when a steady view, with nothing moving over the board, reads most
        squares as under a hand: corners set off the board read the table around it."""
        view = self.stability.current_view
        if view is None:
            return None
        covered = [s for s, p in view.probabilities.items() if int(np.argmax(p)) == COVERED]
        if not covered:
            return None
        if len(covered) < COVERED_SHARE * len(view.probabilities):
            return (
                f"something that is not a tile lies over {', '.join(covered)}: the camera "
                "cannot read what is under it; lift it off the board"
            )
        return (
            "most squares look covered though nothing moves over them: if no hand is on "
            "the board, the corners miss it (drag them onto its corners on the Calibrate "
            "page)"
        )

    def _second_look(self, view: StableView, image: np.ndarray, corners: np.ndarray) -> StableView:
        """A steady view is what gets decided, so it is worth a closer look: the squares
        read again at all four quarter turns (four times the work of a frame's reading,
        spent once per steady moment), pooled with the frames' readings. Tiles still in
        doubt get one more look, through the view's frames together (:meth:`_through_frames`)."""
        looks = self.recognizer.read_board(image, corners, self.layout, all_turns=True)
        probabilities = {
            s: pooled(p, looks[s].probabilities) if s in looks else p
            for s, p in view.probabilities.items()
        }
        if view.frame_crops is not None:
            probabilities.update(self._through_frames(view, probabilities, corners))
        view = replace(view, probabilities=probabilities)
        self.stability.current_view = view  # what the dashboard and a new game start from
        return view

    def _through_frames(
        self, view: StableView, probabilities: dict[str, np.ndarray], corners: np.ndarray
    ) -> dict[str, np.ndarray]:
        """The squares the look left in doubt with a tile on them, read from the view's
        frames' crops lined up and taken together (:mod:`vision.burst`): averaged
        (quieter than one frame; a camera that smears every frame its own way leaves a
        round blur), as they are and with a round smear of each length of
        :data:`vision.deblur.SMEAR_PX` taken out; and merged by burst accumulation (the
        sharpest frame at each detail), as it is and with what is left of the smear
        (:data:`vision.deblur.LEFT_SMEAR_PX`) taken out. Each is pooled with the frames'
        readings. The pictures that answer most of them are kept, and only the squares
        they answer: the others stay as they were (models/HISTORY.md, "Sessions 32-33")."""
        assert view.frame_crops is not None
        threshold = self.recognizer.threshold_all_turns
        squares = self.layout.squares
        doubtful = self._doubtful_tiles(probabilities)
        if not doubtful:
            return {}
        # Lined up on all the squares (the surest shift), then only the doubtful looked at.
        frames = registered(burst_of(view.frame_crops), only=doubtful)
        mean, sharpest = averaged(frames), accumulated(frames)
        # The smear is the camera's, in the frame's pixels; the crops are at their own scale.
        crop_px_per_px = self.recognizer.crop_px_per_px(corners)
        pictures = [
            (mean, (0.0, *SMEAR_PX)),
            (sharpest, (0.0, *LEFT_SMEAR_PX)),
        ]
        best: dict[str, np.ndarray] = {}
        for picture, lengths in pictures:
            for length in lengths:
                crops = unsmeared(picture, length * crop_px_per_px) if length else picture
                looks = self.recognizer.read_crops(crops, all_turns=True)
                answered = {}
                for i, look in zip(doubtful, looks, strict=True):
                    p = pooled(view.probabilities[squares[i]], look.probabilities)
                    if p.max() >= threshold:
                        answered[squares[i]] = p
                if len(answered) > len(best):
                    best = answered
                if len(best) == len(doubtful):
                    return best  # no picture can answer more
        return best

    def _doubtful_tiles(self, probabilities: Mapping[str, np.ndarray]) -> list[int]:
        """The squares (indices in the layout's order) whose best class is a tile, held
        below the four-turn "?" threshold."""
        return [
            i
            for i, s in enumerate(self.layout.squares)
            if probabilities[s].max() < self.recognizer.threshold_all_turns
            and int(probabilities[s].argmax()) not in (EMPTY, COVERED)
        ]

    def _worth_a_longer_look(self, view: StableView) -> bool:
        """A view that still leaves tiles in doubt is taken back, once, to be looked at
        again over nearly a second of frames: burst accumulation reads a camera that
        smears every frame far better from 15 frames than from 6 (models/HISTORY.md,
        "Session 33"). A sure view is decided at once."""
        return (
            view.frame_crops is not None
            and not self.stability.looked_longer
            and bool(self._doubtful_tiles(view.probabilities))
        )

    def _hand_over_border(self, now: float, moving: bool) -> bool:
        """An arm over the border, unless that "arm" has held perfectly still so long
        that it must be something else: then the border is pictured anew."""
        if not self.motion.hand_over_board or moving:
            self._border_still_since = None
            return self.motion.hand_over_board
        if self._border_still_since is None:
            self._border_still_since = now
        elif now - self._border_still_since >= STALE_BORDER_S:
            self.motion.set_background()
            self._border_still_since = None
            return False
        return True

    def _note_touched_squares(self) -> set[str]:
        """Keep, per square, the largest change from the last steady view: a tile can
        only have been placed where something disturbed the square. Returns the squares
        disturbed in this frame."""
        change = self.motion.change_from_background
        if change is None:
            return set()
        disturbed = set()
        for square, rect in self._square_middles.items():
            level = region_mean(change, rect)
            if level >= TOUCHED:
                disturbed.add(square)
            if level > self._touch_since_steady.get(square, 0.0):
                self._touch_since_steady[square] = level
        return disturbed

    def _read_otherwise(self, readings: Mapping[str, Reading]) -> set[str]:
        """Squares this frame reads surely as something else than the last steady view
        did. A tile put on a tile that looks much alike (a 5 on a 6 of one colour)
        barely changes the pixels, but it reads otherwise; with no arm seen, such a
        square counts as touched, as a hand over it would have made it."""
        changed = {
            square
            for square, reading in readings.items()
            if not reading.unread
            and square in self._view_labels
            and reading.label != self._view_labels[square]
        }
        if not self._arm_seen:
            # With an arm seen, its pixels say which squares it touched; a reading
            # under a passing hand's shadow is no sign of a tile.
            for square in changed:
                level = self._touch_since_steady.get(square, 0.0)
                self._touch_since_steady[square] = max(level, TOUCHED)
        return changed

    def _changed_unseen(self, disturbed: set[str], obstructed: bool) -> bool:
        """True when a tile was put down with no hand seen: a square not disturbed when
        this still moment began stays disturbed :data:`CHANGED_FRAMES` frames running.
        Without this, such a board is never decided: nothing moved, so the still
        moment, and its view of the board before the tile, would go on."""
        if obstructed:
            self._explained, self._disturbed_frames = None, {}
            return False
        if self._explained is None:  # the first still frame: the hand's work is seen
            self._explained = set(disturbed)
        new = disturbed - self._explained
        self._disturbed_frames = {s: self._disturbed_frames.get(s, 0) + 1 for s in new}
        settled = {s for s, frames in self._disturbed_frames.items() if frames >= CHANGED_FRAMES}
        self._explained |= settled
        return bool(settled)

    def _untouched(self) -> frozenset[str]:
        """Squares nothing disturbed since the last steady view (unknown before one)."""
        if not self.motion.has_background:
            return frozenset()
        return frozenset(
            s for s in self.layout.squares if self._touch_since_steady.get(s, 0.0) < TOUCHED
        )

    def finish(self) -> Decision | None:
        """The recording has ended: decide the board of its last still moment, even if
        it lasted less than a steady view needs (a video cut right after the last tile
        was put down would otherwise lose that turn)."""
        # Squares changed unseen, not yet long enough to say so: the last frame shows
        # the board as it was left; the moment's frames before it do not.
        view = self.stability.flush(last_frame_only=bool(self._disturbed_frames))
        return None if view is None else self._decide(view)

    def _decide(self, new_view: StableView | None) -> Decision | None:
        """Decode a new steady view, or the current one again when the game moved on
        (a confirmed, dismissed or corrected play) while the board stayed still."""
        view = new_view or self.stability.current_view
        if view is None or self.link is None or not self.deciding:
            return None
        context = self.link.context()
        if context is None and new_view is not None:
            # A question waits for the players; the player it is about may have been
            # only halfway through the turn, and now finished it.
            return self._question_outdone(new_view)
        if context is None or (new_view is None and context == self._decided):
            return None
        before = self._decided
        self._decided = context
        went_back = before is not None and (
            context.game != before.game or context.turns < before.turns
        )
        if new_view is None and went_back:
            # The board in view belongs to the game before (the players have yet to lay
            # out the one resumed), or still shows the turn undone (the players have yet
            # to lift its tiles): the next steady view is decided.
            return None
        context = self._with_what_was_seen(context, view)
        decision = decode(view.probabilities, context)
        if decision.kind == "unchanged":
            return decision
        gone_on = self._turn_gone_on(view, context)
        if gone_on is not None:
            assert self._last_play is not None  # the turn that went on
            self._last_play = (self._last_play[0], gone_on, view.time)
            self._last_asked = None
            self.link.on_turn_gone_on(gone_on)
            return gone_on
        self._last_play = (context, decision, view.time) if decision.kind == "play" else None
        self._last_asked = (context, decision, view.time) if decision.kind == "ask" else None
        self.link.on_decision(decision)
        return decision

    def _with_what_was_seen(self, context: GameContext, view: StableView) -> GameContext:
        """``context`` with what the camera saw since the last steady view: the squares
        nothing touched, and of the tiles said not to be a play, those still lying
        untouched (the others are forgotten, here and by the game)."""
        assert self.link is not None
        untouched = self._untouched()
        for square, tile in context.foreign.items():
            # Touched by a hand, the square may hold a tile played: read it again.
            if (
                square not in untouched
                or label_of(int(np.argmax(view.probabilities[square]))) != tile
            ):
                self.link.forget_foreign(square)
        foreign = {s: t for s, t in context.foreign.items() if s in untouched}
        return replace(context, untouched=untouched, foreign=foreign)

    def _question_outdone(self, view: StableView) -> Decision | None:
        """The turn the players were asked about, finished: its player reached in again
        from their own edge, soon after, and the board is now a legal play of theirs
        (a first tile in no set yet, then the rest of the turn). ``None`` otherwise:
        the question stands."""
        if self._last_asked is None:
            return None
        before, asked, when = self._last_asked
        own = before.seats.edge_of(before.player)
        if view.time - when > GONE_ON_S or not self._arms_from(own):
            return None
        done = self._whole_turn(view, before, asked)
        if done is not None:
            self._last_asked = None
            self._last_play = (before, done, view.time)
            self.link.on_turn_gone_on(done)
        return done

    def _arms_from(self, own: Edge, other: Edge | None = None) -> bool:
        """Since the last steady view, arms came over ``own`` edge far more than over
        any other, and over ``other`` hardly at all."""
        arms = self._arm_edges
        if not arms or arms.most_common(1)[0][0] != own:
            return False
        return other is None or arms[other] * 3 <= arms[own]

    def _whole_turn(
        self, view: StableView, before: GameContext, first: Decision
    ) -> Decision | None:
        """The view decoded as one legal play from ``before``, or ``None``. The first
        tiles need not have stayed where they were: until the turn is over, its player
        may move them."""
        placed = set(first.result.placed) if first.result is not None else set()
        untouched = self._untouched() - placed  # the first tiles' squares were touched then
        whole = decode(view.probabilities, replace(before, untouched=frozenset(untouched)))
        if whole.kind != "play" or whole.result is None or not whole.result.legal:
            return None
        return whole

    def _turn_gone_on(self, view: StableView, context: GameContext) -> Decision | None:
        """The last play and this view as one turn, if that is what the camera saw: the
        player who made it reached in again from their own edge (and the next player
        did not), soon after, and the two together are a legal play of theirs."""
        if self._last_play is None:
            return None
        before, played, when = self._last_play
        if context.game != before.game or context.turns != before.turns + 1:
            return None  # the game moved on otherwise (undone, resumed)
        if context.position != played.position:
            return None  # the play was corrected on the dashboard meanwhile
        if view.time - when > GONE_ON_S:
            return None
        own, next_edge = before.seats.edge_of(before.player), context.seats.edge_of(context.player)
        if not self._arms_from(own, next_edge):
            return None
        return self._whole_turn(view, before, played)


def turned_position(position: Position, old: BoardLocation, new: BoardLocation) -> Position:
    """``position``, read through ``old``, with its squares renamed for ``new`` (the
    same outline with south on another edge)."""
    layout = position.layout
    names = list(layout.squares)
    centres = np.array([layout.rects[s].center for s in names], np.float64)
    back = old.to_board(new.to_image(centres))
    squares = {}
    for name, point in zip(names, back, strict=True):
        source = names[int(np.argmin(np.linalg.norm(centres - point, axis=1)))]
        tile = position.squares.get(source)
        if tile is not None:
            squares[name] = tile
    return Position(squares, layout)


def start_position(view: StableView, layout: Layout) -> Position:
    """The board from a steady view, without the game's help (a new game's start):
    each tile on at most one square, the square where it is likeliest."""
    best: dict[int, tuple[float, str]] = {}
    for square, probs in view.probabilities.items():
        index = int(np.argmax(probs[: EMPTY + 1]))
        if index != EMPTY and (index not in best or best[index][0] < probs[index]):
            best[index] = (float(probs[index]), square)
    return Position({square: ALL_TILES[i] for i, (_, square) in best.items()}, layout)
