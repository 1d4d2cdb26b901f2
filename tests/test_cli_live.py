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
        (["serve", "--camera", "0", "--fast"], "--fast is for a recording"),
        (["serve", "--url", "rtsp://x", "--each", "2"], "--each is for a folder of images"),
        (["serve", "--url", "rtsp://x", "--teams", "a+b,c+d"], "--teams goes with --seats"),
        (["serve", "--url", "rtsp://x", "--equal-turns"], "--equal-turns goes with --seats"),
        (["serve", "--url", "rtsp://x", "--seats", "S=red,S=blue"], "--seats: edge S is given"),
        (
            ["serve", "--url", "rtsp://x", "--seats", "S=a,W=b", "--teams", "a+b,c+d"],
            "--teams: the team game needs 4 players",
        ),
        (["eval", "--games", "0", "--seed", "1"], "--games must be at least 1"),
        (["eval", "--games", "1", "--seed", "1", "--style", "x"], "unknown --style"),
        (
            ["eval", "--games", "1", "--seed", "1", "--enroll", "--enrollment", "a.npz"],
            "leave out --enrollment",
        ),
    ],
)
def test_bad_input(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_serve_checks_where_the_calibration_would_be_saved(
    tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    # The Calibrate page's Save writes there: a place that cannot be written is said at
    # once, not as a failed Save later.
    missing = tmp_path / "no-such-folder" / "c.json"
    assert main(["serve", "--url", "rtsp://x", "--calibration", str(missing)]) == 2
    assert f"no such folder {missing.parent}" in capsys.readouterr().err
    assert main(["serve", "--url", "rtsp://x", "--calibration", str(tmp_path)]) == 2
    assert "is a folder, not a file" in capsys.readouterr().err


def test_serve_needs_a_source(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["serve"])
    assert exit_info.value.code == 2
    assert (
        "one of the arguments --camera --video --url --folder is required"
        in capsys.readouterr().err
    )


def test_serve_asks_for_an_enrolment(tmp_path, monkeypatch, capsys) -> None:
    # The shipped model alone misreads a set coloured otherwise (models/README.md).
    import cv2
    import numpy as np

    from setupcam import live_app

    monkeypatch.setenv("SETUPCAM_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(live_app, "run_until_interrupted", lambda *args: 0)
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.full((72, 128, 3), 90, np.uint8))
    argv = ["serve", "--folder", str(folder), "--db", str(tmp_path / "games.sqlite")]
    assert main(argv) == 0
    assert "no enrolled tile set" in capsys.readouterr().err
