"""Ink for the drawn art: text as a mask of ink, and a colour blended through a mask.

The tile faces (:mod:`vision.synth.tile_art`) and the board's art
(:mod:`vision.synth.board_art`) are drawn with both; masks are float32 in 0..1::

    >>> import numpy as np
    >>> mask = text_mask("10", None, 20)
    >>> mask.shape[0], mask.dtype.name
    (20, 'float32')
    >>> image = np.zeros((40, 40, 3), np.float32)
    >>> stamp(image, np.ones((4, 4), np.float32), (20, 20), (255, 0, 0))
    >>> float(image[18:22, 18:22, 0].min()), float(image[..., 0].sum()) == 16 * 255
    (255.0, True)
"""

from __future__ import annotations

import functools

import cv2
import numpy as np
from PIL import Image, ImageDraw

from vision.synth.fonts import load_font
from vision.synth.styles import BGR


@functools.lru_cache(maxsize=2048)
def text_mask(text: str, font_path: str | None, height: int) -> np.ndarray:
    """A float32 mask of ``text`` whose ink is ``height`` px tall (width follows)."""
    if font_path is None:
        return _hershey_mask(text, height)
    font = load_font(font_path, 200)
    left, top, right, bottom = font.getbbox(text)
    canvas = Image.new("L", (right - left + 8, bottom - top + 8))
    ImageDraw.Draw(canvas).text((4 - left, 4 - top), text, font=font, fill=255)
    ink = np.asarray(canvas)
    return _fit_height(ink, height)


def _hershey_mask(text: str, height: int) -> np.ndarray:
    canvas = np.zeros((260, 200 * max(1, len(text))), np.uint8)
    cv2.putText(canvas, text, (10, 220), cv2.FONT_HERSHEY_DUPLEX, 6.0, 255, 14, cv2.LINE_AA)
    return _fit_height(canvas, height)


def _fit_height(ink: np.ndarray, height: int) -> np.ndarray:
    rows = np.flatnonzero(ink.max(axis=1) > 0)
    cols = np.flatnonzero(ink.max(axis=0) > 0)
    if rows.size == 0:
        return np.zeros((height, 1), np.float32)
    ink = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    width = max(1, round(ink.shape[1] * height / ink.shape[0]))
    resized = cv2.resize(ink, (width, height), interpolation=cv2.INTER_AREA)
    return resized.astype(np.float32) / 255.0


def stamp(image: np.ndarray, mask: np.ndarray, center: tuple[float, float], colour: BGR) -> None:
    """Blend ``colour`` through ``mask`` into ``image`` (BGR float), centred at ``center``."""
    h, w = mask.shape
    x0, y0 = round(center[0] - w / 2), round(center[1] - h / 2)
    fx0, fy0 = max(0, x0), max(0, y0)
    fx1, fy1 = min(image.shape[1], x0 + w), min(image.shape[0], y0 + h)
    if fx1 <= fx0 or fy1 <= fy0:
        return
    alpha = mask[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0, None]
    region = image[fy0:fy1, fx0:fx1]
    region[:] = region * (1 - alpha) + np.array(colour, np.float32) * alpha
