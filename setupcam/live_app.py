"""The wiring of the live app: source -> pipeline -> session -> dashboard.

:func:`build_live_app` puts the parts together for ``setupcam demo`` and
``setupcam serve``; :class:`SessionLink` is how the pipeline's decisions reach the
game; :class:`SimulatedPlayers` is the demo's table: the simulated players press
New game, Swap and Confirm as people would.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from engine import GameRecord, GameSetup, Position, Seats
from setupcam.cli import UsageError
from setupcam.enrollment_guide import EnrollmentGuide
from setupcam.inputs import read_layout
from setupcam.session import GameSession, PendingPlay, SessionError
from setupcam.store import GameStore
from vision.decoder import Decision, GameContext
from vision.pipeline import FrameReport, LivePipeline, PipelineRunner, start_position
from vision.sources import FrameSource, SourceFrame
from vision.stability import SETTLE_S
from webui import create_app

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def data_dir() -> Path:
    """Where setupcam keeps its games and enrolment: ``$SETUPCAM_HOME`` or ~/.local/share."""
    home = os.environ.get("SETUPCAM_HOME")
    return Path(home) if home else Path.home() / ".local" / "share" / "setupcam"


class SessionLink:
    """The pipeline's view of the game session."""

    def __init__(self, session: GameSession) -> None:
        self.session = session

    def context(self) -> GameContext | None:
        with self.session._lock:
            state = self.session.state
            if state is None or state.finished or self.session.pending is not None:
                return None
            player = state.next_player
            assert player is not None
            return GameContext(
                state.position,
                state.buried,
                state.setup.seats,
                player,
                state.setup.options.max_tiles,
                game=self.session.game_id,
                turns=len(self.session.record.turns) if self.session.record else 0,
            )

    def on_decision(self, decision: Decision) -> None:
        session = self.session
        with session._lock:
            if decision.position in session.dismissed or session.state is None:
                return
            if session.state.finished or session.pending is not None:
                return
            player = session.state.next_player
            assert player is not None
            try:
                if decision.kind == "play":
                    session.play(decision.position, source="camera")
                elif decision.kind == "ask":
                    session.propose(
                        PendingPlay(
                            player,
                            decision.position,
                            decision.reasons,
                            decision.uncertain_squares,
                            {s: list(options) for s, options in decision.alternatives.items()},
                        )
                    )
            except SessionError:
                pass  # the game moved on between the view and the decision


class GameTable(Protocol):
    """A table that can play on with any game (the simulated table)."""

    def play_on(self, record: GameRecord) -> None: ...


