"""Tile faces seen straight from above: one card tile drawn in one :class:`Style`.

Faces are BGRA (alpha is the rounded card outline) and cached per (tile, style),
because a frame composites the same few faces over and over::

    >>> import numpy as np
    >>> from engine import Tile
    >>> from vision.synth.styles import sample_style
    >>> face = tile_face(Tile.parse("7h"), sample_style("bold", np.random.default_rng(1)))
    >>> face.shape, face.dtype.name
    ((160, 160, 4), 'uint8')
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from engine import Suit, Tile
from vision.synth.ink import stamp, text_mask
from vision.synth.shapes import suit_shape_mask
from vision.synth.styles import BGR, Style

TILE_PX = 160
"""Side of a rendered tile face in pixels."""

_SUIT_INDEX = {suit: i for i, suit in enumerate(Suit)}

# Pip centres (x, y in 0..1 of the pip area) for values 1..10, like playing cards.
_PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.5, 0.0), (0.5, 1.0)],
    3: [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    4: [(0, 0), (1, 0), (0, 1), (1, 1)],
    5: [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    6: [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    7: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    8: [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    9: [(0, 0), (1, 0), (0, 1 / 3), (1, 1 / 3), (0.5, 0.5), (0, 2 / 3), (1, 2 / 3), (0, 1), (1, 1)],
    10: [
        (0, 0),
        (1, 0),
        (0.5, 1 / 6),
        (0, 1 / 3),
        (1, 1 / 3),
        (0, 2 / 3),
        (1, 2 / 3),
        (0.5, 5 / 6),
        (0, 1),
        (1, 1),
    ],
}


def _suit_mask(suit: Suit, style: Style, height: int) -> np.ndarray:
    if style.suit_mode == "glyph" and style.suit_font is not None:
        return text_mask(suit.symbol, style.suit_font, height)
    return suit_shape_mask(suit, height)


def _value_mask(value: int, style: Style, height: int) -> np.ndarray:
    mask = text_mask(str(value), style.number_font, height)
    if style.underline_69 and value in (6, 9):
        # 6 and 9 look alike upside down: a bar under the digit tells them apart.
        bar = max(2, height // 10)
        padded = np.zeros((height + 2 * bar, mask.shape[1]), np.float32)
        padded[:height] = mask
        padded[height + bar :, :] = 1.0
        return padded
    return mask


def _rounded_alpha(size: int, radius: int) -> np.ndarray:
    big = size * 4
    r = radius * 4
    canvas = np.zeros((big, big), np.uint8)
    cv2.rectangle(canvas, (r, 0), (big - 1 - r, big - 1), 255, -1)
    cv2.rectangle(canvas, (0, r), (big - 1, big - 1 - r), 255, -1)
    for cx in (r, big - 1 - r):
        for cy in (r, big - 1 - r):
            cv2.circle(canvas, (cx, cy), r, 255, -1)
    return cv2.resize(canvas, (size, size), interpolation=cv2.INTER_AREA)


@functools.lru_cache(maxsize=1024)
def tile_face(tile: Tile, style: Style, size: int = TILE_PX) -> np.ndarray:
    """The face of ``tile`` in ``style``: ``size`` x ``size`` BGRA uint8 (read-only, cached)."""
    suit_colour = style.suit_bgr[_SUIT_INDEX[tile.suit]]
    number_colour = style.number_bgr or suit_colour
    face = np.empty((size, size, 3), np.float32)
    face[:] = style.card_bgr
    radius = round(style.corner_frac * size)
    if style.marker:
        # Geometry tests: a flat card with only a small central mark.
        stamp(face, _value_mask(tile.value, style, size // 5), (size / 2, size / 2), (0, 0, 0))
        return _finish(face, size, radius)
    s = size
    layout = style.face_layout
    if layout == "split":
        band = np.zeros((s, s), np.float32)
        band[: round(0.42 * s)] = 1.0
        stamp(face, band, (s / 2, s / 2), suit_colour)
        stamp(face, _suit_mask(tile.suit, style, round(0.3 * s)), (s / 2, 0.22 * s), style.card_bgr)
        stamp(
            face, _value_mask(tile.value, style, round(0.36 * s)), (s / 2, 0.70 * s), number_colour
        )
    elif layout == "corner_center":
        stamp(face, _suit_mask(tile.suit, style, round(0.42 * s)), (s / 2, s / 2), suit_colour)
    elif layout == "big_number":
        stamp(
            face, _value_mask(tile.value, style, round(0.44 * s)), (s / 2, 0.44 * s), number_colour
        )
        stamp(face, _suit_mask(tile.suit, style, round(0.2 * s)), (s / 2, 0.8 * s), suit_colour)
    elif layout == "corner_big":
        stamp(
            face,
            _value_mask(tile.value, style, round(0.4 * s)),
            (0.36 * s, 0.32 * s),
            number_colour,
        )
        stamp(
            face, _suit_mask(tile.suit, style, round(0.36 * s)), (0.66 * s, 0.68 * s), suit_colour
        )
    elif layout == "pips":
        pip = round(0.13 * s)
        left, right, top, bottom = 0.36 * s, 0.64 * s, 0.2 * s, 0.8 * s
        for px, py in _PIPS[tile.value]:
            centre = (left + px * (right - left), top + py * (bottom - top))
            stamp(face, _suit_mask(tile.suit, style, pip), centre, suit_colour)
    if style.corner_indices or layout in ("corner_center", "pips"):
        _corner_index(face, tile, style, number_colour, suit_colour)
    if style.border_frac > 0:
        inset = max(1, round(style.border_frac * s))
        width = max(1, round(style.border_frac * s * 0.8))
        outline = np.zeros((s, s), np.uint8)
        cv2.rectangle(
            outline, (inset, inset), (s - 1 - inset, s - 1 - inset), 255, width, cv2.LINE_AA
        )
        stamp(face, outline.astype(np.float32) / 255.0, (s / 2, s / 2), style.border_bgr)
    return _finish(face, size, radius)


def _corner_index(face: np.ndarray, tile: Tile, style: Style, number: BGR, suit: BGR) -> None:
    """Value over a small suit in the top-left corner, and the same turned 180° bottom-right."""
    s = face.shape[0]
    value = _value_mask(tile.value, style, round(0.17 * s))
    symbol = _suit_mask(tile.suit, style, round(0.12 * s))
    x = 0.15 * s
    for flip in (False, True):
        v, m = (value[::-1, ::-1], symbol[::-1, ::-1]) if flip else (value, symbol)
        vy, my = 0.14 * s, 0.31 * s
        if flip:
            stamp(face, v, (s - x, s - vy), number)
            stamp(face, m, (s - x, s - my), suit)
        else:
            stamp(face, v, (x, vy), number)
            stamp(face, m, (x, my), suit)


def _finish(face: np.ndarray, size: int, radius: int) -> np.ndarray:
    out = np.empty((size, size, 4), np.uint8)
    out[..., :3] = np.clip(face, 0, 255).astype(np.uint8)
    out[..., 3] = _rounded_alpha(size, max(1, radius))
    out.flags.writeable = False
    return out
