"""Frame sources: files, folders, and a camera that drops out and comes back."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.sources import CaptureSource, ImageFolderSource


class FlakyCapture:
    """A capture that gives ``frames`` images, then fails, as an unplugged webcam."""

    def __init__(self, frames: int, opened: bool = True) -> None:
        self.frames = frames
        self.opened = opened

    def isOpened(self) -> bool:
        return self.opened

    def read(self) -> tuple[bool, np.ndarray | None]:
        if self.frames <= 0:
            return False, None
        self.frames -= 1
        return True, np.zeros((4, 4, 3), np.uint8)

    def get(self, prop: int) -> float:
        return 15.0

    def release(self) -> None:
        pass


def test_camera_reconnects_with_backoff() -> None:
    # Plugged in (2 frames), unplugged for two attempts, plugged in again (3 frames).
    captures = iter(
        [FlakyCapture(2), FlakyCapture(0, False), FlakyCapture(0, False), FlakyCapture(3)]
    )
    sleeps: list[float] = []
    statuses: list[str] = []
    source = CaptureSource(0, opener=lambda target: next(captures), sleep=sleeps.append)
    frames = []
    for frame in source:
        frames.append(frame)
        statuses.append(source.status["state"])
        if len(frames) == 5:
            break
    assert len(frames) == 5
    assert sleeps == [0.5, 1.0]  # exponential backoff
    assert source.reconnects == 2
    assert statuses[-1] == "ok"


def test_camera_status_while_away() -> None:
    messages: list[str] = []

    class Unplugged(Exception):
        pass

    def sleep(seconds: float) -> None:
        messages.append(source.status["message"])
        if len(messages) == 6:
            raise Unplugged

    source = CaptureSource(1, opener=lambda t: FlakyCapture(0, False), sleep=sleep, max_backoff_s=4)
    with pytest.raises(Unplugged):
        next(iter(source))
    assert messages[0] == "camera 1: not available, retrying in 0.5 s"
    assert messages[-1] == "camera 1: not available, retrying in 4 s"  # capped


def test_video_file(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for i in range(6):
        writer.write(np.full((48, 64, 3), i * 40, np.uint8))
    writer.release()
    source = CaptureSource(str(path), is_file=True)
    frames = list(source)
    assert len(frames) == 6
    assert frames[1].time == pytest.approx(0.1)
    assert source.status["state"] == "ended"


def test_missing_video_file(tmp_path: Path) -> None:
    source = CaptureSource(str(tmp_path / "none.mp4"), is_file=True)
    assert list(source) == []
    assert source.status["state"] == "lost"


def test_image_folder(tmp_path: Path) -> None:
    for name in ("b.png", "a.png"):
        cv2.imwrite(
            str(tmp_path / name), np.full((8, 8, 3), 200 if name == "a.png" else 10, np.uint8)
        )
    (tmp_path / "notes.txt").write_text("not an image")
    (tmp_path / "broken.jpg").write_bytes(b"nope")
    frames = list(ImageFolderSource(tmp_path, fps=2))
    assert [int(f.image[0, 0, 0]) for f in frames] == [200, 10]  # name order, broken skipped
    assert frames[1].time == 0.5
    with pytest.raises(FileNotFoundError):
        ImageFolderSource(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ValueError, match="no images"):
        ImageFolderSource(empty)


def test_the_dashboard_hears_of_a_camera_that_never_connects() -> None:
    # No frame ever comes, so only the source's own word can reach the dashboard;
    # before, it said "starting" for as long as the camera stayed away.
    from types import SimpleNamespace

    from vision.runner import PipelineRunner

    class GaveUp(Exception):
        pass

    told: list[dict] = []

    def sleep(seconds: float) -> None:
        naps.append(seconds)
        if len(naps) == 2:
            raise GaveUp

    naps: list[float] = []

    source = CaptureSource(3, opener=lambda t: FlakyCapture(0, False), sleep=sleep)
    runner = PipelineRunner(source, SimpleNamespace(deciding=True), on_status=told.append)  # type: ignore[arg-type]
    with pytest.raises(GaveUp):
        runner.run()
    assert [status["state"] for status in told] == ["reconnecting", "reconnecting"]
    assert told[0]["message"] == "camera 3: not available, retrying in 0.5 s"
    assert told[1]["message"] == "camera 3: not available, retrying in 1 s"


def test_a_folder_of_one_photo_per_turn_stands_each_photo_for_a_while(tmp_path: Path) -> None:
    for name, level in (("a.png", 10), ("b.png", 200)):
        cv2.imwrite(str(tmp_path / name), np.full((8, 8, 3), level, np.uint8))
    frames = list(ImageFolderSource(tmp_path, fps=10.0, each=0.5))
    assert [f.time for f in frames] == pytest.approx([i / 10 for i in range(10)])
    assert [int(f.image[0, 0, 0]) for f in frames] == [10] * 5 + [200] * 5