class SimulatedPlayers:
    """The demo's players: they register the board once per table (the Calibrate
    page), start each simulated game (fixing any start square the camera misread, as
    a person checks the diagram before pressing Start), press Swap when they swap,
    and answer the app's questions about unsure plays truthfully. A game resumed or
    started on the dashboard is the one they play on, from its board, when
    ``table`` (the simulated table) can lay it out.

    Like people, they answer about the turn in question: asked about the player
    still placing tiles, they let the turn finish and answer with the board as that
    turn left it; asked about the previous player while the next one is placing,
    with the board as the previous turn left it; between turns, with the board as it
    stands.
    """

    ANSWER_AFTER_S = 1.0

    def __init__(
        self, session: GameSession, pipeline: LivePipeline, table: GameTable | None = None
    ) -> None:
        self.session = session
        self.pipeline = pipeline
        self.table = table
        self.seats: Seats | None = None
        self._game_id: int | None = None
        """The session's game the table is playing."""
        self._turns_recorded = 0
        """How many turns that game had at the last frame."""
        self.start_squares_fixed = 0
        """Start squares the camera misread and the players corrected (all games)."""
        self._waiting_for_start = False
        self._player_placing: str | None = None
        self._board_now: Position | None = None
        self._board_before_turn: Position | None = None
        self._asked_at: float | None = None
        self._answer: Position | None = None
        self._answer_after_turn = False

    def on_frame(self, frame: SourceFrame, report: FrameReport) -> None:
        truth = frame.truth
        if truth is not None:
            self._board_now = truth.position
        for event in frame.events:
            if event.kind == "game_start":
                self.seats = Seats.parse(event.action)
                self._waiting_for_start = True
                if truth is not None:
                    # Once per table, as a person does on the Calibrate page: drag the
                    # corners onto the board and say which edge is south. From then on
                    # the pipeline tracks the board by itself.
                    self.pipeline.set_board_corners(truth.board_corners_distorted)
            elif event.kind == "turn_start":
                self._player_placing = None if event.action == "swap" else event.player
                self._board_before_turn = self._board_now
                state = self.session.state
                if (
                    event.action == "swap"
                    and state is not None
                    and state.next_player == event.player
                ):
                    self.session.swap(event.player)
            elif event.kind == "turn_end":
                self._player_placing = None
                if self._answer_after_turn:
                    self._answer, self._answer_after_turn = self._board_now, False
        view = self.pipeline.stability.current_view
        if self._waiting_for_start and self.seats is not None and view is not None:
            self._start_game(start_position(view, self.pipeline.layout))
        self._follow_the_dashboard()
        self._answer_questions(frame)

    def _follow_the_dashboard(self) -> None:
        """A game resumed or started on the dashboard: play on with it; a turn undone
        there: take its tiles back and play on."""
        record = self.session.record
        game_id = self.session.game_id
        if self.table is None or self._waiting_for_start or record is None:
            return
        turns = len(record.turns)
        if game_id == self._game_id and turns >= self._turns_recorded:
            self._turns_recorded = turns
            return
        self._game_id, self._turns_recorded = game_id, turns
        self._player_placing = self._board_before_turn = None
        self.table.play_on(record)

    def _start_game(self, reading: Position) -> None:
        assert self.seats is not None
        self.session.new_game(GameSetup(self.seats, start=reading))
        truth = self._board_now
        if truth is not None and truth != reading:
            self.start_squares_fixed += sum(
                truth[s] != reading[s] for s in self.pipeline.layout.squares
            )
            self.session.correct_start(truth)
        self._waiting_for_start = False
        self._game_id, self._turns_recorded = self.session.game_id, 0

    def finish(self) -> None:
        """The recording ended: answer a question still open, as the table would."""
        if self.session.pending is None:
            return
        if self._answer is None:
            self._answer = self._board_now
        self._asked_at = -float("inf")
        self._answer_questions(None)

    def _answer_questions(self, frame: SourceFrame | None) -> None:
        if self.session.pending is None:
            self._asked_at = self._answer = None
            self._answer_after_turn = False
            return
        now = frame.time if frame is not None else float("inf")
        if self._asked_at is None:
            self._asked_at = now
            placing = self._player_placing
            self._answer_after_turn = placing is not None and placing == self.session.pending.player
            if not self._answer_after_turn:  # else: answered when the turn ends
                self._answer = self._board_now if placing is None else self._board_before_turn
        if self._answer is None or now - self._asked_at < self.ANSWER_AFTER_S:
            return
        state = self.session.state
        with contextlib.suppress(SessionError):
            if state is not None and self._answer == state.position:
                self.session.dismiss_pending()  # nothing was placed: "Not a play"
            else:
                self.session.confirm_pending(self._answer)
        self._asked_at = self._answer = None


class GameStarter:
    """Starts the game named on the command line (``serve --seats``) at the first steady
    view of the board, as a player would press New game: a recorded game can then be
    scored with nobody at the dashboard."""

    def __init__(
        self,
        session: GameSession,
        runner: PipelineRunner,
        setup: GameSetup,
        say: Callable[[str], None],
    ) -> None:
        self.session = session
        self.runner = runner
        self.setup = setup
        self.say = say
        self.game_id: int | None = None

    def on_frame(self, frame: SourceFrame, report: FrameReport) -> None:
        if self.game_id is not None:
            return
        seen = self.runner.current_reading(self.setup.seats)
        if seen is None:
            return
        start = Position.from_json(seen)
        self.game_id = self.session.new_game(replace(self.setup, start=start))
        tiles = sum(tile is not None for tile in start.squares.values())
        self.say(
            f"game {self.game_id} started at {clock(frame.time)} with {tiles} "
            f"tile{'s' if tiles != 1 else ''} on the board (fix any misread on the dashboard)"
        )


