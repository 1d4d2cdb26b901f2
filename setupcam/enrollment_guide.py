"""Enrolment from the dashboard: the camera over the table takes the photos.

``setupcam enroll`` learns a tile set from photos and position files the user
prepares. The dashboard's Enrol page needs neither: it shows the plan
(:func:`vision.enrollment_plan.enrolment_plan`, five photos of ten tiles), the
user lays out each photo's tiles and presses *Take photo*, and the live camera's
frame is checked and kept. *Learn my set* fits the enrolment as ``enroll`` does,
writes it where ``recognize`` and the live app look (the one it replaces kept
beside it), and the live app reads the table with it from the next frame.

While the guide is open no play is decided: the tiles on the board are the
photos', not a game's. Each photo is written to disk as it is taken
(:mod:`setupcam.guide_photos`): a restart finds the photos taken so far. On the
demo's simulated table the simulated players lay each photo's tiles out.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from engine import Layout, Position
from setupcam.commands.enroll import (
    blurred_message,
    photos_by_focus,
    photos_to_retake,
    read_back_each,
    six_nine_summary,
    soft_message,
)
from setupcam.guide_photos import GuidePhotos
from setupcam.session import layout_json
from vision.enrollment import (
    EnrollmentSample,
    build_enrollment,
    contradicted_squares,
    position_labels,
    save_keeping_previous,
)
from vision.enrollment_plan import enrolment_plan, plan_text
from vision.recognizer import EMPTY, TileRecognizer
from vision.runner import PipelineRunner


class GuideError(ValueError):
    """A step the guide cannot take now; the message says what to do."""


class GuideInputError(GuideError):
    """A request the guide cannot take whatever its moment (no such photo)."""


class TableLayer(Protocol):
    """A source that can lay tiles out itself (the simulated table)."""

    def lay_out(self, position: Position | None) -> None: ...


class EnrollmentGuide:
    """The Enrol page's steps, on the live app's camera.

    ``reader`` is the plain reader (no enrolment) the photos are checked with and the
    enrolment learns from; ``out`` is where the enrolment is written.
    """

    def __init__(self, runner: PipelineRunner, reader: TileRecognizer, out: Path) -> None:
        self.runner = runner
        self.reader = reader
        self.out = Path(out)
        self.plan = enrolment_plan(runner.layout)
        self.active = False
        self.kept = GuidePhotos(self.out)
        taken = self.kept.taken(self.plan, self.layout)
        if len({photo.turn for photo in taken.values()}) > 1:
            taken = {}  # photos that disagree on how the board lies: start again
        self._photos: dict[int, EnrollmentSample] = {i: p.sample for i, p in taken.items()}
        self._turn: int | None = next((p.turn for p in taken.values()), None)
        """How the photos taken lie against the board's corners (a quarter turn)."""
        untaken = [i for i in range(len(self.plan)) if i not in self._photos]
        self.showing = untaken[0] if untaken else 0
        self._lock = threading.Lock()
        self._learning = threading.Lock()
        self.last_result: dict[str, Any] | None = None
        self.learnt = False
        """The set was just learnt, and the photos' tiles may still lie on a real table:
        the game waits until the players put its tiles back and press Back to the game
        (read at once, the last photo's layout would be asked about as a play)."""

    @property
    def layout(self) -> Layout:
        return self.runner.layout

    def state(self) -> dict[str, Any]:
        """The page's picture of the guide: the plan, the photos taken, the result."""
        with self._lock:
            return {
                "active": self.active,
                "showing": self.showing,
                "plan": [
                    {"squares": photo.to_json()["squares"], "text": plan_text(photo)}
                    for photo in self.plan
                ],
                "taken": [i in self._photos for i in range(len(self.plan))],
                "simulated": self._table() is not None,
                "enrolled": self.runner.pipeline.recognizer.enrollment is not None,
                "result": self.last_result,
                "learnt": self.learnt,
                "layout": layout_json(self.layout),
            }

    def start(self) -> dict[str, Any]:
        """Open the guide: the game waits, and the first photo not taken is shown."""
        with self._lock:
            self.active = True
            self.learnt = False
            self.runner.pipeline.deciding = False
            untaken = [i for i in range(len(self.plan)) if i not in self._photos]
            first = untaken[0] if untaken and self.showing in self._photos else self.showing
        return self.show(first)

    def show(self, index: int) -> dict[str, Any]:
        """Photo ``index`` is the one being laid out (a simulated table lays it out)."""
        self._check_index(index)
        with self._lock:
            if not self.active:
                raise GuideError("open the guide first (Start)")
            self.showing = index
            table = self._table()
            if table is not None:
                table.lay_out(self.plan[index])
        return self.state()

    def take(self, index: int) -> dict[str, Any]:
        """Keep the camera's latest frame as photo ``index``, if it shows the plan's
        position: the board found, no hand over it, no square plainly contradicting
        the plan (a tile on a square it leaves empty, or the other way round), and the
        picture not blurred (:func:`setupcam.commands.enroll.photos_by_focus`)."""
        self._check_index(index)
        with self._lock:
            if not self.active:
                raise GuideError("open the guide first (Start)")
        snapshot = self.runner.snapshot()
        if snapshot is None:
            raise GuideError("no camera picture yet: wait for the camera")
        image, report = snapshot
        if report.location is None:
            raise GuideError("the board is not in view: check the camera (Calibrate page)")
        if report.obstructed:
            raise GuideError("hands over the board: take the photo when they are gone")
        position = self.plan[index]
        turn, corners = self._corners_laid_out(image, report.location.corners, position, index)
        sample = EnrollmentSample(image.copy(), corners, position, f"photo {index + 1}")
        blurred = photos_by_focus([sample])["blurred"]
        if blurred:
            raise GuideError(
                f"{blurred_message(blurred)}: focus the camera and keep it still, then take "
                "it again (a set learnt from a blurred photo reads the game doubtfully)"
            )
        try:
            self.kept.keep(index, sample, turn)
        except OSError as err:
            raise GuideError(
                f"{self.kept.folder}: cannot keep the photo there ({err.strerror or err})"
            ) from None
        with self._lock:
            self._turn = turn
            self._photos[index] = sample
            if index == self.showing:
                following = [i for i in range(len(self.plan)) if i not in self._photos]
                if following:
                    self.showing = following[0]
            table = self._table()
            if table is not None:
                table.lay_out(self.plan[self.showing])
        return self.state()

    def _corners_laid_out(
        self, image: np.ndarray, corners: np.ndarray, position: Position, index: int
    ) -> tuple[int, np.ndarray]:
        """The quarter turn of the board in which ``position`` lies on its squares, and
        the corners turned so; a GuideError naming the squares that contradict it.

        The user lays the tiles out as the page's diagram shows them, from whichever
        side of the table, and the camera may take another edge for south. The plan's
        empty squares fit one photo in one turn only (:mod:`vision.enrollment_plan`);
        once a photo is taken, the others must lie the same way round."""
        turns = range(4) if self._turn is None else [self._turn]
        # The board read once in each turn; every photo of the plan is checked against it.
        seen = []
        for turn in turns:
            turned = np.roll(np.asarray(corners, np.float64), -turn, axis=0)
            probabilities = self.reader.probabilities(self.reader.crops(image, turned, self.layout))
            seen.append((turn, turned, probabilities))

        def wrong_squares(photo: Position, probabilities: np.ndarray) -> np.ndarray:
            labels = position_labels(photo, self.layout)
            return np.flatnonzero(contradicted_squares(probabilities, labels))

        for turn, turned, probabilities in seen:
            if not len(wrong_squares(position, probabilities)):
                return turn, turned
        shown = [
            j + 1
            for j, other in enumerate(self.plan)
            if j != index and any(not len(wrong_squares(other, p)) for _, _, p in seen)
        ]
        if len(shown) == 1:
            # Which photo lies there says it all; the squares would be named as the
            # camera sees the board, which may not be the way round the user does.
            raise GuideError(
                f"photo {index + 1} is not laid out as planned: the table shows photo "
                f"{shown[0]}'s layout (lay out photo {index + 1}'s tiles, or take photo "
                f"{shown[0]})"
            )
        empty = position_labels(position, self.layout) == EMPTY
        said = [
            f"{self.layout.squares[i]} "
            + ("holds a tile: leave it empty" if empty[i] else "looks empty")
            for i in wrong_squares(position, seen[0][2])
        ]
        turned = "" if self._turn is None else " (seen the way round the other photos lie)"
        raise GuideError(f"photo {index + 1} is not laid out as planned{turned}: {'; '.join(said)}")

    def finish(self) -> dict[str, Any]:
        """Learn the set from the photos, write it, and read the table with it."""
        if not self._learning.acquire(blocking=False):
            raise GuideError("already learning the set: wait a few seconds")
        try:
            return self._learn()
        finally:
            self._learning.release()

    def _learn(self) -> dict[str, Any]:
        with self._lock:
            if not self.active:
                raise GuideError("open the guide first (Start): then take the five photos")
            missing = [i + 1 for i in range(len(self.plan)) if i not in self._photos]
            if missing:
                raise GuideError(f"take photo {', '.join(map(str, missing))} first")
            samples = [self._photos[i] for i in range(len(self.plan))]
        try:
            enrollment = build_enrollment(self.reader, samples, self.layout)
        except ValueError as err:
            raise GuideError(f"cannot enrol: {err}") from None
        enrolled = self.reader.with_enrollment(enrollment)
        per_photo, right, total, misread = read_back_each(enrolled, samples, self.layout)
        retake = photos_to_retake(per_photo)
        if retake:
            # A set learnt from photos that do not show their plan would misread the
            # game: nothing is written or used, and the photos read worst are retaken.
            worst = self._forget_photos(retake)
            raise GuideError(
                f"only {right} of {total} squares of the photos read back as planned, so "
                f"the set was not learnt: take photo {', '.join(map(str, worst))} again, "
                "with each tile where the plan puts it"
            )
        try:
            replaced = save_keeping_previous(enrollment, self.out)
        except OSError as err:
            raise GuideError(f"{self.out}: cannot write the enrolment ({err})") from None
        result = {
            "saved": str(self.out),
            "previous": None if replaced is None else str(replaced),
            "read_back": f"{right}/{total}",
            "misread": misread[:12],
            "six_nine": six_nine_summary(enrollment.six_nine),
            "soft": soft_message(soft)
            if (soft := photos_by_focus(samples)["a little soft"])
            else None,
        }
        with self._lock:
            # From the next frame the live app reads the table with the new set.
            self.runner.pipeline.recognizer = enrolled
            self.last_result = result
            self._photos.clear()
            self.kept.clear(len(self.plan))
            self._turn = None
            self.showing = 0
            self.learnt = True
        if self._table() is not None:
            # A simulated table puts the game's tiles back itself, as it closes.
            self.close()
        return self.state()

    def _forget_photos(self, indexes: list[int]) -> list[int]:
        """Forget the photos at ``indexes`` (plan order, from 0): their numbers, from 1,
        for the user to take again."""
        worst = [i + 1 for i in indexes]
        with self._lock:
            for number in worst:
                self._photos.pop(number - 1, None)
                self.kept.forget(number - 1)
            if not self._photos:
                self._turn = None
            self.showing = worst[0] - 1
            table = self._table()
            if table is not None:
                table.lay_out(self.plan[self.showing])
        return worst

    def close(self) -> dict[str, Any]:
        """Leave the guide: the table goes back to the game (photos taken are kept
        until the guide learns the set)."""
        with self._lock:
            self.active = False
            self.learnt = False
            self.runner.pipeline.deciding = True
            table = self._table()
            if table is not None:
                table.lay_out(None)
        return self.state()

    def _table(self) -> TableLayer | None:
        source = self.runner.source
        return source if hasattr(source, "lay_out") else None  # type: ignore[return-value]

    def _check_index(self, index: Any) -> None:
        if isinstance(index, bool) or not isinstance(index, int):
            raise GuideInputError("'photo' must be the photo's number, counted from 0")
        if not 0 <= index < len(self.plan):
            last = len(self.plan) - 1
            raise GuideInputError(
                f"'photo' counts from 0 (photo 1) to {last} (photo {last + 1}), not {index}"
            )
