"""The table under the board, seen from above: texture, the board's shadow, clutter.

The table image covers board units ``TABLE_ORIGIN .. TABLE_ORIGIN + TABLE_SPAN`` on
both axes (the board is the unit square in the middle), at ``TABLE_PX`` pixels::

    >>> import numpy as np
    >>> from vision.synth.styles import sample_style
    >>> rng = np.random.default_rng(0)
    >>> table = table_image(sample_style("neon", rng), random_clutter(rng))
    >>> table.shape
    (1400, 1400, 3)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.styles import BGR, Style
from vision.synth.textures import texture

TABLE_ORIGIN = -3.0
TABLE_SPAN = 7.0
TABLE_PX = 1400
CLUTTER_KINDS = ("cup", "card", "pencil", "notebook", "coaster")


@dataclass(frozen=True)
class ClutterItem:
    """Something lying on the table beside the board; position and size in board units."""

    kind: str
    x: float
    y: float
    angle_deg: float
    size: float
    colour: BGR


def random_clutter(rng: np.random.Generator, max_items: int = 4) -> tuple[ClutterItem, ...]:
    """0..``max_items`` objects around (never on) the board."""
    items = []
    for _ in range(int(rng.integers(0, max_items + 1))):
        kind = CLUTTER_KINDS[int(rng.integers(len(CLUTTER_KINDS)))]
        size = {"cup": 0.28, "card": 0.3, "pencil": 0.55, "notebook": 0.7, "coaster": 0.33}[kind]
        size *= float(rng.uniform(0.8, 1.2))
        # Beside the board: pick a side, then a spot clear of the board's edge.
        side = int(rng.integers(4))
        along = float(rng.uniform(-0.3, 1.3))
        away = float(rng.uniform(0.08, 0.5)) + size / 2
        x, y = [(along, 1 + away), (-away, along), (along, -away), (1 + away, along)][side]
        # Everyday objects: mostly muted colours, halfway to grey.
        colour = tuple(int(0.55 * c + 0.45 * 128) for c in rng.integers(20, 250, 3))
        items.append(ClutterItem(kind, x, y, float(rng.uniform(0, 360)), size, colour))  # type: ignore[arg-type]
    return tuple(items)


def _to_px(x: float, y: float) -> tuple[float, float]:
    scale = TABLE_PX / TABLE_SPAN
    return ((x - TABLE_ORIGIN) * scale - 0.5, (y - TABLE_ORIGIN) * scale - 0.5)


def _box(item: ClutterItem, width: float, height: float) -> np.ndarray:
    scale = TABLE_PX / TABLE_SPAN
    centre = _to_px(item.x, item.y)
    rect = (centre, (width * scale, height * scale), item.angle_deg)
    return (cv2.boxPoints(rect) * 16).astype(np.int32)


def _soft_shadow(img: np.ndarray, points: np.ndarray, offset: tuple[int, int], blur: int) -> None:
    """Darken ``img`` under the blurred polygon ``points`` (1/16 px) moved by ``offset``."""
    points = points + np.array(offset, np.int32) * 16
    # Only the window around the shadow: the blur's kernel fits in the margin, so every
    # pixel sees the neighbourhood it saw in the whole table, and the rest stays as it
    # is (a factor of exactly 1). Byte for byte the whole-table result; a table image
    # takes 70 ms instead of 155 (models/HISTORY.md, "Session 26").
    margin = 4 * blur + 2
    height, width = img.shape[:2]
    x0, y0 = np.maximum(points.min(axis=0) // 16 - margin, 0)
    x1, y1 = np.minimum(points.max(axis=0) // 16 + margin + 2, (width, height))
    if x0 >= x1 or y0 >= y1:
        return
    window = img[y0:y1, x0:x1]
    mask = np.zeros(window.shape[:2], np.uint8)
    cv2.fillPoly(mask, [points - np.array([x0, y0], np.int32) * 16], 255, cv2.LINE_AA, 4)
    mask = cv2.GaussianBlur(mask, (0, 0), blur)
    window[:] = (window * (1 - 0.45 * mask[..., None].astype(np.float32) / 255)).astype(np.uint8)


@functools.lru_cache(maxsize=16)
def table_image(style: Style, clutter: tuple[ClutterItem, ...] = ()) -> np.ndarray:
    """The top-down table (BGR uint8, read-only, cached)."""
    rng = np.random.default_rng(style.variant + 1)
    img = texture(style.table_texture, style.table_bgr, style.table_bgr2, (TABLE_PX, TABLE_PX), rng)
    if style.marker:
        img[:] = style.table_bgr
        img.flags.writeable = False
        return img
    scale = TABLE_PX / TABLE_SPAN
    # The board's own shadow on the table.
    x0, y0 = _to_px(0.0, 0.0)
    x1, y1 = _to_px(1.0, 1.0)
    board = (np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]) * 16).astype(np.int32)
    _soft_shadow(img, board, (3, 4), 4)
    for item in clutter:
        colour = item.colour
        if item.kind in ("cup", "coaster"):
            cx, cy = _to_px(item.x, item.y)
            r = item.size * scale / 2
            centre = (round(cx * 16), round(cy * 16))
            angles = np.linspace(0, 2 * np.pi, 40, endpoint=False)
            outline = np.column_stack([cx + r * np.cos(angles), cy + r * np.sin(angles)])
            _soft_shadow(img, (outline * 16).astype(np.int32), (5, 6), 4)
            cv2.circle(img, centre, round(r * 16), colour, -1, cv2.LINE_AA, 4)
            if item.kind == "cup":
                inner = tuple(int(c * 0.8) for c in colour)
                cv2.circle(img, centre, round(r * 0.82 * 16), inner, -1, cv2.LINE_AA, 4)
                drink = (20, 45, 70) if rng.random() < 0.6 else (200, 200, 200)
                cv2.circle(img, centre, round(r * 0.7 * 16), drink, -1, cv2.LINE_AA, 4)
                highlight = (round((cx - r * 0.35) * 16), round((cy - r * 0.35) * 16))
                cv2.circle(
                    img, highlight, round(r * 0.12 * 16), (235, 235, 235), -1, cv2.LINE_AA, 4
                )
        elif item.kind == "pencil":
            points = _box(item, item.size, 0.025)
            _soft_shadow(img, points, (3, 3), 2)
            cv2.fillPoly(img, [points], colour, cv2.LINE_AA, 4)
        else:  # card, notebook: a sheet with a few lines of "text"
            aspect = 0.7 if item.kind == "card" else 0.75
            points = _box(item, item.size * aspect, item.size)
            _soft_shadow(img, points, (3, 4), 3)
            paper = (235, 238, 240) if item.kind == "card" else colour
            cv2.fillPoly(img, [points], paper, cv2.LINE_AA, 4)
            if item.kind == "card":
                for k in range(5):
                    t = 0.2 + 0.12 * k
                    a = (points[0] * (1 - t) + points[1] * t).astype(np.int32)
                    b = (points[3] * (1 - t) + points[2] * t).astype(np.int32)
                    a2 = (a * 0.85 + b * 0.15).astype(np.int32)
                    b2 = (a * 0.2 + b * 0.8).astype(np.int32)
                    cv2.line(img, tuple(a2), tuple(b2), (90, 90, 90), 2, cv2.LINE_AA, 4)
    img.flags.writeable = False
    return img