def clock(seconds: float) -> str:
    """A recording's time as people read it: 0:41, 1:02:05."""
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


@dataclass
class LiveApp:
    """Everything ``demo`` and ``serve`` run: the Flask app, the session, the pipeline."""

    app: Flask
    session: GameSession
    runner: PipelineRunner
    token: str | None
    starting_game: bool = False
    """A game given on the command line starts at the first steady view."""

    def serve(self, host: str, port: int) -> None:
        """Run the pipeline thread and the web server until Ctrl-C."""
        server = self.make_server(host, port)
        self.runner.start()
        try:
            server.serve_forever()
        finally:
            self.runner.stop()
            server.server_close()
            self.session.store.close()

    def make_server(self, host: str, port: int) -> BaseWSGIServer:
        return make_server(host, port, self.app, threaded=True)


def build_live_app(
    source: FrameSource,
    *,
    host: str = "127.0.0.1",
    db_path: str | Path | None = None,
    model_path: str | None = None,
    enrollment_path: str | None = None,
    calibration_path: str | None = None,
    layout_path: str | None = None,
    simulated_players: bool = False,
    resume: bool = True,
    settle_s: float = SETTLE_S,
    enrollment_out: str | Path | None = None,
    start_game: GameSetup | None = None,
    paced: bool = False,
    say: Callable[[str], None] = print,
) -> LiveApp:
    """Wire a source to a new pipeline, a session on the game store, and the dashboard.

    Without ``enrollment_path`` the user's enrolment (``setupcam enroll``) is read, if
    there is one, unless ``enrollment_out`` is given: then the Enrol page writes there
    and nothing else is read (the demo's simulated tiles are not the user's).

    With ``start_game``, that game starts at the first steady view, from the board seen.
    A recording (a video file, a folder) waits while a question is open on the
    dashboard, and is read at its own pace when ``paced``. ``say`` tells the user what
    happens on the way (the terminal)."""
    from calibration.camera_file import load_board_look, load_calibration
    from setupcam.commands.recognize import print_notice
    from vision.recognizer import TileRecognizer, default_enrollment_path

    layout = read_layout(layout_path)
    store = _open_store(Path(db_path) if db_path else data_dir() / "games.sqlite")
    session = GameSession(store)
    if resume:
        session.resume_latest()
    own_set = enrollment_out is None
    if enrollment_path is None and own_set and default_enrollment_path().is_file():
        enrollment_path = str(default_enrollment_path())
    recognizer = TileRecognizer.load(model_path, enrollment_path, threads=1, notice=print_notice)
    calibration = look = None
    if calibration_path is not None and Path(calibration_path).is_file():
        calibration = load_calibration(calibration_path)
        look = load_board_look(calibration_path)
    pipeline = LivePipeline(
        recognizer,
        layout,
        calibration=calibration,
        look=look,
        settle_s=settle_s,
        link=SessionLink(session),
    )
    table = source if hasattr(source, "play_on") else None
    players = SimulatedPlayers(session, pipeline, table) if simulated_players else None
    runner = PipelineRunner(
        source,
        pipeline,
        calibration_path=calibration_path,
        on_status=session.set_camera_status,
        on_frame=players.on_frame if players else None,
        paced=paced,
        hold=lambda: _question_open(session),
    )
    if start_game is not None:
        runner.on_frame = GameStarter(session, runner, start_game, say).on_frame
    token = None if host in LOCAL_HOSTS else secrets.token_urlsafe(16)
    reader = recognizer if recognizer.enrollment is None else TileRecognizer.load(model_path)
    out = enrollment_out or enrollment_path or default_enrollment_path()
    guide = EnrollmentGuide(runner, reader, Path(out))
    app = create_app(session, runner, token=token, enrollment=guide)
    return LiveApp(app, session, runner, token, starting_game=start_game is not None)


