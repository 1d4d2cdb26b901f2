"""End-to-end evaluation: simulated games through the real live pipeline.

Every frame of every game goes through the same code as ``setupcam serve``: the
pipeline reads it, the session scores what the pipeline decides, and the
simulated players press Swap and answer the app's questions as people would.
Nothing takes a shortcut through the ground truth; the truth is only used
afterwards, to score the app::

    >>> report = evaluate(games=1, seed=900, max_turns=2, hands=False)  # doctest: +SKIP
    >>> report.turns_wrong_silent                                        # doctest: +SKIP
    0
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from engine import Action, GameRecord
from setupcam.live_app import SessionLink
from setupcam.session import GameSession
from setupcam.simulated_players import SimulatedPlayers
from setupcam.store import GameStore
from vision.pipeline import FrameReport, LivePipeline
from vision.recognizer import Reading, TileRecognizer
from vision.runner import PipelineRunner
from vision.sim_source import SimulatedTableSource
from vision.sources import SourceFrame
from vision.synth.sequence import GameStream

EVAL_SEED_BASE = 100_000
"""Evaluation seeds start here; training data uses seeds far below it."""


@dataclass
class EvalReport:
    """The figures of contract section 5 (``setupcam eval --json``) and a few more."""

    games: int = 0
    frames: int = 0
    frames_clear: int = 0
    """Frames with the board found and no hand over it, from the game's start (the
    seats name the squares): where squares are scored."""
    squares_read: int = 0
    per_square_error: float = 0.0
    per_square_unknown: float = 0.0
    per_square_wrong: float = 0.0
    """Read confidently and wrongly (the part of the error that "?" does not flag)."""
    exact_position_rate: float = 0.0
    steady_views: int = 0
    """Steady views taken: what the game is decided from (a still moment's frames
    pooled with a closer look at four quarter turns)."""
    steady_view_error: float = 0.0
    """Per-square error of the steady views' readings ("?" or wrong, at the
    recognizer's threshold), over the squares no hand covers."""
    steady_view_wrong: float = 0.0
    turns: int = 0
    turns_correct: int = 0
    turns_flagged: int = 0
    turns_wrong_silent: int = 0
    turns_missed: int = 0
    turns_extra: int = 0
    """Plays recorded that never happened (after the game's real last turn)."""
    bonus_missed: int = 0
    start_squares_fixed: int = 0
    """Squares of the starting boards the players corrected before the first turn."""
    board_not_found: int = 0
    games_enrolled: int = 0
    """Games whose tile set was enrolled first (``--enroll``)."""
    games_told_unread: int = 0
    """Games in which the camera's status told the players that many tiles were left
    unread (:mod:`vision.unread`): it should be the games whose picture is at fault."""
    frames_told_unread: float = 0.0
    """The share of frames with that advice showing."""
    frame_ms_p50: float = 0.0
    frame_ms_p95: float = 0.0
    score_delay_s_p50: float = 0.0
    """From the hand leaving the board to the turn on the dashboard: its score, or the
    question asking the players to confirm it."""
    score_delay_s_p95: float = 0.0
    wrong_turns: list[dict[str, Any]] = field(default_factory=list)
    per_game: list[dict[str, Any]] = field(default_factory=list)
    """Each game's own figures (its seed, art family, board width in the picture,
    per-square error, turns): an average can hide one game gone wrong."""

    def worst_game(self) -> dict[str, Any] | None:
        """The game with the highest per-square error, if any square was read wrong
        or left unread."""
        worst = max(self.per_game, key=lambda g: g["per_square_error"], default=None)
        return worst if worst is not None and worst["per_square_error"] > 0 else None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for key, value in data.items():
            if isinstance(value, float):
                data[key] = round(value, 6)
        return data


