"""Where the board lies in one camera image: :class:`BoardLocation`.

However the board was registered (found automatically by
:func:`calibration.board_finder.find_board`, from four printed markers by
:func:`calibration.markers.find_board_by_markers`, or from the user's four corners by
:func:`manual_board`), the rest of setupcam sees one thing: its four corners and the
homography between board units and pixels.

    >>> loc = manual_board([(100, 100), (500, 100), (500, 500), (100, 500)])
    >>> loc.to_image([(0.5, 0.5)]).tolist(), loc.width_px()
    ([[300.0, 300.0]], 400.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from engine.layout import Layout

UNIT_CORNERS = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)


class BoardNotFound(Exception):
    """The board could not be located; ``reason`` says why in words.

    >>> str(BoardNotFound("too dark: mean brightness 12/255"))
    'too dark: mean brightness 12/255'
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def board_width_px(corners: np.ndarray) -> float:
    """Mean length of a board outline's four sides in pixels.

    >>> board_width_px(np.array([[0, 0], [300, 0], [300, 200], [0, 200]], float))
    250.0
    """
    corners = np.asarray(corners, np.float64)
    return float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, 0), axis=1)))


@dataclass(frozen=True, eq=False)
class BoardLocation:
    """Where the board is in one (undistorted) image.

    ``corners`` are NW, NE, SE, SW in pixels; ``board_to_image`` maps board units
    (unit square, x east, y south) to pixels and ``image_to_board`` back.
    ``method`` is ``"auto"``, ``"markers"`` or ``"manual"``; ``orientation_source``
    says how south was decided (``"signature"``, ``"seats"``, ``"nearest-edge"``, ``"markers"``,
    ``"manual"`` or ``"tracked"``).

        >>> loc = manual_board([(100, 100), (500, 100), (500, 500), (100, 500)])
        >>> loc.to_image([(0.5, 0.5)]).tolist()
        [[300.0, 300.0]]
    """

    corners: np.ndarray
    board_to_image: np.ndarray
    image_to_board: np.ndarray
    method: str
    confidence: float = 1.0
    orientation_source: str = "manual"

    @classmethod
    def from_corners(
        cls,
        corners: Any,
        method: str,
        confidence: float = 1.0,
        orientation_source: str = "manual",
    ) -> BoardLocation:
        quad = np.asarray(corners, np.float64).reshape(4, 2)
        h = cv2.getPerspectiveTransform(UNIT_CORNERS.astype(np.float32), quad.astype(np.float32))
        h = h / h[2, 2]
        quad.setflags(write=False)
        return cls(quad, h, np.linalg.inv(h), method, float(confidence), orientation_source)

    def to_image(self, board_points: Any) -> np.ndarray:
        """Board units -> pixels (N×2)."""
        pts = np.asarray(board_points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.board_to_image).reshape(-1, 2)

    def to_board(self, image_points: Any) -> np.ndarray:
        """Pixels -> board units (N×2)."""
        pts = np.asarray(image_points, np.float64).reshape(-1, 1, 2)
        return cv2.perspectiveTransform(pts, self.image_to_board).reshape(-1, 2)

    def square_quads(self, layout: Layout) -> dict[str, np.ndarray]:
        """Each square's outline in pixels (4×2, NW NE SE SW of the square)."""
        names = list(layout.squares)
        pts = [c for name in names for c in layout.rects[name].corners]
        img = self.to_image(pts).reshape(len(names), 4, 2)
        return dict(zip(names, img, strict=True))

    def width_px(self) -> float:
        """Mean length of the board's sides in pixels."""
        return board_width_px(self.corners)

    def rotated(self, quarter_turns: int, orientation_source: str) -> BoardLocation:
        """The same outline with south moved ``quarter_turns`` edges clockwise."""
        quad = np.roll(self.corners, -quarter_turns, axis=0)
        return BoardLocation.from_corners(quad, self.method, self.confidence, orientation_source)

    def corners_list(self) -> list[list[float]]:
        return [[round(float(x), 2), round(float(y), 2)] for x, y in self.corners]


MIN_SIDE_PX = 20.0
"""The shortest side a board's outline may have: under it, no square can be read, and
four points that close together are a slip of the hand, not a board."""


def manual_board(corners: Any) -> BoardLocation:
    """A location from four user-given corners NW, NE, SE, SW (pixels).

    Raises ``ValueError`` when the points are not a board's outline
    (:func:`outline_problem`).

        >>> manual_board([(0, 0), (100, 0), (100, 100), (0, 100)]).method
        'manual'
    """
    quad = np.asarray(corners, np.float64)
    if quad.shape != (4, 2) or not np.all(np.isfinite(quad)):
        raise ValueError("give exactly four corners x,y (finite numbers): NW, NE, SE, SW")
    problem = outline_problem(quad)
    if problem is not None:
        raise ValueError(problem)
    return BoardLocation.from_corners(quad, "manual", 1.0, "manual")


def outline_problem(quad: np.ndarray) -> str | None:
    """Why four finite points NW, NE, SE, SW are not a board's outline, or ``None``.

    >>> outline_problem(np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float))
    "the outline's shortest side is 1 px: a board's are at least 20 px"
    """
    if not convex_clockwise(quad):
        return (
            "the four corners must go NW, NE, SE, SW around the board (clockwise on screen) "
            "and form a convex outline"
        )
    shortest = float(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1).min())
    if shortest < MIN_SIDE_PX:
        return (
            f"the outline's shortest side is {shortest:.0f} px: "
            f"a board's are at least {MIN_SIDE_PX:.0f} px"
        )
    return None


def _cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))


def convex_clockwise(quad: np.ndarray) -> bool:
    """Clockwise on screen (y down) means every turn has a positive cross product."""
    return all(_cross(quad[i], quad[(i + 1) % 4], quad[(i + 2) % 4]) > 0 for i in range(4))


def corner_error(found: Sequence[Sequence[float]], truth: Sequence[Sequence[float]]) -> float:
    """Largest corner distance in pixels (corners in the same NW, NE, SE, SW order)."""
    return float(np.max(np.linalg.norm(np.asarray(found) - np.asarray(truth), axis=1)))
