"""How blurred a photo of the board is, in the tile reader's pixels.

An enrolment learns a tile set from its photos. Photos out of focus teach it blurred
tiles, and it then reads a sharp game doubtfully: enrolled from photos blurred by 2 px,
16 held-out sets left 27% of sharp frames' still squares "?" (by 1.5 px: 8%; by 1 px:
0.4%), though 14 of them read their photos back well enough to be taken
(models/HISTORY.md, "Session 43"). So enrolment measures each photo's blur first, and
refuses a blurred one.

The blur is measured on the board's grid, seen from above at the scale the reader sees
it (:data:`READER_BOARD_PX`), so that a large board with some blur in pixels counts as
sharp as the reader finds it. It is read off how much of the grid's gradient energy one
more Gaussian blur of :data:`PROBE_PX` takes away: a lone edge already blurred by σ
keeps σ/√(σ² + B²) of it, whatever its contrast, which gives σ back. Edges close
together, pixel noise and the art's fine print move the figure (noise makes a photo
look a little sharper than it is), so it is a scale set on measured photos
(:data:`BLURRED_PX`) rather than the lens's exact blur.
"""

from __future__ import annotations

import cv2
import numpy as np

READER_BOARD_PX = 494
"""The board's width as the reader sees it: its 84-px crops span 0.17 board units."""

GRID = (0.16, 0.84)
"""The part of the board measured (board units): the grid, where the tiles lie, and a
little of its rim; outside it the board's art may be smooth or plain."""

PROBE_PX = 2.0
"""The extra blur whose effect on the edges tells their own blur."""

BLURRED_PX = 1.8
"""A photo blurred more than this (reader pixels) is refused for enrolment. The
simulator's photos (a camera's own blur of up to 1.3 px, boards 256-900 px wide, 720p
and 1080p) measured 0.40-1.59 over 1,000 photos of two art families; blurred by 2 px
more, each of 8 held-out sets had a photo over 2.0; by 1.5 px, 6 of the 8
(models/HISTORY.md, "Session 43")."""

SOFT_PX = 1.5
"""A photo blurred more than this, up to :data:`BLURRED_PX`, is taken with a note that a
sharper one would teach the set better: a held-out set enrolled from five photos at 1.7
left 5% of sharp frames' still squares "?", at 1.3 none. Four of the simulator's 1,000
photos measured over it."""


def focus_verdict(blur_px: float) -> str:
    """A picture's blur in words: "sharp", "a little soft" or "blurred".

    >>> [focus_verdict(b) for b in (0.7, 1.6, 2.4)]
    ['sharp', 'a little soft', 'blurred']
    """
    if blur_px > BLURRED_PX:
        return "blurred"
    return "a little soft" if blur_px > SOFT_PX else "sharp"


def photo_blur_px(image: np.ndarray, corners: np.ndarray) -> float:
    """The blur (a Gaussian's σ, in the reader's pixels) of ``image``'s board, whose
    corners are ``corners`` (NW, NE, SE, SW, in the image's pixels).

    >>> rng = np.random.default_rng(0)
    >>> board = np.kron(rng.integers(0, 2, (50, 50)), np.ones((10, 10))).astype(np.uint8) * 200
    >>> corners = np.array([[0, 0], [500, 0], [500, 500], [0, 500]], np.float64)
    >>> sharp = photo_blur_px(board, corners)
    >>> blurred = photo_blur_px(cv2.GaussianBlur(board, (0, 0), 3), corners)
    >>> sharp < 1.0 < BLURRED_PX < blurred
    True
    """
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    side = READER_BOARD_PX
    top_down = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    homography = cv2.getPerspectiveTransform(np.float32(corners), top_down)
    board = cv2.warpPerspective(grey, homography, (side, side), flags=cv2.INTER_LINEAR)
    low, high = (round(side * edge) for edge in GRID)
    # A half-pixel blur first: pixel noise and the warp's aliasing are not edges.
    grid = cv2.GaussianBlur(board[low:high, low:high].astype(np.float32), (0, 0), 0.5)
    kept = _gradient_energy(cv2.GaussianBlur(grid, (0, 0), PROBE_PX)) / max(
        _gradient_energy(grid), 1e-6
    )
    kept = min(kept, 0.999)  # a board with no edges at all: as blurred as can be told
    return float(PROBE_PX * kept / np.sqrt(1 - kept * kept))


def _gradient_energy(picture: np.ndarray) -> float:
    dx = cv2.Sobel(picture, cv2.CV_32F, 1, 0)
    dy = cv2.Sobel(picture, cv2.CV_32F, 0, 1)
    return float((dx * dx + dy * dy).mean())