@dataclass
class _GameTally:
    """Per-frame counts while one game runs."""

    squares: int = 0
    wrong: int = 0
    unknown: int = 0
    clean_frames: int = 0
    exact_frames: int = 0
    not_found: int = 0
    view_squares: int = 0
    view_wrong: int = 0
    view_unknown: int = 0
    views: int = 0
    board_px: list[float] = field(default_factory=list)
    """The board's width in each frame it was found (pixels, as the app's small-board
    hint measures it: :meth:`BoardLocation.width_px`)."""
    hand_left: dict[int, float] = field(default_factory=dict)
    """Per turn, when the hand last left the squares (the first clear frame after its last tile)."""
    shown_at: dict[int, list[float]] = field(default_factory=dict)
    """Per turn number, the frames' times at which it was on the dashboard (scored or
    asked about; a question raised before the hand left does not count as shown)."""
    _last_placed_turn: int | None = None
    _turns_seen: int = 0

    def add(
        self, frame: SourceFrame, report: FrameReport, session: GameSession, threshold: float
    ) -> None:
        truth = frame.truth
        for event in frame.events:
            if event.kind == "tile_placed":
                self._last_placed_turn = event.turn
        hand_over_board = truth is not None and any(v > 0 for v in truth.coverage.values())
        if self._last_placed_turn is not None and not hand_over_board:
            # After the turn's last tile: a hand lifted between two tiles has not left.
            self.hand_left[self._last_placed_turn] = frame.time
            self._last_placed_turn = None
        state = session.state
        count = len(state.outcomes) if state is not None else 0
        if count > self._turns_seen:
            for number in range(self._turns_seen + 1, count + 1):
                self.shown_at.setdefault(number, []).append(frame.time)
        self._turns_seen = count
        if session.pending is not None:
            self.shown_at.setdefault(count + 1, []).append(frame.time)
        if report.location is None:
            self.not_found += 1
            return
        self.board_px.append(report.location.width_px())
        if state is None:
            # Before the game starts no seats name the squares yet: the board is read
            # with south assumed nearest the camera, and once the players' seats turn it
            # a right reading under the old names would count as wrong.
            return
        if truth is not None and report.view is not None:
            view = {s: Reading.of(p, threshold) for s, p in report.view.probabilities.items()}
            squares, wrong, unknown = _scored(view, truth)
            self.views += 1
            self.view_squares += squares
            self.view_wrong += wrong
            self.view_unknown += unknown
        if truth is None or report.readings is None or report.obstructed:
            return
        squares, wrong, unknown = _scored(report.readings, truth)
        self.squares += squares
        self.wrong += wrong
        self.unknown += unknown
        self.clean_frames += 1
        self.exact_frames += wrong + unknown == 0


def _scored(readings: Mapping[str, Reading], truth: Any) -> tuple[int, int, int]:
    """Squares no hand covers, and how many of them are read wrong or left unread
    ("?" or a hand: the app waits)."""
    squares = wrong = unknown = 0
    for square, reading in readings.items():
        if truth.coverage.get(square, 0.0) > 0:
            continue
        squares += 1
        if reading.unread:
            unknown += 1
        elif reading.label != truth.position[square]:
            wrong += 1
    return squares, wrong, unknown


def _compare_turns(
    truth: GameRecord, session: GameSession, tally: _GameTally, report: EvalReport, game: int
) -> None:
    """Turn by turn: the app's record against the game the simulator played."""
    state = session.state
    recorded = state.outcomes if state is not None else ()
    assert session.game_id is not None or not recorded
    sources = _turn_sources(session)
    truth_state = truth.replay()
    report.turns_extra += max(0, len(recorded) - len(truth_state.outcomes))
    for index, expected in enumerate(truth_state.outcomes):
        report.turns += 1
        if index >= len(recorded):
            report.turns_missed += 1
            continue
        got = recorded[index]
        same_turn = (
            got.turn.player == expected.turn.player and got.turn.action is expected.turn.action
        )
        same_board = (
            expected.turn.action is Action.SWAP or got.turn.position == expected.turn.position
        )
        right = same_turn and same_board and got.scores == expected.scores
        flagged = sources.get(index + 1) == "confirmed"
        if flagged:
            report.turns_flagged += 1
        elif right:
            report.turns_correct += 1
        else:
            report.turns_wrong_silent += 1
            report.wrong_turns.append(
                {
                    "game": game,
                    "turn": index + 1,
                    "expected": expected.to_json(),
                    "got": got.to_json(),
                }
            )
        expected_bonus = expected.result.bonus if expected.result else {}
        got_bonus = got.result.bonus if got.result and got.result.legal else {}
        for player, bonus in expected_bonus.items():
            report.bonus_missed += max(0, bonus - got_bonus.get(player, 0))


