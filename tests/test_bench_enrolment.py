"""The enrolment benchmark's pieces, on one small tile set, so the script cannot rot."""

from __future__ import annotations

import numpy as np

from benchmarks.bench_enrolment import paired_interval, read_set
from vision.recognizer import TileRecognizer


def test_a_set_read_by_the_same_model_twice_gives_the_same_counts() -> None:
    rec = TileRecognizer.load()
    first, second = read_set([rec, rec], 7000, tests=2)
    assert first == second
    assert first.squares > 12
    for k in range(2):
        assert 0 <= first.wrong[k] <= first.errors[k] <= first.squares
    # Enrolled, the four-turn reading leaves fewer squares unread than one pass here.
    assert first.errors[1] <= first.errors[0]


def test_no_difference_between_models_has_an_interval_of_zero() -> None:
    assert paired_interval(np.zeros(12, int)) == (0.0, 0.0)
    lo, hi = paired_interval(np.array([-3, -1, -2, -4, -2, -3]))
    assert lo <= -15 <= hi < 0


def test_bad_arguments_stop_with_a_one_line_error(monkeypatch, capsys) -> None:
    from benchmarks import bench_enrolment

    for argv in (["--sets", "1"], ["--first-seed", "-1"]):
        monkeypatch.setattr("sys.argv", ["bench_enrolment", *argv])
        assert bench_enrolment.main() == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
