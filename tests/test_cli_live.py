"""`setupcam demo`, `serve` and `eval`: bad input is one line and exit code 2."""

from __future__ import annotations

import pytest

from setupcam.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--settle", "0"], "--settle must be between"),
        (["demo", "--port", "70000"], "--port must be 1..65535"),
        (["demo", "--style", "nope"], "unknown --style 'nope'"),
        (["serve", "--video", "/nonexistent.mp4"], "--video /nonexistent.mp4: no such file"),
        (["serve", "--camera", "0", "--model", "/nonexistent.onnx"], "no such file"),
        (["eval", "--games", "0", "--seed", "1"], "--games must be at least 1"),
        (["eval", "--games", "1", "--seed", "1", "--style", "x"], "unknown --style"),
    ],
)
def test_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_serve_needs_a_source(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve"])
    assert exit_info.value.code == 2
    assert (
        "one of the arguments --camera --video --url --folder is required"
        in capsys.readouterr().err
    )