def _turn_counts(report: EvalReport) -> dict[str, int]:
    return {
        "turns": report.turns,
        "turns_correct": report.turns_correct,
        "turns_flagged": report.turns_flagged,
        "turns_wrong_silent": report.turns_wrong_silent,
    }


def _game_figures(
    seed: int, stream: GameStream, tally: _GameTally, turns: dict[str, int]
) -> dict[str, Any]:
    """One game's line of :attr:`EvalReport.per_game`."""
    return {
        "seed": seed,
        "family": stream.base.style.family,
        "board_px": round(float(np.median(tally.board_px)), 1) if tally.board_px else None,
        "squares_read": tally.squares,
        "per_square_error": round((tally.wrong + tally.unknown) / max(1, tally.squares), 6),
        "per_square_wrong": round(tally.wrong / max(1, tally.squares), 6),
        **turns,
    }


def _turn_sources(session: GameSession) -> dict[int, str]:
    if session.game_id is None:
        return {}
    rows = session.store._db.execute(
        "SELECT number, source FROM turns WHERE game_id = ?", (session.game_id,)
    ).fetchall()
    return {int(n): str(s) for n, s in rows}


def evaluate(
    games: int,
    seed: int,
    *,
    hands: bool = True,
    style: str | None = None,
    max_turns: int = 400,
    players: str = "S=red,W=green,N=yellow,E=purple",
    model_path: str | None = None,
    enrollment_path: str | None = None,
    enroll: bool = False,
    progress: Callable[[str], None] | None = None,
) -> EvalReport:
    """Play ``games`` simulated games (seeds ``seed``, ``seed+1``, ...) through the app.

    With ``enroll`` each game's tile set is first enrolled from photos of its own
    table, as a user sets up before playing (:func:`enrolled_for`).
    """
    recognizer = TileRecognizer.load(model_path, enrollment_path, threads=1)
    report = EvalReport()
    frame_ms: list[float] = []
    delays: list[float] = []
    view_squares = 0
    for game in range(games):
        session = GameSession(GameStore(":memory:"))
        source = SimulatedTableSource(
            seed + game,
            players=players,
            hands=hands,
            family=style,
            realtime=False,
            games=1,
            max_turns=max_turns,
        )
        pipeline = LivePipeline(recognizer, link=SessionLink(session))
        if enroll:

            def enrol(stream: GameStream, pipeline: LivePipeline = pipeline) -> None:
                try:
                    pipeline.recognizer = enrolled_for(recognizer, stream, players)
                except ValueError:
                    return  # photos missing a value or suit: the game is read without
                report.games_enrolled += 1

            source.on_game = enrol
        players_at_table = SimulatedPlayers(session, pipeline)
        runner = PipelineRunner(source, pipeline, on_frame=players_at_table.on_frame)
        tally = _GameTally()
        started = time.monotonic()
        told = 0
        for frame in source:
            result = runner.step(frame)
            told += pipeline.unread_advice() is not None
            tally.add(frame, result, session, pipeline.recognizer.threshold)
            report.frames += 1
            if progress and report.frames % 50 == 0:
                state = session.state
                done = len(state.outcomes) if state else 0
                progress(
                    f"game {game + 1}/{games}: frame {report.frames}, turn {done}, "
                    f"{time.monotonic() - started:.0f} s"
                )
        players_at_table.finish()
        report.start_squares_fixed += players_at_table.start_squares_fixed
        frame_ms.extend(runner.frame_ms)
        assert source.stream is not None
        turns_before = _turn_counts(report)
        _compare_turns(source.stream.record, session, tally, report, game)
        turns = {k: v - turns_before[k] for k, v in _turn_counts(report).items()}
        for turn, left in tally.hand_left.items():
            shown = [t for t in tally.shown_at.get(turn, ()) if t >= left]
            if shown:
                delays.append(shown[0] - left)
        report.games += 1
        report.per_game.append(_game_figures(seed + game, source.stream, tally, turns))
        report.games_told_unread += told > 0
        report.frames_told_unread += told
        report.squares_read += tally.squares
        report.board_not_found += tally.not_found
        report.per_square_error += tally.wrong + tally.unknown
        report.per_square_unknown += tally.unknown
        report.per_square_wrong += tally.wrong
        report.exact_position_rate += tally.exact_frames
        report.frames_clear += tally.clean_frames
        report.steady_views += tally.views
        report.steady_view_error += tally.view_wrong + tally.view_unknown
        report.steady_view_wrong += tally.view_wrong
        view_squares += tally.view_squares
    squares = max(1, report.squares_read)
    report.per_square_error /= squares
    report.per_square_unknown /= squares
    report.per_square_wrong /= squares
    report.exact_position_rate /= max(1, report.frames_clear)
    report.frames_told_unread /= max(1, report.frames)
    report.steady_view_error /= max(1, view_squares)
    report.steady_view_wrong /= max(1, view_squares)
    if frame_ms:
        report.frame_ms_p50 = float(np.percentile(frame_ms, 50))
        report.frame_ms_p95 = float(np.percentile(frame_ms, 95))
    if delays:
        report.score_delay_s_p50 = float(np.percentile(delays, 50))
        report.score_delay_s_p95 = float(np.percentile(delays, 95))
    return report


