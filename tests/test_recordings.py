"""Scoring a recording (``serve --video FILE --seats ...``): the game starts by itself
at the first steady view, and the recording waits while the dashboard asks a question,
so no play is lost with nobody at the dashboard."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from engine import Action, GameSetup, Seats
from setupcam.recordings import GameStarter, RecordingProgress, clock
from setupcam.session import GameSession, PendingPlay
from setupcam.store import GameStore
from tests.test_pipeline import TruthReader, table_with_truth_reader
from vision.pipeline import FrameReport
from vision.runner import PipelineRunner
from vision.sources import ImageFolderSource

SEATS = "S=red,W=green,N=yellow,E=purple"


@pytest.mark.parametrize("seed", [11, 12])
def test_a_recording_is_scored_with_nobody_at_the_dashboard(seed: int) -> None:
    reader = TruthReader(seed)
    source, frames, session, _, runner = table_with_truth_reader(seed, 6, reader, SEATS)
    said: list[str] = []
    starter = GameStarter(session, runner, GameSetup(Seats.parse(SEATS)), said.append)
    runner.on_frame = starter.on_frame  # no simulated players: nobody presses anything
    for frame in frames:
        reader.truth = frame.truth
        runner.step(frame)
    assert source.stream is not None
    truth = source.stream.record
    assert all(turn.action is Action.PLAY for turn in truth.turns)  # a swap needs a person
    state = session.state
    assert state is not None
    assert starter.game_id == session.game_id
    assert said[0].startswith(f"game {starter.game_id} started at 0:0")
    assert state.position == truth.replay().position
    assert [o.turn.player for o in state.outcomes] == [t.player for t in truth.turns]
    assert state.scores == truth.replay().scores


def test_the_game_starts_once_and_only_from_a_steady_view() -> None:
    session = GameSession(GameStore(":memory:"))
    views = iter([None, None, {"layout": "setup-standard", "squares": {"b2": "4♥"}}])
    camera = SimpleNamespace(current_reading=lambda seats: next(views))
    said: list[str] = []
    starter = GameStarter(session, camera, GameSetup(Seats.parse("S=red,N=green")), said.append)  # type: ignore[arg-type]
    frame = SimpleNamespace(time=75.0)
    for _ in range(2):
        starter.on_frame(frame, None)  # type: ignore[arg-type]
        assert session.game_id is None
    starter.on_frame(frame, None)  # type: ignore[arg-type]
    starter.on_frame(frame, None)  # type: ignore[arg-type]  # no view left: would raise
    assert session.state is not None and str(session.state.position["b2"]) == "4♥"
    assert said == [
        f"game {session.game_id} started at 1:15 with 1 tile on the board "
        "(fix any misread on the dashboard)"
    ]


class StillPipeline:
    """Reads nothing; enough for the runner's own work (pacing, holding, status)."""

    deciding = True

    def process(self, image: np.ndarray, time: float) -> FrameReport:
        return FrameReport(time, None, None, False, 0.0, board_state="lost: test")

    def finish(self) -> None:
        return None


def folder_of_frames(tmp_path, count: int) -> ImageFolderSource:  # type: ignore[no-untyped-def]
    import cv2

    for i in range(count):
        cv2.imwrite(str(tmp_path / f"frame{i:02d}.png"), np.full((8, 8, 3), i, np.uint8))
    return ImageFolderSource(tmp_path, fps=10.0)


