"""Fitting a model's enrolment value scale (vision.training.value_scale)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.recognizer import TileRecognizer
from vision.training.value_scale import SCALES, WRONG_LIMIT, choose_scale, main, sweep


def test_the_largest_scale_within_the_wrong_limit_is_chosen() -> None:
    squares = 10_000
    limit = WRONG_LIMIT * squares
    wrong = np.array([0, 1, 2, limit, limit + 1, 20, 30])[: len(SCALES)]
    assert choose_scale(SCALES, wrong, squares) == SCALES[3]
    assert choose_scale(SCALES, np.full(len(SCALES), 99), squares) == min(SCALES)


def test_a_sweep_counts_each_scale_on_the_same_squares() -> None:
    rec = TileRecognizer.load()
    squares, errors, wrong = sweep(rec, range(60000, 60001), tests=2, progress=False)
    assert squares > 12
    assert np.all(wrong <= errors) and np.all(errors <= squares)
    # A larger scale makes the value head surer, so it leaves no more squares "?".
    assert errors[-1] <= errors[0]


def test_two_processes_sharing_the_tile_sets_count_the_same() -> None:
    rec = TileRecognizer.load()
    seeds = range(60001, 60003)
    alone = sweep(rec, seeds, tests=2, progress=False)
    shared = sweep(rec, seeds, tests=2, progress=False, workers=2)
    assert alone[0] == shared[0] > 12
    assert np.array_equal(alone[1], shared[1]) and np.array_equal(alone[2], shared[2])


def test_bad_arguments_stop_with_a_one_line_error(tmp_path: Path, capsys) -> None:
    assert main(["--model", str(tmp_path / "none.onnx")]) == 2
    assert main(["--model", "models/tiles.onnx", "--sets", "0"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2 and all(line.startswith("error: ") for line in lines)
