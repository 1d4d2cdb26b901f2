"""The demo's simulated players answer the app's questions as people at the table do.

They matter beyond the demo: ``setupcam eval`` measures the app with them, so an
answer given with the wrong board (a turn still in progress) would count against
the pipeline, and a wrong answer the pipeline never made would hide its faults.
"""

from __future__ import annotations

from types import SimpleNamespace

from engine import GameSetup, Position, Seats
from setupcam.session import GameSession, PendingPlay
from setupcam.simulated_players import SimulatedPlayers
from setupcam.store import GameStore
from vision.sources import SourceFrame
from vision.synth.sequence import Event

START = Position.from_json({"squares": {"b2": "5h"}})
RED_HALF = Position.from_json({"squares": {"b2": "5h", "b3": "5s"}})
RED_DONE = Position.from_json({"squares": {"b2": "5h", "b3": "5s", "c3": "5d"}})
GREEN_HALF = Position.from_json({"squares": {"b2": "5h", "b3": "5s", "c3": "5d", "c2": "5c"}})


class Table:
    """A session, the players, and a clock of frames showing a given board."""

    def __init__(self) -> None:
        self.session = GameSession(GameStore(":memory:"))
        self.session.new_game(GameSetup(Seats.parse("S=red,W=green"), start=START))
        no_view = SimpleNamespace(stability=SimpleNamespace(current_view=None))
        self.players = SimulatedPlayers(self.session, no_view)  # type: ignore[arg-type]
        self.time = 0.0

    def frames(self, board: Position, seconds: float, *events: Event) -> None:
        for i in range(round(seconds * 10)):
            frame = SourceFrame(
                image=None,  # type: ignore[arg-type]
                time=self.time,
                truth=SimpleNamespace(position=board),
                events=list(events) if i == 0 else [],
            )
            self.players.on_frame(frame, None)  # type: ignore[arg-type]
            self.time += 0.1

    def ask(self, player: str, board: Position) -> None:
        self.session.propose(PendingPlay(player, board, ("not sure",)))

    def recorded(self) -> list[tuple[str, Position, str]]:
        state = self.session.state
        assert state is not None and self.session.game_id is not None
        sources = dict(
            self.session.store._db.execute(
                "SELECT number, source FROM turns WHERE game_id = ?", (self.session.game_id,)
            ).fetchall()
        )
        return [(o.turn.player, o.turn.position, sources[o.number]) for o in state.outcomes]


def event(kind: str, player: str, action: str = "play") -> Event:
    return Event(kind, 1, player, 0.0, action=action)


def test_asked_mid_turn_they_answer_with_the_finished_turn() -> None:
    table = Table()
    table.frames(START, 0.5, event("turn_start", "red"))
    table.frames(RED_HALF, 0.2)
    table.ask("red", RED_HALF)  # the hand paused: the camera saw half the turn
    table.frames(RED_HALF, 1.5)
    assert table.session.pending is not None  # nobody answers before the turn is over
    table.frames(RED_DONE, 0.1, event("turn_end", "red"))
    table.frames(RED_DONE, 0.2)
    assert table.recorded() == [("red", RED_DONE, "confirmed")]


def test_asked_about_the_last_turn_while_the_next_player_places() -> None:
    table = Table()
    table.frames(START, 0.5, event("turn_start", "red"))
    table.frames(RED_DONE, 0.5, event("turn_end", "red"))
    table.frames(RED_DONE, 0.3, event("turn_start", "green"))
    table.ask("red", GREEN_HALF)  # a view taken while green's hand was lifted
    table.frames(GREEN_HALF, 1.2)
    assert table.recorded() == [("red", RED_DONE, "confirmed")]


def test_asked_between_turns_about_nothing_they_say_not_a_play() -> None:
    table = Table()
    table.ask("red", RED_HALF)  # a misread, nobody touched the board
    table.frames(START, 1.2)
    assert table.session.pending is None
    assert table.recorded() == []
    assert RED_HALF in table.session.dismissed


def test_a_question_open_when_the_recording_ends_is_answered() -> None:
    table = Table()
    table.frames(START, 0.5, event("turn_start", "red"))
    table.frames(RED_DONE, 0.5, event("turn_end", "red"))
    table.ask("red", RED_HALF)
    table.frames(RED_DONE, 0.3)
    table.players.finish()
    assert table.recorded() == [("red", RED_DONE, "confirmed")]
