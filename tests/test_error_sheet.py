"""The sheets of squares in error that a person reads against the benchmark's answers."""

from __future__ import annotations

import numpy as np

from benchmarks import error_sheet
from benchmarks.error_sheet import COLUMNS, ROWS, SQUARE_PX, enrolled_errors, sheet_pages
from vision.recognizer import LABELS, TileRecognizer


def test_a_sheet_holds_32_squares_and_the_last_page_the_rest() -> None:
    crops = np.zeros((40, 84, 84, 3), np.uint8)
    pages = sheet_pages(crops)
    assert len(pages) == 2
    cell_h, cell_w = SQUARE_PX + 20, SQUARE_PX + 4
    assert pages[0].shape == (ROWS * cell_h, COLUMNS * cell_w, 3)
    assert pages[1].shape == (1 * cell_h, COLUMNS * cell_w, 3)  # 8 squares: one row


def test_every_enrolled_square_in_the_key_was_answered_wrongly_or_left_unsure() -> None:
    # Set 7001's second test frame is smeared: it reads two squares "?" there.
    crops, keys = enrolled_errors(TileRecognizer.load(), sets=1, tests=2, first=7001)
    assert len(crops) == len(keys) > 0
    for row in keys:
        assert row["truth"] in LABELS and row["truth"] != "covered"
        assert row["answer"] != row["truth"] or row["confidence"] < row["threshold"]
        assert row["seen"] in ("motion blur", "a hand over part", "still")
        assert row["four_turns"] in LABELS and row["four_turns_threshold"] > 0.5
        sure = row["four_turns_confidence"] >= row["four_turns_threshold"] - 0.001
        assert row["four_turns_right"] <= (row["four_turns"] == row["truth"] and sure)


def test_bad_arguments_stop_with_a_one_line_error(monkeypatch, capsys, tmp_path) -> None:
    for argv in (["--enrolled-sets", "-1"], ["--model", str(tmp_path / "none.onnx")]):
        monkeypatch.setattr("sys.argv", ["error_sheet", *argv, "--out", str(tmp_path)])
        assert error_sheet.main() == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