def test_a_recording_waits_while_the_dashboard_asks(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = folder_of_frames(tmp_path, 3)
    told: list[dict] = []
    asks = iter(["the dashboard asks about red's play"] * 2 + [None] * 10)
    seen: list[float] = []
    runner = PipelineRunner(
        source,
        StillPipeline(),  # type: ignore[arg-type]
        on_status=told.append,
        on_frame=lambda frame, report: seen.append(frame.time),
        hold=lambda: next(asks),
    )
    runner.run()
    assert seen == pytest.approx([0.0, 0.1, 0.2])  # every frame read, none lost
    states = [status["state"] for status in told]
    paused = states.index("paused")
    assert told[paused]["message"] == f"{tmp_path} paused: the dashboard asks about red's play"
    last_paused = len(states) - 1 - states[::-1].index("paused")
    assert states[paused:last_paused] == ["paused"] * (last_paused - paused)
    assert told[last_paused + 1]["state"] == "lost"  # the runner's own word, once answered
    assert states[-1] == "ended"


class ClockedRunner(PipelineRunner):
    """A runner on a clock of its own: its pauses are noted, and move the clock on."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.now = 100.0
        self.pauses: list[float] = []

    def _now(self) -> float:
        return self.now

    def _pause(self, seconds: float) -> None:
        self.pauses.append(seconds)
        self.now += seconds


def test_a_recording_is_read_at_its_own_pace_unless_fast(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = folder_of_frames(tmp_path, 4)  # 0.3 s of recording at 10 frames a second
    paced = ClockedRunner(source, StillPipeline(), paced=True)  # type: ignore[arg-type]
    paced.run()
    # Each frame waits until its own time in the recording has come.
    assert paced.pauses == pytest.approx([0.0, 0.1, 0.1, 0.1])
    fast = ClockedRunner(folder_of_frames(tmp_path, 4), StillPipeline(), paced=False)  # type: ignore[arg-type]
    fast.run()
    assert fast.pauses == []
    assert fast.clock == pytest.approx(0.3)  # every frame read all the same


def test_the_terminal_hears_where_the_recording_is_and_the_game_at_its_end() -> None:
    session = GameSession(GameStore(":memory:"))
    session.new_game(GameSetup(Seats.parse("S=red,N=green")))
    runner = SimpleNamespace(
        source=SimpleNamespace(name="game.mp4"), clock=3725.0, finished=False, ended_mid_turn=None
    )
    said: list[str] = []
    progress = RecordingProgress(SimpleNamespace(runner=runner, session=session), said.append)  # type: ignore[arg-type]
    progress.next_at = 0.0  # the first progress line is due
    progress.tell()
    game = f"game {session.game_id}, 0 turns: red 0, green 0"
    assert said == [f"setupcam: game.mp4 at 1:02:05; {game}"]
    session.set_camera_status({"state": "paused", "message": "game.mp4 paused: a question"})
    session.propose(PendingPlay("red", session.state.position, (), (), {}))  # type: ignore[union-attr]
    progress.tell()
    progress.tell()
    assert said[1:] == ["setupcam: game.mp4 paused: a question"]  # once, not every poll
    runner.finished = True
    progress.tell()
    progress.tell()
    assert said[2] == f"setupcam: end of game.mp4; {game}"
    assert "stays open" in said[3] and len(said) == 4


class HandAtTheEnd(StillPipeline):
    """A hand over the board from the last frame on."""

    def __init__(self, last: float) -> None:
        self.last = last

    def process(self, image: np.ndarray, time: float) -> FrameReport:
        return FrameReport(time, None, None, time >= self.last, 0.0, board_state="lost: test")


@pytest.mark.parametrize("hand_at_the_end", [True, False])
def test_a_recording_that_ends_mid_turn_says_so(tmp_path, hand_at_the_end: bool) -> None:  # type: ignore[no-untyped-def]
    told: list[dict] = []
    pipeline = HandAtTheEnd(0.2 if hand_at_the_end else 99.0)
    runner = PipelineRunner(folder_of_frames(tmp_path, 3), pipeline, on_status=told.append)  # type: ignore[arg-type]
    runner.run()
    assert told[-1]["state"] == "ended"
    said = "ended with a hand over the board: tiles being put down then are not scored"
    assert (said in told[-1]["message"]) == hand_at_the_end
    assert (runner.ended_mid_turn is not None) == hand_at_the_end


def test_clock() -> None:
    assert [clock(s) for s in (0.4, 61, 3725.9)] == ["0:00", "1:01", "1:02:05"]


@pytest.mark.parametrize("hands", [True, False])
def test_a_recording_cut_right_after_the_last_tile_still_scores_it(hands: bool) -> None:
    reader = TruthReader(12)
    source, frames, session, pipeline, runner = table_with_truth_reader(
        12, 4, reader, SEATS, hands=hands
    )
    runner.on_frame = GameStarter(session, runner, GameSetup(Seats.parse(SEATS)), print).on_frame
    for frame in frames:
        reader.truth = frame.truth
        runner.step(frame)
        if any(e.kind == "turn_end" and e.turn == 4 for e in frame.events):
            break  # the video ends here: the last board was never still for long
    pipeline.finish()
    assert source.stream is not None
    truth = source.stream.record.replay()
    assert [o.turn.position for o in session.state.outcomes] == [
        o.turn.position for o in truth.outcomes
    ]
