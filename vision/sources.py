"""Where frames come from: a webcam, a video file, a network stream, a folder of
images, or the simulated table. Live sources that drop out are reopened with
backoff, and say so in :attr:`FrameSource.status`.

Every source is iterated the same way::

    >>> source = ImageFolderSource("docs")  # doctest: +SKIP
    >>> for frame in source: ...            # doctest: +SKIP
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff")


@dataclass
class SourceFrame:
    """One image (BGR uint8) and when it was taken (seconds, the source's clock)."""

    image: np.ndarray
    time: float
    truth: Any = None
    """The simulated table's ground truth for this frame (None for real sources)."""
    events: list[Any] = field(default_factory=list)


class FrameSource:
    """Base class: an iterator of :class:`SourceFrame` with a human-readable status."""

    name = "source"
    realtime = False
    """True when frames arrive at their own pace (cameras, the simulated demo)."""

    def __init__(self) -> None:
        self.on_status_change: Callable[[], None] | None = None
        """Called when :attr:`status` changes. A camera that never connects yields no
        frame, so without it the dashboard would say "starting" for ever."""
        self._status: dict[str, Any] = {"state": "starting", "message": f"{self.name}: starting"}

    @property
    def status(self) -> dict[str, Any]:
        return self._status

    @status.setter
    def status(self, status: dict[str, Any]) -> None:
        changed = status != self._status
        self._status = status
        if changed and self.on_status_change is not None:
            self.on_status_change()

    def __iter__(self) -> Iterator[SourceFrame]:
        raise NotImplementedError

    def close(self) -> None:
        """Release the device or file."""


class CaptureSource(FrameSource):
    """An OpenCV capture: webcam index, video file or stream URL.

    Cameras and streams that fail are reopened with exponential backoff (up to
    ``max_backoff_s``); a video file simply ends.
    """

    def __init__(
        self,
        target: int | str,
        *,
        is_file: bool = False,
        max_backoff_s: float = 10.0,
        opener: Callable[[int | str], Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.name = f"camera {target}" if isinstance(target, int) else str(target)
        super().__init__()
        self.target = target
        self.is_file = is_file
        self.realtime = not is_file
        self.max_backoff_s = max_backoff_s
        self._open = opener or cv2.VideoCapture
        self._sleep = sleep
        self._capture: Any = None
        self.reconnects = 0

    def _connect(self) -> bool:
        capture = self._open(self.target)
        if capture is not None and capture.isOpened():
            self._capture = capture
            return True
        return False

    def __iter__(self) -> Iterator[SourceFrame]:
        backoff = 0.5
        start = time.monotonic()
        frame_index = 0
        while True:
            if self._capture is None:
                if self._connect():
                    self.status = {"state": "ok", "message": f"{self.name}: connected"}
                    backoff = 0.5
                elif self.is_file:
                    self.status = {"state": "lost", "message": f"{self.name}: cannot open the file"}
                    return
                else:
                    self.status = {
                        "state": "reconnecting",
                        "message": f"{self.name}: not available, retrying in {backoff:g} s",
                    }
                    self._sleep(backoff)
                    backoff = min(backoff * 2, self.max_backoff_s)
                    self.reconnects += 1
                    continue
            ok, image = self._capture.read()
            if not ok or image is None:
                self._capture.release()
                self._capture = None
                if self.is_file:
                    self.status = {"state": "ended", "message": f"{self.name}: end of video"}
                    return
                self.status = {"state": "reconnecting", "message": f"{self.name}: lost the picture"}
                continue
            if self.is_file:
                fps = self._capture.get(cv2.CAP_PROP_FPS) or 15.0
                stamp = frame_index / fps
            else:
                stamp = time.monotonic() - start
            frame_index += 1
            yield SourceFrame(image, stamp)

    def close(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class ImageFolderSource(FrameSource):
    """Every image in a folder, in name order, as frames ``1/fps`` seconds apart.

    With ``each`` (seconds), each image stands for that long, as a camera watching the
    table would see it, in frames ``1/fps`` apart: a folder of one photo per turn is
    then read as a game whose board stays still between turns."""

    def __init__(self, folder: str | Path, fps: float = 15.0, each: float | None = None) -> None:
        self.name = str(folder)
        super().__init__()
        self.folder = Path(folder)
        self.fps = fps
        self.repeats = 1 if each is None else max(1, round(each * fps))
        if self.folder.is_file():
            raise FileNotFoundError(
                f"{folder}: is a file, not a folder of images (a video is --video)"
            )
        if not self.folder.is_dir():
            raise FileNotFoundError(f"{folder}: no such folder")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise ValueError(f"{folder}: no images in the folder ({', '.join(IMAGE_SUFFIXES)})")

    def __iter__(self) -> Iterator[SourceFrame]:
        self.status = {"state": "ok", "message": f"{self.name}: {len(self.paths)} images"}
        for index, path in enumerate(self.paths):
            try:
                image = cv2.imread(str(path))
            except cv2.error:  # over OpenCV's pixel limit
                image = None
            if image is None:
                continue  # not a readable image: skip it, as a camera drops a frame
            for repeat in range(self.repeats):
                yield SourceFrame(image, (index * self.repeats + repeat) / self.fps)
        self.status = {"state": "ended", "message": f"{self.name}: all images read"}
