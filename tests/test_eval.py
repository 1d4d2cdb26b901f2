"""The published end-to-end evaluation in CI: twenty simulated games of twelve turns
with hands, every frame through the live pipeline with the shipped model
(`setupcam eval --games 20 --seed 100000 --hands --max-turns 12`, as
models/README.md and docs/benchmarks.md report it).

It fails on what must never regress: a turn scored wrong without asking the players,
a missed or invented turn, a bonus missed, the score shown later than 0.7 s after
the hand leaves (simulated time), or a per-square error (unread squares included)
above the 0.1% target.

Why twenty games, not two: the error is not spread evenly over games. The first
game's board is 283 px wide in the picture, under the 300 px the app asks for, and
six of its turns alone read 1.6% of their squares "?" or wrong while the next three
games read none; four games of six turns measured 0.38%, twenty of twelve 0.080%
(models/HISTORY.md, "Session 17"). A gate at the target needs the whole published set.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np

from calibration.board_location import manual_board
from engine import Layout, Position, Tile
from setupcam.cli import main
from setupcam.evaluate import EVAL_SEED_BASE, _GameTally
from vision.recognizer import LABELS, Reading

PER_SQUARE_TARGET = 0.001
"""Issue 4's target for the art the reader was trained on: at most 0.1% of the squares
read "?" or wrong (0.080% measured in session 17)."""
ENROLLED_WRONG_CEILING = 0.003
"""Ceiling on the confidently wrong squares of the enrolled held-out games below: a
regression guard, not the target (0.2% error after enrolment, "?" included). In these
2,340 squares one tile misread for a few frames is 0.2% by itself: 0.16% before
enrolment's covered shift, 0.21% with it (session 10); 0.078% over 10 games."""
SCORE_DELAY_TARGET_S = 0.7


def test_published_eval_scores_every_turn_right_or_asks_and_meets_the_target(capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(
        [
            "eval",
            "--games",
            "20",
            "--seed",
            str(EVAL_SEED_BASE),
            "--hands",
            "--max-turns",
            "12",
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    for key in (
        "games",
        "frames",
        "squares_read",
        "per_square_error",
        "exact_position_rate",
        "turns",
        "turns_correct",
        "turns_flagged",
        "turns_wrong_silent",
        "bonus_missed",
        "board_not_found",
        "frame_ms_p50",
        "frame_ms_p95",
        "score_delay_s_p50",
    ):
        assert key in report, key
    assert report["games"] == 20 and report["turns"] == 240
    assert report["turns_wrong_silent"] == 0, report["wrong_turns"]
    assert report["turns_missed"] == 0
    assert report["turns_extra"] == 0
    assert report["bonus_missed"] == 0
    # Simulated seconds, not this machine's speed: the settle time the pipeline waits.
    assert 0 < report["score_delay_s_p50"] <= SCORE_DELAY_TARGET_S
    assert report["turns_correct"] + report["turns_flagged"] == report["turns"]
    assert report["squares_read"] > 1000
    assert report["per_square_error"] <= PER_SQUARE_TARGET
    # The game is decided from steady views, at least one per turn; what they read
    # confidently must be as right as every frame's reading.
    assert report["steady_views"] >= report["turns"]
    assert report["steady_view_wrong"] <= PER_SQUARE_TARGET
    assert 0 <= report["steady_view_error"] < 1
    # Each game's own figures add up to the whole.
    games = report["per_game"]
    assert [g["seed"] for g in games] == list(range(EVAL_SEED_BASE, EVAL_SEED_BASE + 20))
    assert sum(g["squares_read"] for g in games) == report["squares_read"]
    assert sum(g["turns"] for g in games) == report["turns"]
    assert sum(g["turns_correct"] for g in games) == report["turns_correct"]
    errors = sum(g["per_square_error"] * g["squares_read"] for g in games)
    assert abs(errors / report["squares_read"] - report["per_square_error"]) < 1e-5
    assert all(g["board_px"] > 200 for g in games)


def test_enrolling_each_game_reads_the_held_out_art() -> None:
    # The held-out family is mostly "?" to the shipped model alone; a user enrols
    # their set first (5 photos of their own table), which --enroll does per game.
    from setupcam.evaluate import evaluate

    seed = EVAL_SEED_BASE + 7
    alone = evaluate(2, seed, style="split", max_turns=3)
    enrolled = evaluate(2, seed, style="split", max_turns=3, enroll=True)
    assert enrolled.games_enrolled == 2 and alone.games_enrolled == 0
    assert enrolled.turns_wrong_silent == 0, enrolled.wrong_turns
    assert enrolled.per_square_wrong <= ENROLLED_WRONG_CEILING
    assert enrolled.per_square_error < 0.6 * alone.per_square_error
    assert enrolled.turns_correct > alone.turns_correct
    assert enrolled.steady_view_error < 0.6 * alone.steady_view_error
    assert [g["family"] for g in enrolled.per_game] == ["split", "split"]
    worst = alone.worst_game()
    assert worst is not None
    assert worst["per_square_error"] == max(g["per_square_error"] for g in alone.per_game)


def test_squares_are_scored_once_the_game_has_started() -> None:
    """Before the game starts no seats name the squares (south is only assumed), so a
    reading under the assumed names is not scored; from the start, every square is."""
    layout = Layout.load()
    truth = SimpleNamespace(
        position=Position.empty(layout), coverage=dict.fromkeys(layout.squares, 0.0)
    )
    frame = SimpleNamespace(events=[], truth=truth, time=0.0)
    one_tile = Reading(Tile.parse("5♥"), 0.999, np.zeros(len(LABELS)))
    report = SimpleNamespace(
        location=manual_board([(0, 0), (300, 0), (300, 300), (0, 300)]),
        view=None,
        readings=dict.fromkeys(layout.squares, one_tile),
        obstructed=False,
    )
    tally = _GameTally()
    tally.add(frame, report, SimpleNamespace(state=None, pending=None), 0.99)  # type: ignore[arg-type]
    assert tally.squares == 0 and tally.clean_frames == 0
    started = SimpleNamespace(state=SimpleNamespace(outcomes=[]), pending=None)
    tally.add(frame, report, started, 0.99)  # type: ignore[arg-type]
    assert tally.squares == 12 and tally.wrong == 12 and tally.clean_frames == 1
    assert tally.board_px == [300.0, 300.0]
