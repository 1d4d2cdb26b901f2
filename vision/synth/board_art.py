"""The board seen straight from above, without tiles: art, score track, lines, frames.

The image covers the board's unit square (contract section 2) at ``px`` pixels a
side; pixel ``(u, v)`` has its centre at board point ``((u + 0.5) / px, (v + 0.5) / px)``.
White lines join the centres of joined squares (drawn under the squares, so they
show in the gaps); each bonus square gets a frame in the colour of its edge::

    >>> import numpy as np
    >>> from engine import Layout
    >>> from vision.synth.styles import sample_style
    >>> board = board_image(sample_style("classic", np.random.default_rng(0)), Layout.load(), 400)
    >>> board.shape
    (400, 400, 3)
"""

from __future__ import annotations

import functools
import math

import cv2
import numpy as np

from engine import Edge, Layout, Rect
from vision.synth.fonts import font_pool
from vision.synth.ink import stamp, text_mask
from vision.synth.styles import Style
from vision.synth.textures import texture

_EDGE_INDEX = {edge: i for i, edge in enumerate(Edge)}
TRACK_SPACES = 32  # 0 (the SETUP space) .. 31, the 2-player finish line
FINISH_LINES = {31: 2, 27: 3, 23: 4}  # space -> number of players it ends


def rect_pixels(rect: Rect, px: int) -> tuple[int, int, int, int]:
    """Pixel index ranges (u0, v0, u1, v1), end-exclusive, whose centres lie inside ``rect``."""
    u0 = math.ceil(rect.x0 * px - 0.5)
    v0 = math.ceil(rect.y0 * px - 0.5)
    u1 = math.floor(rect.x1 * px - 0.5) + 1
    v1 = math.floor(rect.y1 * px - 0.5) + 1
    return u0, v0, u1, v1


def _pt(x: float, y: float, px: int) -> tuple[int, int]:
    """A board point as cv2 fixed-point coordinates (shift 4)."""
    return (round((x * px - 0.5) * 16), round((y * px - 0.5) * 16))


def track_spaces() -> list[tuple[float, float, float, float]]:
    """Score-track boxes (x0, y0, x1, y1) clockwise round the board from the SETUP space.

    Space 0 is the south-west corner; the track runs east along the south edge,
    north along the east edge, west along the north edge and south along the west edge.
    """
    lo, hi, depth = 0.03, 0.97, 0.085
    per_side = TRACK_SPACES // 4
    step = (hi - lo - depth) / per_side  # each side leaves its last corner to the next side
    boxes = []
    for i in range(per_side):
        boxes.append((lo + i * step, hi - depth, lo + (i + 1) * step, hi))
    for i in range(per_side):
        boxes.append((hi - depth, hi - (i + 1) * step, hi, hi - i * step))
    for i in range(per_side):
        boxes.append((hi - (i + 1) * step, lo, hi - i * step, lo + depth))
    for i in range(per_side):
        boxes.append((lo, lo + i * step, lo + depth, lo + (i + 1) * step))
    return boxes


_BOARD_CACHE: dict[tuple[Style, int, int], tuple[Layout, np.ndarray]] = {}
_BOARD_CACHE_SIZE = 64


def board_image(style: Style, layout: Layout, px: int) -> np.ndarray:
    """The top-down board art, ``px`` x ``px`` BGR uint8 (read-only, cached)."""
    # Layouts hold dicts (unhashable): key on identity and keep the layout alive with it.
    key = (style, id(layout), px)
    hit = _BOARD_CACHE.get(key)
    if hit is not None and hit[0] is layout:
        return hit[1]
    if len(_BOARD_CACHE) >= _BOARD_CACHE_SIZE:
        _BOARD_CACHE.pop(next(iter(_BOARD_CACHE)))
    board = _draw_board(style, layout, px)
    _BOARD_CACHE[key] = (layout, board)
    return board


