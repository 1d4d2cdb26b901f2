"""The wiring of the live app: source -> pipeline -> session -> dashboard.

:func:`build_live_app` puts the parts together for ``setupcam demo`` and
``setupcam serve``; :class:`SessionLink` is how the pipeline's decisions reach the
game. The demo's table is :mod:`setupcam.simulated_players`; a recording's start
and progress on the terminal are :mod:`setupcam.recordings`.
"""

from __future__ import annotations

import contextlib
import secrets
import signal
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from engine import GameSetup
from setupcam.cli import UsageError
from setupcam.enrollment_guide import EnrollmentGuide
from setupcam.inputs import read_layout
from setupcam.recordings import GameStarter, RecordingProgress
from setupcam.session import GameSession, PendingPlay, SessionError
from setupcam.simulated_players import SimulatedPlayers
from setupcam.store import GameStore
from vision.decoder import Decision, GameContext
from vision.pipeline import LivePipeline
from vision.runner import PipelineRunner
from vision.setupcam_home import setupcam_home
from vision.sources import FrameSource
from vision.stability import SETTLE_S
from webui import create_app

LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


class SessionLink:
    """The pipeline's view of the game session."""

    def __init__(self, session: GameSession) -> None:
        self.session = session

    def context(self) -> GameContext | None:
        with self.session.lock:
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
                foreign=dict(self.session.foreign),
            )

    def on_decision(self, decision: Decision) -> None:
        session = self.session
        with session.lock:
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

    def forget_foreign(self, square: str) -> None:
        self.session.forget_foreign(square)

    def on_turn_gone_on(self, decision: Decision) -> None:
        session = self.session
        with session.lock:
            state = session.state
            if state is None or state.finished:
                return
            # A SessionError: the game moved on between the view and the decision.
            with contextlib.suppress(SessionError):
                if session.pending is None:
                    session.continue_turn(decision.position, source="camera")
                elif session.pending.player == state.next_player:
                    # The question was about a turn half done; it is done now.
                    session.play(decision.position, source="camera")


@dataclass
class LiveApp:
    """Everything ``demo`` and ``serve`` run: the Flask app, the session, the pipeline."""

    app: Flask
    session: GameSession
    runner: PipelineRunner
    token: str | None
    starting_game: bool = False
    """A game given on the command line starts at the first steady view."""

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
    store = _open_store(Path(db_path) if db_path else setupcam_home() / "games.sqlite")
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
