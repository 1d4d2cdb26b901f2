"""Running the live pipeline on a camera or a recording, in a background thread.

:class:`PipelineRunner` feeds a source's frames to a :class:`LivePipeline` (a
recording at the pace it was taken, and waiting while the dashboard asks the
players a question), reports the source's state, and is the dashboard's camera
control: the latest images, the board's corners, saving the calibration, and the
board as it stands for a new game's start.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from calibration.camera_file import Calibration, save_board_look, save_calibration
from calibration.orientation import BoardLook
from engine import Layout, Seats
from vision.annotate import annotate, reading_text
from vision.photo_blur import photo_blur_px
from vision.pipeline import (
    FrameReport,
    LivePipeline,
    start_position,
    turned_position,
)
from vision.recognizer import small_board_advice
from vision.sources import FrameSource, SourceFrame

FRAME_TIMES_KEPT = 2000
"""How many frames' processing times :attr:`PipelineRunner.frame_ms` keeps: past it the
older half is dropped, so the list stays small however long a camera runs."""
FRAME_TIME_SHOWN_OVER = 100
"""The camera line's frame time is the median over this many latest frames (a few
seconds): steady enough to read, recent enough to show a slowdown."""


class LostReason:
    """Why the board is not found, as the camera line says it.

    Frame by frame the board finder can give a different reason for the same scene (a
    board out of the picture is "no board-sized quadrilateral" in one frame, "could not
    be re-registered" in the next). The line says the reason given most often over the
    last ``window`` frames, and keeps the one it says until another is given more
    often, so it is steady enough to read; a reason given ``run`` frames in a row is
    said at once, as the scene has changed (the board was first hidden, now gone).

    >>> reasons = LostReason(window=4)
    >>> [reasons.update(r) for r in ["a", "b", "a", "b", "b"]]
    ['a', 'a', 'a', 'a', 'b']
    >>> reasons.clear()
    >>> [reasons.update(r) for r in ["c", "c", "c", "d", "d", "d"]]
    ['c', 'c', 'c', 'c', 'c', 'd']
    """

    def __init__(self, window: int = 30, run: int = 3) -> None:
        self._recent: deque[str] = deque(maxlen=window)
        self._run = run
        self._said: str | None = None

    def update(self, reason: str) -> str:
        """The reason to say, given this frame's ``reason``."""
        self._recent.append(reason)
        counts = Counter(self._recent)
        best, best_count = counts.most_common(1)[0]
        latest = list(self._recent)[-self._run :]
        if len(latest) == self._run and len(set(latest)) == 1:
            self._said = reason
        elif self._said is None or counts[self._said] < best_count:
            self._said = best
        return self._said

    def clear(self) -> None:
        """The board is found again: the next loss starts afresh."""
        self._recent.clear()
        self._said = None


class PipelineRunner:
    """Runs a :class:`LivePipeline` on a source in a background thread.

    It is also the dashboard's camera control: latest images, board corners,
    saving the calibration, the current reading for a new game's start.
    """

    def __init__(
        self,
        source: FrameSource,
        pipeline: LivePipeline,
        *,
        calibration_path: str | None = None,
        on_status: Callable[[dict[str, Any]], None] | None = None,
        on_frame: Callable[[SourceFrame, FrameReport], None] | None = None,
        paced: bool = False,
        hold: Callable[[], str | None] | None = None,
    ) -> None:
        self.source = source
        self.pipeline = pipeline
        self.calibration_path = calibration_path
        self.on_status = on_status
        self.on_frame = on_frame
        self.paced = paced
        """A recording (a video file, a folder) is read at the pace it was taken, so the
        dashboard can be followed as the game was played; else as fast as it can be."""
        self.hold = hold
        """Why a recording should wait before its next frame (a question on the
        dashboard), or None. A camera cannot wait; a recording can, so no play is lost
        while nobody has answered yet."""
        self._lock = threading.Lock()
        self._image: np.ndarray | None = None
        self._report: FrameReport | None = None
        self._jpeg_cache: dict[bool, tuple[int, bytes]] = {}
        self._frame_no = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.clock: float | None = None
        """The source's time of the last frame read (a recording's place in it)."""
        self.ended_mid_turn: str | None = None
        """Why a recording's last moments may be missing from the game: it ended with a
        hand over the board (tiles then being put down are not scored)."""
        self.frame_ms: list[float] = []
        self.lost_reason = LostReason()
        self._lost_said: str | None = None
        """The camera line's reason the board is not found (None while it is)."""

    # -- the thread ----------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self.run, name="setupcam-pipeline", daemon=True)
        self._thread.start()

    @property
    def finished(self) -> bool:
        """The source has no more frames (a recording read to its end)."""
        return self._thread is not None and not self._thread.is_alive()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.source.close()

    def run(self) -> None:
        self.source.on_status_change = self._report_status
        recording = not self.source.realtime
        # Where the recording's clock started, on the wall clock (moved on by holds).
        origin: float | None = None
        for frame in self.source:
            if self._stop.is_set():
                break
            if recording and self.paced:
                if origin is None:
                    origin = self._now() - frame.time
                self._pause(max(0.0, origin + frame.time - self._now()))
            self.step(frame)
            if recording and self.hold is not None:
                waited = self._wait_while_held()
                if origin is not None:
                    origin += waited
        if recording and not self._stop.is_set():
            if self._report is not None and self._report.obstructed:
                self.ended_mid_turn = (
                    "it ended with a hand over the board: tiles being put down then are not scored"
                )
            self.pipeline.finish()
            if self.hold is not None:
                self._wait_while_held()  # a question about that last board
        self._report_status()

    def _wait_while_held(self) -> float:
        """Wait while :attr:`hold` gives a reason; return the seconds waited."""
        assert self.hold is not None
        started = self._now()
        reason = self.hold()
        while reason is not None and not self._stop.is_set():
            if self.on_status is not None:
                self.on_status(
                    {"state": "paused", "message": f"{self.source.name} paused: {reason}"}
                )
            self._pause(0.2)
            reason = self.hold()
        waited = self._now() - started
        if waited > 0.2:
            self._report_status()  # the pause is over: say so at once
        return waited

    def _now(self) -> float:
        """The wall clock a recording is paced by (a test's own clock in tests)."""
        return time.monotonic()

    def _pause(self, seconds: float) -> None:
        """Wait ``seconds``, or less if the runner is stopped meanwhile."""
        self._stop.wait(seconds)

    def step(self, frame: SourceFrame) -> FrameReport:
        started = time.perf_counter()
        report = self.pipeline.process(frame.image, frame.time)
        self.frame_ms.append((time.perf_counter() - started) * 1000)
        if len(self.frame_ms) > FRAME_TIMES_KEPT:
            del self.frame_ms[: FRAME_TIMES_KEPT // 2]
        if report.location is None:
            said = self.lost_reason.update(report.board_state.removeprefix("lost: "))
        else:
            said = None
            self.lost_reason.clear()
        with self._lock:
            self._image, self._report = frame.image, report
            self._lost_said = said
            self._frame_no += 1
        self.clock = frame.time
        if self.on_frame is not None:
            self.on_frame(frame, report)
        self._report_status()
        return report

    def _report_status(self) -> None:
        """Tell :attr:`on_status` the camera line: what the camera sees, advice on the
        set-up while it can still be fixed, and the time a frame takes."""
        if self.on_status is None:
            return
        report = self._report
        status = self._camera_state(report)
        if status.get("state") == "tracking" and report.location and not report.obstructed:
            # Said while the set-up can still be fixed: suits misread on a small board,
            # many tiles unread (a set never enrolled, a smeared picture).
            advice = (
                self.pipeline.lens_misfit
                or small_board_advice(report.location.corners)
                or self.pipeline.covered_advice()
                or self.pipeline.unread_advice()
            )
            if advice is not None:
                status["message"] += f"; {advice}"
                status["advice"] = advice  # the dashboard marks the camera line for it
        if not self.pipeline.deciding:
            # Said on every page: a player who left the Enrol page open would otherwise
            # wonder why no play is scored.
            status["message"] = (
                "enrolling tiles: no play is scored until Back to the game is pressed on "
                "the Enrol tiles page; " + status["message"]
            )
        if self.frame_ms:
            status["frame_ms"] = round(float(np.median(self.frame_ms[-FRAME_TIME_SHOWN_OVER:])), 1)
        self.on_status(status)

    def _camera_state(self, report: FrameReport | None) -> dict[str, Any]:
        """The camera line's state and words: the source's own while it has trouble (or
        before its first frame), else what the last frame saw of the board."""
        source = self.source.status
        if source.get("state") in ("reconnecting", "lost", "ended") or report is None:
            status = dict(source)
            if status.get("state") == "ended" and self.ended_mid_turn:
                status["message"] = f"{status.get('message')}; {self.ended_mid_turn}"
            return status
        if report.location is None:
            return {"state": "lost", "message": f"board not found: {self._lost_said}"}
        if report.obstructed:
            return {"state": "tracking", "message": "hands over the board: waiting"}
        if report.location.orientation_source == "nearest-edge":
            return {
                "state": "tracking",
                "message": "watching the board; south assumed nearest the camera until a "
                "game starts (then the seats' colours decide it), or set it on the "
                "Calibrate page",
            }
        return {"state": "tracking", "message": "watching the board"}

    # -- the dashboard's camera control --------------------------------------------

    def latest_jpeg(self, annotated: bool = True) -> bytes | None:
        with self._lock:
            image, report, number = self._image, self._report, self._frame_no
            lost_said = self._lost_said
            cached = self._jpeg_cache.get(annotated)
        if image is None or report is None:
            return None
        if cached and cached[0] == number:
            return cached[1]
        if report.picture is not None:
            # The corners, the Calibrate page's handles and a saved calibration are all
            # in the pixels of the picture with the lens's distortion taken out.
            image = report.picture
        if annotated:
            image = self._draw(image, report, lost_said)
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 75])
        if not ok:
            return None
        jpeg = data.tobytes()
        with self._lock:
            self._jpeg_cache[annotated] = (number, jpeg)
        return jpeg

    def _draw(self, image: np.ndarray, report: FrameReport, lost_said: str | None) -> np.ndarray:
        layout = self.pipeline.layout
        quads = report.location.square_quads(layout) if report.location else None
        texts = None
        if report.readings is not None:
            texts = {}
            for square, reading in report.readings.items():
                kind = (
                    "blocked"
                    if reading.label == "covered"
                    else "unsure"
                    if reading.label == "?"
                    else "sure"
                )
                texts[square] = (reading_text(reading.label), kind)
        if report.location is None:
            status = f"board not found: {lost_said or report.board_state}"
        elif report.obstructed:
            status = "hands over the board"
        else:
            status = f"steady ({report.total_ms:.0f} ms/frame)"
        return annotate(
            image, report.location.corners if report.location else None, quads, texts, status
        )

    @property
    def layout(self) -> Layout:
        return self.pipeline.layout

    def snapshot(self) -> tuple[np.ndarray, FrameReport] | None:
        """The latest frame as the pipeline read it (undistorted) and its report."""
        with self._lock:
            image, report = self._image, self._report
        if image is None or report is None:
            return None
        return self.pipeline.undistorted(image), report

    def picture_blur(self) -> float | None:
        """How blurred the camera's picture of the board is (:mod:`vision.photo_blur`);
        None before the board is located, or while a hand is over it (a moving hand
        smears the picture, not the lens)."""
        snapshot = self.snapshot()
        if snapshot is None or snapshot[1].location is None or snapshot[1].obstructed:
            return None
        return photo_blur_px(snapshot[0], snapshot[1].location.corners)

    def board_corners(self) -> list[list[float]] | None:
        location = self.pipeline.board.registered
        return None if location is None else location.corners_list()

    def set_board_corners(self, corners: list[list[float]]) -> None:
        """Register the board by hand; ``ValueError`` saying why corners cannot be the
        board's (the same rules as a calibration file's, so what is taken can be saved)."""
        with self._lock:
            image = self._image
        if image is not None:
            height, width = image.shape[:2]
            # A board may reach past the picture's edge, but not lie beyond it.
            if not all(-width < x < 2 * width and -height < y < 2 * height for x, y in corners):
                raise ValueError(
                    f"the corners lie far outside the camera's {width}x{height} picture"
                )
        self.pipeline.set_board_corners(corners)

    def save_calibration(self) -> str:
        if self.calibration_path is None:
            raise ValueError("no calibration file was given (start with --calibration FILE)")
        location = self.pipeline.board.registered
        if location is None:
            raise ValueError("the board is not located: set its corners first")
        with self._lock:
            image, report = self._image, self._report
        if image is None:
            raise ValueError("no camera image yet")
        base = self.pipeline.calibration or Calibration((int(image.shape[1]), int(image.shape[0])))
        calibration = base.with_board(location.corners)
        try:
            save_calibration(calibration, self.calibration_path)
        except OSError as err:
            # The folder went away, or the disk is full: the user can fix either.
            raise ValueError(f"cannot write {self.calibration_path}: {err.strerror}") from None
        self.pipeline.calibration = calibration
        # Remember the board's look too: it tells south from the board itself when the
        # board has to be found again (a bumped table, a moved camera).
        # In the picture the corners are in: the frame as read, the lens taken out.
        picture = report.picture if report is not None and report.picture is not None else image
        look = BoardLook.capture(picture, location, self.pipeline.layout)
        save_board_look(look, self.calibration_path)
        self.pipeline.board.look = look
        return self.calibration_path

    def current_reading(self, seats: Seats | None = None) -> dict[str, Any] | None:
        """The board as it stands, if it is steady and unobstructed. With ``seats`` (a
        new game), south is first decided from their colours if nothing said which
        edge it is (see :meth:`LivePipeline.turn_to_seats`)."""
        view = self.pipeline.stability.current_view
        if view is None:
            return None
        position = start_position(view, self.pipeline.layout)
        with self._lock:
            image = self._image
        if seats is not None and image is not None:
            turn = self.pipeline.turn_to_seats(image, seats)
            if turn is not None:
                position = turned_position(position, *turn)
        return position.to_json()
