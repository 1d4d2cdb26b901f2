"""The Enrol page's photos on disk, so that a crash or a restart loses none of them.

Each photo the guide takes is written at once as ``photoN.png`` (the camera's
frame, lossless) and ``photoN.json`` (the plan photo it shows, the board's corners
as the tiles lie, and the quarter turn found). The folder sits beside the
enrolment it is for (``enrollment.npz`` -> ``enrollment-photos/``) and is emptied
once the set is learnt: the enrolment keeps what it needs of them.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.atomic_file import replaced_atomically
from engine import Layout, Position
from vision.enrollment import EnrollmentSample


@dataclass(frozen=True)
class TakenPhoto:
    """A photo read back from the folder: the sample, and how the board lay."""

    sample: EnrollmentSample
    turn: int


class GuidePhotos:
    """The photos of one enrolment in progress, one pair of files per plan photo."""

    def __init__(self, enrollment_path: Path) -> None:
        self.folder = enrollment_path.with_name(enrollment_path.stem + "-photos")

    def keep(self, index: int, sample: EnrollmentSample, turn: int) -> None:
        """Write photo ``index`` (from 0); ``OSError`` if it cannot be written."""
        self.folder.mkdir(parents=True, exist_ok=True)
        ok, png = cv2.imencode(".png", sample.image)
        if not ok:
            raise OSError("cannot encode the photo as PNG")
        about = {
            "photo": index + 1,
            "turn": turn,
            "corners": np.asarray(sample.corners, np.float64).tolist(),
            "position": sample.position.to_json(),
        }
        # Picture first, description last: a description always has its picture.
        _write_atomically(self._png(index), png.tobytes())
        _write_atomically(self._json(index), json.dumps(about, ensure_ascii=False).encode())

    def taken(self, plan: list[Position], layout: Layout) -> dict[int, TakenPhoto]:
        """The photos in the folder that show the plan's photos, by plan index. A file
        that cannot be read, or shows another plan, is passed over."""
        photos: dict[int, TakenPhoto] = {}
        for index, planned in enumerate(plan):
            try:
                about = json.loads(self._json(index).read_text("utf-8"))
                position = Position.from_json(about["position"], layout)
                corners = np.asarray(about["corners"], np.float64).reshape(4, 2)
                turn = int(about["turn"])
                image = cv2.imread(str(self._png(index)), cv2.IMREAD_COLOR)
            except (OSError, ValueError, KeyError, TypeError):
                continue
            if image is None or position != planned or not 0 <= turn < 4:
                continue
            sample = EnrollmentSample(image, corners, position, f"photo {index + 1}")
            photos[index] = TakenPhoto(sample, turn)
        return photos

    def forget(self, index: int) -> None:
        for path in (self._json(index), self._png(index)):
            path.unlink(missing_ok=True)

    def clear(self, photos: int) -> None:
        """Forget photos ``0 .. photos - 1``, and the folder if nothing else is in it."""
        for index in range(photos):
            self.forget(index)
        # Absent, or holding the user's own files: then it is left as it is.
        with contextlib.suppress(OSError):
            self.folder.rmdir()

    def _png(self, index: int) -> Path:
        return self.folder / f"photo{index + 1}.png"

    def _json(self, index: int) -> Path:
        return self.folder / f"photo{index + 1}.json"


def _write_atomically(path: Path, data: bytes) -> None:
    with replaced_atomically(path) as handle:
        handle.write(data)
