"""The simulated table as a live source: games the engine plays, rendered frame by
frame at the camera's pace, one game after another (``setupcam demo``)."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass, replace

from engine import GameRecord, GameSetup, Position, Seats, Turn
from engine.simulate import play_on
from vision.sources import FrameSource, SourceFrame
from vision.synth.scene import Frame, render_frame
from vision.synth.sequence import Event, GameStream
from vision.synth.styles import Style

LEAD_OUT_S = 2.0
"""The final board stays in view this long after the last turn."""
LEAD_IN_S = 2.0
"""The starting board is shown this long before the first turn, for the players to
press New game (the start is read from the camera)."""


class SimulatedTableSource(FrameSource):
    """Frames of simulated games; each frame carries its ground truth and events.

    A ``game_start`` event (with the seats in ``action``) opens every game;
    ``on_game`` is given each game's stream before its first frame.
    """

    name = "simulated table"

    def __init__(
        self,
        seed: int = 0,
        *,
        players: str = "S=red,W=green,N=yellow,E=purple",
        hands: bool = True,
        family: str | None = None,
        fps: float = 15.0,
        realtime: bool = True,
        games: int | None = None,
        resolution: tuple[int, int] = (1280, 720),
        max_turns: int = 400,
        on_game: Callable[[GameStream], None] | None = None,
    ) -> None:
        super().__init__()
        Seats.parse(players)  # fail early on bad seats
        self.seed = seed
        self.players = players
        self.hands = hands
        self.family = family
        self.fps = fps
        self.realtime = realtime
        self.games = games
        self.resolution = resolution
        self.max_turns = max_turns
        self.on_game = on_game
        self.stream: GameStream | None = None
        self._closed = False
        self._laid_out: Position | None = None
        self._still: tuple[Position, Frame] | None = None
        self._style: Style | None = None
        self._play_on: GameRecord | None = None
        self._clock = 0.0
        self._started = 0.0

    def lay_out(self, position: Position | None) -> None:
        """Show ``position`` on the table, still and with no hand over it, until called
        with ``None``: the simulated players lay out an enrolment photo's tiles (the
        Enrol page), and their game waits meanwhile."""
        self._laid_out = position
        if position is not None and self.stream is not None:
            # A real table has one tile set: once the players have laid out photos of
            # this one, every later game is played with it too.
            self._style = self.stream.base.style

    def play_on(self, record: GameRecord) -> None:
        """From the next frame, go on with the game ``record`` instead (a game resumed
        or started on the dashboard): its board is laid out, and its players play on
        from it, seen through the same camera in the same art."""
        self._play_on = record

    def close(self) -> None:
        self._closed = True

    def __iter__(self) -> Iterator[SourceFrame]:
        self._clock = 0.0
        self._started = time.monotonic()
        game = 0
        while (self.games is None or game < self.games) and not self._closed:
            stream = GameStream.random(
                self.seed + game,
                players=self.players,
                hands=self.hands,
                family=self.family,
                fps=self.fps,
                resolution=self.resolution,
                max_turns=self.max_turns,
            )
            if self._style is not None:
                stream.base = replace(stream.base, style=self._style)
            if self.on_game is not None:
                self.on_game(stream)  # before its first frame (e.g. enrol its tiles)
            self.status = {"state": "ok", "message": f"simulated table: game {game + 1}"}
            opening = [Event("game_start", 0, "", self._clock, action=self.players)]
            playing: GameStream | None = stream
            while playing is not None and not self._closed:
                playing = yield from self._frames_of(playing, opening)
                opening = []
            game += 1
        if not self._closed:
            self.status = {"state": "ended", "message": "simulated table: all games played"}

    def _frames_of(
        self, stream: GameStream, opening: list[Event]
    ) -> Generator[SourceFrame, None, GameStream | None]:
        """The frames of one game's ``stream`` (``opening`` its first frame's events);
        returns the stream of the game to go on with instead, if one was asked for."""
        self.stream = stream
        frames = iter(stream)
        first = next(frames, None)
        if first is None:
            return None
        lead_in = [(first[0], opening)]
        lead_in += [(first[0], [])] * int(LEAD_IN_S * self.fps)
        lead_in += [(first[0], first[1])]
        # After the last turn the board stays on the table for a moment, as it would.
        lead_out = _repeat_last(frames, int(LEAD_OUT_S * self.fps))
        for frame, events in itertools.chain(lead_in, lead_out):
            while self._laid_out is not None and not self._closed:
                yield self._frame(self._still_frame(self._laid_out))
            if self._closed:
                return None
            if self._play_on is not None:
                record, self._play_on = self._play_on, None
                return self._going_on(record)
            yield self._frame(frame, events)
        return None

    def _frame(self, frame: Frame, events: list[Event] | None = None) -> SourceFrame:
        """``frame`` when it is due, stamped with the table's clock."""
        self._keep_pace()
        shown = SourceFrame(frame.image, self._clock, truth=frame.truth, events=list(events or []))
        self._clock += 1.0 / self.fps
        return shown

    def _going_on(self, record: GameRecord) -> GameStream:
        """A stream of ``record``'s game played on from its board, through the camera
        and in the art of the game on the table now."""
        assert self.stream is not None
        state = record.replay()
        turns_left = 0 if state.finished else self.max_turns
        ended = play_on(random.Random(self.seed), record, max_turns=turns_left)
        going_on = _GoingOn(record.setup, state.position, ended.turns[len(record.turns) :])
        stream = GameStream(
            going_on,
            seed=self.stream.seed,
            hands=self.hands,
            fps=self.fps,
            resolution=self.resolution,
        )
        stream.base = replace(self.stream.base, position=state.position)
        return stream

    def _keep_pace(self) -> None:
        """Wait until the frame at the table's clock is due (a realtime table)."""
        if self.realtime:
            delay = self._started + self._clock - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    def _still_frame(self, position: Position) -> Frame:
        """The table showing ``position`` through this game's camera, in its art:
        rendered once per position."""
        if self._still is None or self._still[0] is not position:
            assert self.stream is not None
            scene = replace(self.stream.base, position=position, stacks={}, hand=None)
            self._still = (position, render_frame(scene, self.seed))
        return self._still[1]


@dataclass(frozen=True)
class _GoingOn:
    """A game's turns from ``start`` on, as :class:`GameStream` takes a record."""

    setup: GameSetup
    start: Position
    turns: Sequence[Turn]


def _repeat_last(
    frames: Iterator[tuple[Frame, list[Event]]], times: int
) -> Iterator[tuple[Frame, list[Event]]]:
    """The frames, then the last one ``times`` more times (without its events)."""
    last = None
    for last in frames:
        yield last
    if last is not None:
        for _ in range(times):
            yield last[0], []
