"""Scoring a recording with nobody at the dashboard: the game named on the command
line starts at the first steady view (:class:`GameStarter`), and the terminal says
where the recording is and, at its end, the game (:class:`RecordingProgress`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from engine import GameSetup, Position
from setupcam.session import GameSession
from vision.pipeline import FrameReport
from vision.runner import PipelineRunner
from vision.sources import SourceFrame

if TYPE_CHECKING:
    from setupcam.live_app import LiveApp


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
            if runner.clock is None:
                return f"{name}: no picture"
            note = runner.ended_mid_turn
            return f"end of {name} ({note})" if note else f"end of {name}"
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
