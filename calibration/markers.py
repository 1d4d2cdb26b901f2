"""Board registration with four printed ArUco markers, one at each board corner.

Print the sheet (``setupcam calibrate markers --out markers.pdf``), cut out the
four cards along the dashed lines and lay each one *outside* its board corner,
diagonally: one corner of the card touches the board's corner and the card's
edges continue the board's two edges. Which way up the marker lies on its card
does not matter; only which corner it sits at (the label: ``NW corner`` etc.).

Geometry: a card is the black marker (``MARKER_MM``) plus a white margin
(``MARGIN_MM``) all round. The marker corner nearest the middle of the four
markers is its *inner* corner; the board corner is one margin further along the
card's diagonal, computed through the marker's own perspective::

    >>> location = find_board_by_markers(frame)   # doctest: +SKIP
    >>> location.method, location.orientation_source  # doctest: +SKIP
    ('markers', 'markers')
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.board_location import BoardLocation, convex_clockwise
from calibration.printed_page import DPI, mm_to_px, write_page

DICTIONARY = cv2.aruco.DICT_4X4_50  # distinct from the lens target's DICT_5X5_100
MARKER_IDS = {0: "NW", 1: "NE", 2: "SE", 3: "SW"}
MARKER_MM = 40.0
MARGIN_MM = 8.0  # white quiet zone around the marker, part of the card
A4_PORTRAIT_MM = (210.0, 297.0)


def _detector() -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(DICTIONARY), params)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """One marker, black border included, ``side_px`` square (grey)."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return cv2.aruco.generateImageMarker(dictionary, marker_id, side_px)


def card_image(marker_id: int, marker_px: int, margin_px: int) -> np.ndarray:
    """A card: the marker with its white margin (what is cut out and laid down)."""
    card = np.full((marker_px + 2 * margin_px,) * 2, 255, np.uint8)
    card[margin_px : margin_px + marker_px, margin_px : margin_px + marker_px] = marker_image(
        marker_id, marker_px
    )
    return card


def render_marker_page() -> np.ndarray:
    """The printable A4 portrait sheet: four labelled cards with dashed cut lines."""
    page_w, page_h = mm_to_px(A4_PORTRAIT_MM[0]), mm_to_px(A4_PORTRAIT_MM[1])
    page = np.full((page_h, page_w), 255, np.uint8)
    marker_px, margin_px = mm_to_px(MARKER_MM), mm_to_px(MARGIN_MM)
    card_px = marker_px + 2 * margin_px
    gap_x = (page_w - 2 * card_px) // 3
    gap_y = (page_h - 2 * card_px) // 3
    font = cv2.FONT_HERSHEY_SIMPLEX
    for marker_id, corner in MARKER_IDS.items():
        row, col = divmod(marker_id, 2)
        if marker_id == 2:
            col = 1  # SE sits bottom-right, SW bottom-left: the sheet mirrors the board
        if marker_id == 3:
            col = 0
        x0 = gap_x + col * (card_px + gap_x)
        y0 = gap_y + row * (card_px + gap_y)
        page[y0 : y0 + card_px, x0 : x0 + card_px] = card_image(marker_id, marker_px, margin_px)
        _dashed_rect(page, x0 - 1, y0 - 1, x0 + card_px, y0 + card_px)
        label = f"{corner} corner (id {marker_id})"
        cv2.putText(page, label, (x0, y0 + card_px + 60), font, 1.6, 0, 3, cv2.LINE_AA)
    lines = [
        "setupcam board markers - print at 100%, cut along the dashed lines.",
        "Lay each card outside its board corner: one card corner on the board corner,",
        "card edges in line with the board edges. Keep them flat and uncovered.",
    ]
    for i, text in enumerate(lines):
        cv2.putText(
            page, text, (gap_x, page_h - gap_y // 2 + i * 55 - 60), font, 1.2, 0, 2, cv2.LINE_AA
        )
    return page


def _dashed_rect(page: np.ndarray, x0: int, y0: int, x1: int, y1: int, dash: int = 30) -> None:
    for a, b in (
        ((x0, y0), (x1, y0)),
        ((x1, y0), (x1, y1)),
        ((x1, y1), (x0, y1)),
        ((x0, y1), (x0, y0)),
    ):
        length = int(np.hypot(b[0] - a[0], b[1] - a[1]))
        for s in range(0, length, 2 * dash):
            e = min(length, s + dash)
            p = (a[0] + (b[0] - a[0]) * s // length, a[1] + (b[1] - a[1]) * s // length)
            q = (a[0] + (b[0] - a[0]) * e // length, a[1] + (b[1] - a[1]) * e // length)
            cv2.line(page, p, q, 0, 3)


def write_marker_sheet(path: str | Path) -> None:
    """Write the printable marker sheet (``.png`` at 300 dpi or ``.pdf``), A4 portrait."""
    write_page(render_marker_page(), path)


def detect_corner_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The corner markers seen in ``image``: id -> its four corners (4×2, marker order)."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(grey)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        if int(marker_id) in MARKER_IDS and int(marker_id) not in found:
            found[int(marker_id)] = quad.reshape(4, 2).astype(np.float64)
    return found


def missing_markers(image: np.ndarray) -> list[str]:
    """Names of the corners whose marker is not visible (for error messages)."""
    seen = detect_corner_markers(image)
    return [name for marker_id, name in MARKER_IDS.items() if marker_id not in seen]


def _board_corner(quad: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """The board corner next to one marker: its card's inner corner, in pixels."""
    inner = int(np.argmin(np.linalg.norm(quad - centre, axis=1)))
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    h = cv2.getPerspectiveTransform(unit.astype(np.float32), quad.astype(np.float32))
    m = MARGIN_MM / MARKER_MM
    card_corner = unit[inner] + m * (2 * unit[inner] - 1)  # one margin further, diagonally
    return cv2.perspectiveTransform(card_corner.reshape(1, 1, 2), h).reshape(2)


def find_board_by_markers(image: np.ndarray) -> BoardLocation | None:
    """The board from its four corner markers, or ``None`` unless all four are seen.

    Orientation comes from the marker ids (id 0 is the north-west corner).
    """
    seen = detect_corner_markers(image)
    if len(seen) < 4:
        return None
    centre = np.mean([q.mean(axis=0) for q in seen.values()], axis=0)
    corners = np.array([_board_corner(seen[i], centre) for i in range(4)])
    if not convex_clockwise(corners):
        return None  # markers swapped or laid at the wrong corners
    return BoardLocation.from_corners(corners, "markers", 1.0, "markers")


__all__ = [
    "DPI",
    "MARKER_IDS",
    "detect_corner_markers",
    "find_board_by_markers",
    "missing_markers",
    "write_marker_sheet",
]