def _question_open(session: GameSession) -> str | None:
    pending = session.pending
    if pending is None:
        return None
    return f"the dashboard asks about {pending.player}'s play: answer it to go on"


def _open_store(path: Path) -> GameStore:
    """The game database at ``path``, or a one-line error that names it."""
    if path.is_dir():
        raise UsageError(f"--db {path}: is a folder, not a database file")
    try:
        return GameStore(path)
    except sqlite3.Error as err:
        raise UsageError(f"--db {path}: cannot open the game database ({err})") from None


def lan_address() -> str | None:
    """This computer's address on its network, as other devices reach it (no packet
    is sent: connecting a UDP socket only picks the interface)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere real
            return str(probe.getsockname()[0])
        except OSError:
            return None


def announce(host: str, port: int, token: str | None) -> str:
    shown = "localhost" if host in ("127.0.0.1", "::1") else host
    if host in ("0.0.0.0", "::"):
        # Every address of this computer: name one another device can open.
        shown = lan_address() or host
    url = f"http://{shown}:{port}/"
    if token:
        return (
            f"setupcam dashboard: {url}?token={token}\n"
            "  (shared on the network: anyone can watch; changes need this link's token)"
        )
    return f"setupcam dashboard: {url}  (Ctrl-C to stop; the game is saved at every turn)"


class RecordingProgress:
    """What the terminal says while a recording is read: where it is now and then, and
    the game when it ends (the dashboard stays open to check it)."""

    EVERY_S = 30.0

    def __init__(self, live: LiveApp, say: Callable[[str], None] = print) -> None:
        self.live = live
        self.say = say
        self.next_at = time.monotonic() + self.EVERY_S
        self.ended = False
        self.paused = False

    def tell(self) -> None:
        if self.ended:
            return
        runner = self.live.runner
        status = self.live.session.camera_status
        paused = status.get("state") == "paused"
        if paused and not self.paused:
            self.say(f"setupcam: {status.get('message')}")
        self.paused = paused
        if runner.finished:
            self.ended = True
            self.say(f"setupcam: {self._where()}; {self._game()}")
            self.say("  the dashboard stays open to check and correct the game (Ctrl-C to stop)")
        elif time.monotonic() >= self.next_at:
            self.next_at = time.monotonic() + self.EVERY_S
            self.say(f"setupcam: {self._where()}; {self._game()}")

    def _where(self) -> str:
        runner = self.live.runner
        name = runner.source.name
        if runner.finished:
            return f"end of {name}" if runner.clock is not None else f"{name}: no picture"
        return f"{name} at {clock(runner.clock or 0.0)}"

    def _game(self) -> str:
        session = self.live.session
        state = session.state
        if state is None or session.record is None:
            if self.live.starting_game:
                return "no game: the board was never seen still and clear of hands"
            return "no game (give --seats to start one at the first view of the board)"
        scores = ", ".join(f"{colour} {score}" for colour, score in state.scores.items())
        turns = len(session.record.turns)
        return f"game {session.game_id}, {turns} turn{'s' if turns != 1 else ''}: {scores}"


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run_until_interrupted(live: LiveApp, host: str, port: int) -> int:
    try:
        server = live.make_server(host, port)
    except OSError as err:
        raise OSError(err.errno, f"cannot listen on {host}:{port} ({err.strerror})") from None
    print(announce(host, port, live.token), flush=True)
    if threading.current_thread() is threading.main_thread():
        # `kill` (a service manager stopping the app) stops it as Ctrl-C does.
        signal.signal(signal.SIGTERM, _interrupt)
    live.runner.start()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    recording = RecordingProgress(live) if not live.runner.source.realtime else None
    try:
        while thread.is_alive():
            time.sleep(0.5)
            if recording is not None:
                recording.tell()
    except KeyboardInterrupt:
        print("\nsetupcam: stopping; the game is saved.", flush=True)
    finally:
        server.shutdown()
        live.runner.stop()
        # Closing folds the write-ahead log into the database file: a copy of
        # games.sqlite alone (a backup) then holds every game.
        live.session.store.close()
    return 0
