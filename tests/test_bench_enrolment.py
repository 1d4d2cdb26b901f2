"""The enrolment benchmark's pieces, on one small tile set, so the script cannot rot."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.bench_enrolment import (
    CONDITIONS,
    NEARLY_HIDDEN,
    READINGS,
    UNDER_A_HAND,
    paired_interval,
    read_set,
    square_conditions,
    square_coverage,
)
from engine import Layout
from vision.recognizer import TileRecognizer
from vision.training_data import tile_set_frames


def test_a_set_read_by_the_same_model_twice_gives_the_same_counts() -> None:
    rec = TileRecognizer.load()
    first, second = (result[None] for result in read_set([rec, rec], 7000, tests=2))
    assert first == second
    assert first.squares > 12
    for k in range(len(READINGS)):
        assert 0 <= first.wrong[k] <= first.errors[k] <= first.squares
    # Enrolled, the four-turn reading leaves fewer squares unread than one pass here.
    assert first.errors[1] <= first.errors[0]
    # A second look reads again only squares one pass left "?": it cannot add errors.
    assert first.errors[2] <= first.errors[0]


def test_every_visible_square_is_counted_under_one_condition() -> None:
    # Set 7003's second test frame is motion-blurred and a hand lies over part of
    # some squares of its first.
    (result,) = read_set([TileRecognizer.load()], 7003, tests=2)
    parts = [result[condition] for condition in CONDITIONS]
    assert all(part.squares > 0 for part in parts)
    assert sum(part.squares for part in parts) == result[None].squares
    for k in range(len(READINGS)):
        assert sum(part.errors[k] for part in parts) == result[None].errors[k]
        assert sum(part.wrong[k] for part in parts) == result[None].wrong[k]
    # The squares nearly hidden are some of those a hand is over part of.
    nearly, part = result[NEARLY_HIDDEN], result[CONDITIONS[1]]
    assert nearly.squares <= part.squares
    assert all(nearly.errors[k] <= part.errors[k] for k in range(len(READINGS)))
    # Squares a hand hides are left out of the visible ones and counted apart.
    hidden = result[UNDER_A_HAND]
    assert hidden.squares > 0
    assert all(
        0 <= hidden.wrong[k] == hidden.errors[k] <= hidden.squares for k in range(len(READINGS))
    )


def test_a_blurred_frame_counts_as_blurred_and_a_partly_hidden_square_as_such() -> None:
    frames = tile_set_frames(7003, "split", photos=5, tests=2)
    assert len(frames.test_motion_blur) == 2 and frames.test_motion_blur[1] > 0
    condition = square_conditions(frames).reshape(2, -1)
    assert (condition[1] == 2).all()
    coverage = frames.test[0][0].truth.coverage
    hidden = [coverage.get(square, 0.0) > 0 for square in Layout.load().squares]
    assert any(hidden) and not all(hidden)
    assert (condition[0] == np.where(hidden, 1, 0)).all()
    shares = square_coverage(frames).reshape(2, -1)[0]
    assert list(shares) == [coverage.get(square, 0.0) for square in Layout.load().squares]


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


def test_a_missing_model_or_enrolment_base_stops_with_a_one_line_error(
    tmp_path, monkeypatch, capsys
) -> None:
    import shutil

    from benchmarks import bench_enrolment, bench_recognizer

    models = Path(__file__).resolve().parent.parent / "models"
    for name in ("tiles.onnx", "tiles.json"):
        shutil.copy(models / name, tmp_path / name)
    for script in (bench_enrolment, bench_recognizer):
        monkeypatch.setattr("sys.argv", [script.__name__, "--model", str(tmp_path / "tiles.onnx")])
        assert script.main() == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "enrollment-base.onnx" in err, err
        monkeypatch.setattr("sys.argv", [script.__name__, "--model", str(tmp_path / "no.onnx")])
        assert script.main() == 2
        assert capsys.readouterr().err == f"error: {tmp_path / 'no.onnx'}: no such model file\n"
    shutil.copy(models / "enrollment-base.onnx", tmp_path / "enrollment-base.onnx")
    shutil.copy(models / "enrollment-base.json", tmp_path / "enrollment-base.json")
    from benchmarks.models import model_problem

    assert model_problem([tmp_path / "tiles.onnx", None]) is None
