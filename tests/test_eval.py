"""A small end-to-end evaluation in CI: four short simulated games with hands, every
frame through the live pipeline with the shipped model (`setupcam eval`).

It fails on what must never regress: a turn scored wrong without asking the players,
a missed or invented turn, a bonus missed, the score shown later than 0.7 s after
the hand leaves (simulated time), or confidently wrong readings above the
per-square target, or a full per-square error (unread squares included) above
today's level. (The full per-square target itself is not met yet: see
models/README.md.)

Four games of six turns read about 12,000 squares. Two games of four turns (4,400
squares, until session 4) were too few for a 0.1% gate: one tile misread for a few
frames is 0.1% by itself, so the gate measured chance, not the model.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np

from engine import Layout, Position, Tile
from setupcam.cli import main
from setupcam.evaluate import EVAL_SEED_BASE, _GameTally
from vision.recognizer import LABELS, Reading

PER_SQUARE_TARGET = 0.001
PER_SQUARE_ERROR_TODAY = 0.03
"""Ceiling on the full per-square error (unread squares included) of this small eval:
1.3% since session 11 (doubtful squares read again at four turns, with their own
temperature; 3.7% with the same network before; session 6: 9.6%; session 4: 17.9%),
plus a margin. Not the target
(0.1%): a regression guard, to lower as the model improves."""
ENROLLED_WRONG_CEILING = 0.003
"""Ceiling on the confidently wrong squares of the enrolled held-out games below: a
regression guard, not the target (0.2% error after enrolment, "?" included). In these
2,340 squares one tile misread for a few frames is 0.2% by itself: 0.16% before
enrolment's covered shift, 0.21% with it (session 10); 0.078% over 10 games."""
SCORE_DELAY_TARGET_S = 0.7


def test_small_eval_has_no_silent_wrong_scores(capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(
        [
            "eval",
            "--games",
            "4",
            "--seed",
            str(EVAL_SEED_BASE),
            "--hands",
            "--max-turns",
            "6",
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
    assert report["games"] == 4 and report["turns"] == 24
    assert report["turns_wrong_silent"] == 0, report["wrong_turns"]
    assert report["turns_missed"] == 0
    assert report["turns_extra"] == 0
    assert report["bonus_missed"] == 0
    # Simulated seconds, not this machine's speed: the settle time the pipeline waits.
    assert 0 < report["score_delay_s_p50"] <= SCORE_DELAY_TARGET_S
    assert report["turns_correct"] + report["turns_flagged"] == report["turns"]
    assert report["squares_read"] > 1000
    assert report["per_square_wrong"] <= PER_SQUARE_TARGET
    assert report["per_square_error"] <= PER_SQUARE_ERROR_TODAY
    # The game is decided from steady views, at least one per turn; what they read
    # confidently must be as right as every frame's reading.
    assert report["steady_views"] >= report["turns"]
    assert report["steady_view_wrong"] <= PER_SQUARE_TARGET
    assert 0 <= report["steady_view_error"] < 1


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
        location=object(),
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
