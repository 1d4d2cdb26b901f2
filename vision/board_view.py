"""Top-down views of the board: the whole board, or one small crop per square.

Both map the board's outer corners (NW, NE, SE, SW, in pixels) to the unit square
of board coordinates (x east, y south, origin north-west), so a crop is the same
picture whatever the camera's angle::

    >>> import numpy as np
    >>> from engine import Layout
    >>> image = np.zeros((720, 1280, 3), np.uint8)
    >>> corners = np.array([[400, 100], [900, 100], [900, 600], [400, 600]], float)
    >>> warp_board(image, corners, 256).shape
    (256, 256, 3)
    >>> square_crops(image, corners, Layout.load(), 48).shape
    (12, 48, 48, 3)

Crops are taken straight from the frame, one small perspective warp per square
(about 0.2 ms for all 12 at 720p, against ~2 ms for warping the whole board
first). Each crop covers ``CROP_SPAN`` board units around the square's centre,
a little more than the 0.14-wide square, because tiles lie slightly off-centre
and turned.
"""

from __future__ import annotations

import cv2
import numpy as np

from engine.layout import Layout

CROP_SPAN = 0.17
"""Width of a square's crop in board units (the square itself is 0.14)."""

UNIT_CORNERS = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)


def board_homography(corners: np.ndarray) -> np.ndarray:
    """The 3x3 map from board units (unit square) to image pixels.

    >>> h = board_homography(np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float))
    >>> np.round(h @ [0.5, 0.5, 1], 6).tolist()
    [5.0, 5.0, 1.0]
    """
    quad = np.asarray(corners, np.float64).reshape(4, 2)
    h = cv2.getPerspectiveTransform(UNIT_CORNERS.astype(np.float32), quad.astype(np.float32))
    return h / h[2, 2]


def _pixels_to_units(px: int, x0: float, y0: float, span: float) -> np.ndarray:
    """Output pixel (centres at integers) -> board units, for a px-wide view of a
    ``span``-wide region whose north-west corner is (x0, y0)."""
    s = span / px
    return np.array([[s, 0, x0 + s / 2], [0, s, y0 + s / 2], [0, 0, 1]], np.float64)


def warp_board(image: np.ndarray, corners: np.ndarray, px: int) -> np.ndarray:
    """The whole board seen from above, ``px`` x ``px`` pixels, north at the top.

    >>> img = np.full((100, 100, 3), 7, np.uint8)
    >>> warp_board(img, np.array([[10, 10], [90, 10], [90, 90], [10, 90]], float), 32)[0, 0]
    array([7, 7, 7], dtype=uint8)
    """
    m = board_homography(corners) @ _pixels_to_units(px, 0.0, 0.0, 1.0)
    return cv2.warpPerspective(
        image,
        m,
        (px, px),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE,
    )


def _supersample(image: np.ndarray, h: np.ndarray, region: tuple[float, float, float], px: int):
    """How many output pixels per crop pixel keep bilinear sampling from aliasing:
    about one source pixel per sample, capped at 3."""
    x0, y0, span = region
    pts = np.array([[x0, y0, 1], [x0 + span, y0, 1], [x0, y0 + span, 1]], np.float64)
    img = (h @ pts.T).T
    img = img[:, :2] / img[:, 2:3]
    side = max(np.linalg.norm(img[1] - img[0]), np.linalg.norm(img[2] - img[0]))
    return int(np.clip(np.round(side / px), 1, 3))


def square_crops(
    image: np.ndarray,
    corners: np.ndarray,
    layout: Layout,
    crop_px: int,
    span: float = CROP_SPAN,
) -> np.ndarray:
    """One top-down crop per square, shape (n_squares, crop_px, crop_px, 3), in
    ``layout.squares`` order. North of the board is at the top of every crop.

    When a square spans many more image pixels than ``crop_px``, it is warped at
    2-3x the size and area-averaged down, so thin strokes do not alias away.

    >>> from engine import Layout
    >>> img = np.zeros((400, 400, 3), np.uint8)
    >>> crops = square_crops(img, np.array([[0, 0], [399, 0], [399, 399], [0, 399]], float),
    ...                      Layout.load(), 32)
    >>> crops.shape, crops.dtype
    ((12, 32, 32, 3), dtype('uint8'))
    """
    h = board_homography(corners)
    out = np.empty((len(layout.squares), crop_px, crop_px, *image.shape[2:]), np.uint8)
    for i, name in enumerate(layout.squares):
        cx, cy = layout.rects[name].center
        region = (cx - span / 2, cy - span / 2, span)
        factor = _supersample(image, h, region, crop_px)
        size = crop_px * factor
        m = h @ _pixels_to_units(size, *region)
        warped = cv2.warpPerspective(
            image,
            m,
            (size, size),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        if factor > 1:
            warped = cv2.resize(warped, (crop_px, crop_px), interpolation=cv2.INTER_AREA)
        out[i] = warped.reshape(out.shape[1:])
    return out