ENROLMENT_PHOTOS = 5
"""Photos a user takes to enrol a tile set (all 50 tiles, 10 at a time)."""


def enrolled_for(
    recognizer: TileRecognizer, stream: GameStream, players: str, plan: bool = True
) -> TileRecognizer:
    """``recognizer`` enrolled on the tile set of ``stream``'s table, as a user does it:
    ENROLMENT_PHOTOS photos on that table with the game's camera, laid out as the Enrol
    tiles page asks (:mod:`vision.enrollment_plan`; with ``plan=False`` the 50 tiles in
    random order, as until session 38), the board in each found and oriented by the
    seats' colours, then enrolled. A photo whose board is not found is left out, as a
    user retakes it.
    """
    from dataclasses import replace

    from calibration.board_finder import find_board
    from calibration.board_location import BoardNotFound
    from calibration.orientation import BoardLook
    from engine import Seats
    from vision.enrollment import EnrollmentSample, build_enrollment
    from vision.synth.scene import render_frame
    from vision.training_data import enrolment_positions

    layout = stream.layout
    look = BoardLook.from_seats(Seats.parse(players).by_edge)
    rng = np.random.default_rng([stream.seed, 88])
    samples = []
    for position in enrolment_positions(rng, ENROLMENT_PHOTOS, layout, plan):
        scene = replace(stream.base, position=position, stacks={}, hand=None)
        image = render_frame(scene, rng).image
        try:
            location = find_board(image, layout, look=look)
        except BoardNotFound:
            continue
        samples.append(EnrollmentSample(image, location.corners, position))
    return recognizer.with_enrollment(build_enrollment(recognizer, samples, layout))


def print_progress(message: str) -> None:
    print(f"\r{message:<70}", end="", file=sys.stderr, flush=True)