def _draw_board(style: Style, layout: Layout, px: int) -> np.ndarray:
    if style.marker:
        board = np.zeros((px, px, 3), np.uint8)
        for square in layout.squares:
            u0, v0, u1, v1 = rect_pixels(layout.rects[square], px)
            board[v0:v1, u0:u1] = 255
        board.flags.writeable = False
        return board
    rng = np.random.default_rng(style.variant)
    board = texture(style.board_texture, style.board_bgr, style.panel_bgr, (px, px), rng)
    img = board.astype(np.float32)
    # The central panel the grid sits on.
    panel = np.zeros((px, px), np.uint8)
    cv2.rectangle(panel, _pt(0.15, 0.15, px), _pt(0.85, 0.85, px), 255, -1, cv2.LINE_AA, 4)
    stamp(img, panel.astype(np.float32) / 255 * 0.8, (px / 2, px / 2), style.panel_bgr)
    _draw_track(img, style, px)
    board = np.clip(img, 0, 255).astype(np.uint8)
    # White lines between joined squares, under the squares.
    width = max(2, round(style.line_frac * px))
    for pair in sorted(tuple(sorted(p)) for p in layout.lines):
        a, b = (layout.rects[s].center for s in pair)
        cv2.line(board, _pt(*a, px), _pt(*b, px), style.line_bgr, width, cv2.LINE_AA, 4)
    # Square slots and the bonus frames.
    frame = max(2, round(style.frame_frac * px))
    for square in layout.squares:
        rect = layout.rects[square]
        owner = layout.owners[square]
        if owner is not None:
            colour = style.player_bgr[_EDGE_INDEX[owner]]
            g = 0.006
            cv2.rectangle(
                board, _pt(rect.x0 - g, rect.y0 - g, px), _pt(rect.x1 + g, rect.y1 + g, px),
                colour, frame, cv2.LINE_AA, 4,
            )  # fmt: skip
        cv2.rectangle(
            board, _pt(rect.x0, rect.y0, px), _pt(rect.x1, rect.y1, px), style.slot_bgr,
            -1, cv2.LINE_AA, 4,
        )  # fmt: skip
    _draw_title(board, style, px)
    board.flags.writeable = False
    return board


def _draw_track(img: np.ndarray, style: Style, px: int) -> None:
    font = _track_font()
    gap = 0.002
    for number, (x0, y0, x1, y1) in enumerate(track_spaces()):
        fill = style.player_bgr[0] if number == 0 else style.track_bgr
        corner_a, corner_b = _pt(x0 + gap, y0 + gap, px), _pt(x1 - gap, y1 - gap, px)
        cv2.rectangle(img, corner_a, corner_b, fill, -1, cv2.LINE_AA, 4)
        centre = ((x0 + x1) / 2 * px, (y0 + y1) / 2 * px)
        height = max(4, round(0.028 * px))
        if number in FINISH_LINES:
            # Finish lines are marked with symbols: dots for the number of players.
            players = FINISH_LINES[number]
            for k in range(players):
                offset = (k - (players - 1) / 2) * 0.018 * px
                where = (round(centre[0] + offset), round(centre[1]))
                radius = max(2, round(0.006 * px))
                cv2.circle(img, where, radius, style.track_ink_bgr, -1, cv2.LINE_AA)
            continue
        label = "SETUP" if number == 0 else str(number)
        mask = text_mask(label, font, height if number else max(3, height // 2))
        stamp(img, mask, centre, (255, 255, 255) if number == 0 else style.track_ink_bgr)


def _draw_title(board: np.ndarray, style: Style, px: int) -> None:
    img = board.astype(np.float32)
    mask = text_mask("SETUP", _track_font(), round(0.03 * px))
    # In the empty corner cells of the grid (a4 and d1), like a printed logo.
    stamp(img, mask, (0.25 * px, 0.25 * px), style.line_bgr)
    stamp(img, mask[::-1, ::-1], (0.75 * px, 0.75 * px), style.line_bgr)
    board[:] = np.clip(img, 0, 255).astype(np.uint8)


@functools.cache
def _track_font() -> str | None:
    fonts = font_pool()["sans_bold"] or font_pool()["sans"]
    return fonts[0] if fonts else None
