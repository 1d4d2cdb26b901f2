"""Motion over the board: a hand arriving, tiles being pushed, the board bumped.

Each frame the board is warped to a small grey thumbnail through the current
board location and compared with the previous frame's, block by block. Camera
shake of a pixel or two barely changes the blurred thumbnail; a hand does::

    >>> import numpy as np
    >>> detector = MotionDetector()
    >>> corners = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], float)
    >>> still = np.full((400, 400, 3), 90, np.uint8)
    >>> detector.update(still, corners), detector.update(still, corners)
    (False, False)
    >>> moved = still.copy(); moved[150:250, 150:250] = 250
    >>> detector.update(moved, corners)
    True
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.board_view import board_homography

THUMB_PX = 48
BLOCK_PX = 8
BLOCK_THRESHOLD = 10.0
"""Mean grey change (0-255) in one 8x8 block of the thumbnail that counts as motion."""


class MotionDetector:
    """Compares each frame's board thumbnail with the previous one."""

    def __init__(self, threshold: float = BLOCK_THRESHOLD) -> None:
        self.threshold = threshold
        self._previous: np.ndarray | None = None
        self.level = 0.0
        """The largest block change of the last frame (for the dashboard and tuning)."""

    def reset(self) -> None:
        self._previous = None

    def update(self, image: np.ndarray, corners: np.ndarray) -> bool:
        """True when the board changed visibly since the previous frame."""
        scale = np.array(
            [[1 / THUMB_PX, 0, 0.5 / THUMB_PX], [0, 1 / THUMB_PX, 0.5 / THUMB_PX], [0, 0, 1]]
        )
        m = board_homography(corners) @ scale
        grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        thumb = cv2.warpPerspective(
            grey, m, (THUMB_PX, THUMB_PX), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP
        )
        thumb = cv2.GaussianBlur(thumb, (3, 3), 0).astype(np.float32)
        previous, self._previous = self._previous, thumb
        if previous is None:
            self.level = 0.0
            return False
        diff = np.abs(thumb - previous)
        blocks = diff.reshape(THUMB_PX // BLOCK_PX, BLOCK_PX, THUMB_PX // BLOCK_PX, BLOCK_PX)
        self.level = float(blocks.mean(axis=(1, 3)).max())
        return self.level > self.threshold
