"""The photos a tile set is enrolled from, kept in its enrolment file.

An enrolment's heads read one pair of networks' features. A network trained anew (a
better reader, a faster one) cannot read an enrolment fitted on another, and until
session 34 the user had to photograph the set again. So the enrolment file keeps each
photo's board: the part of the picture every crop is cut from, losslessly (PNG), with
its corners and the position it shows, and the layout that names the squares. From
them :func:`vision.enrollment.enrolled_again` learns the same set on new networks in a
second or two, as ``setupcam enroll`` did (models/HISTORY.md, "Session 34").

    >>> image = np.zeros((720, 1280, 3), np.uint8)
    >>> corners = np.array([[500, 200], [800, 200], [800, 500], [500, 500]], float)
    >>> sample = EnrollmentSample(image, corners, Position.empty())
    >>> board = board_region(sample)
    >>> board.image.shape, board.corners[0].tolist()
    ((390, 390, 3), [45.0, 45.0])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.board_location import board_width_px
from engine import Layout, Position

MARGIN = 0.15
"""Picture kept around the board's outline, in board widths, on each side. The shipped
networks' crops lie within the outline (a square's crop spans 0.17 of the board around
its centre, the outer squares' centres are 0.26 of the board from its edge, and
enrolment moves the corners by a fraction of a percent); the margin leaves room for
networks that look wider."""

PNG_COMPRESSION = 3
"""OpenCV's PNG compression level (0-9), lossless at every level: 5 photos' boards take
2.67 MB in 0.18 s at 3, and 2.48 MB in 2.8 s at 9 (session 34)."""


@dataclass(frozen=True)
class EnrollmentSample:
    """One enrolment photo: the image (undistorted), the board's corners (NW, NE, SE,
    SW) and the position shown."""

    image: np.ndarray
    corners: np.ndarray
    position: Position
    name: str = "photo"


def board_region(sample: EnrollmentSample, margin: float = MARGIN) -> EnrollmentSample:
    """``sample`` cut to its board and ``margin`` board widths around it (within the
    picture), its corners moved with it: the same crops, from a fraction of the pixels."""
    corners = np.asarray(sample.corners, np.float64)
    height, width = sample.image.shape[:2]
    around = margin * board_width_px(corners)
    x0, y0 = np.maximum(np.floor(corners.min(axis=0) - around), 0).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0) + around).astype(int)
    x1, y1 = min(int(x1), width), min(int(y1), height)
    image = np.ascontiguousarray(sample.image[y0:y1, x0:x1])
    return EnrollmentSample(image, corners - (x0, y0), sample.position, sample.name)


def layout_description(layout: Layout) -> dict[str, Any]:
    """``layout`` as its JSON file gives it (:meth:`engine.Layout.from_dict` reads it
    back)."""
    return {
        "name": layout.name,
        "squares": {
            square: {
                "rect": [rect.x0, rect.y0, rect.x1, rect.y1],
                "owner": None if layout.owners[square] is None else layout.owners[square].value,
            }
            for square, rect in ((s, layout.rects[s]) for s in layout.squares)
        },
        "lines": sorted(sorted(line) for line in layout.lines),
    }


@dataclass(frozen=True, eq=False)
class KeptPhotos:
    """The boards of the photos an enrolment was learnt from, and the layout naming
    their squares."""

    samples: tuple[EnrollmentSample, ...]
    layout: Layout

    @classmethod
    def of(cls, samples: Sequence[EnrollmentSample], layout: Layout) -> KeptPhotos:
        """The photos' boards (:func:`board_region`)."""
        return cls(tuple(board_region(s) for s in samples), layout)

    def arrays(self) -> dict[str, np.ndarray]:
        """The boards as PNG bytes, one array per photo, for the enrolment file."""
        out = {}
        for i, sample in enumerate(self.samples):
            settings = [cv2.IMWRITE_PNG_COMPRESSION, PNG_COMPRESSION]
            ok, png = cv2.imencode(".png", sample.image, settings)
            if not ok:
                raise ValueError(f"{sample.name}: the photo cannot be kept as PNG")
            out[f"photo_{i}"] = png
        return out

    def description(self) -> dict[str, Any]:
        """What the file's metadata keeps of them: the layout, and per photo its name,
        corners and position."""
        return {
            "layout": layout_description(self.layout),
            "photos": [
                {
                    "name": s.name,
                    "corners": np.asarray(s.corners, np.float64).tolist(),
                    "position": s.position.to_json(),
                }
                for s in self.samples
            ],
        }

    @classmethod
    def from_file(cls, arrays: Mapping[str, np.ndarray], description: Any) -> KeptPhotos:
        """The photos from an enrolment file's arrays and metadata (``ValueError`` if
        they do not belong together)."""
        try:
            layout = Layout.from_dict(description["layout"], origin="the enrolment's layout")
            samples = []
            for i, kept in enumerate(description["photos"]):
                image = cv2.imdecode(arrays[f"photo_{i}"], cv2.IMREAD_COLOR)
                if image is None:
                    raise ValueError(f"photo {i} is not an image")
                position = Position.from_json(kept["position"], layout, origin=f"photo {i}")
                corners = np.array(kept["corners"], np.float64).reshape(4, 2)
                samples.append(EnrollmentSample(image, corners, position, str(kept["name"])))
        except (KeyError, TypeError) as err:
            raise ValueError(f"the kept photos are incomplete ({err})") from None
        return cls(tuple(samples), layout)
