"""The top-down board with its tiles: where each tile lies, and the composited image.

Each tile lies on its square turned by a multiple of 90° plus a few degrees and a
little off-centre; tiles beneath a stack are more askew, so their edges show. A
tile's pose comes from a hash of (``jitter_seed``, square, tile, depth), so the same
tile stays put from frame to frame of a sequence::

    >>> pose = tile_pose(7, "b2", Tile.parse("5h"), 0)
    >>> pose == tile_pose(7, "b2", Tile.parse("5h"), 0)
    True
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from engine import Layout, Position, Tile
from vision.synth.board_art import board_image
from vision.synth.styles import Style
from vision.synth.tile_art import TILE_PX, tile_face


@dataclass(frozen=True)
class TilePose:
    """How a tile lies on its square: ``angle_deg`` clockwise from the board's north
    (seen from above) and an offset of its centre from the square's, in board units."""

    angle_deg: float
    dx: float
    dy: float


def tile_pose(jitter_seed: int, square: str, tile: Tile, depth: int) -> TilePose:
    """The pose of ``tile`` on ``square``; ``depth`` 0 is the top of the stack."""
    digest = hashlib.blake2b(f"{jitter_seed}|{square}|{tile}|{depth}".encode(), digest_size=8)
    rng = np.random.default_rng(int.from_bytes(digest.digest(), "little"))
    quarter = 90.0 * int(rng.integers(4))
    wobble = 3.0 if depth == 0 else 7.0
    shift = 0.004 if depth == 0 else 0.009
    angle = quarter + float(np.clip(rng.normal(0, wobble / 2), -wobble, wobble))
    dx, dy = (float(v) for v in np.clip(rng.normal(0, shift, 2), -2.5 * shift, 2.5 * shift))
    return TilePose(angle, dx, dy)


def _paste_tile(
    canvas: np.ndarray, face: np.ndarray, centre: tuple[float, float], side: float, angle: float,
    edge_bgr: tuple[int, int, int],
) -> None:  # fmt: skip
    """Rotate, scale and blend a BGRA face into ``canvas`` with its edge and soft shadow."""
    half = math.ceil(side * 0.75) + 6
    cx, cy = centre
    x0, y0 = round(cx) - half, round(cy) - half
    size = 2 * half
    h, w = canvas.shape[:2]
    if x0 < 0 or y0 < 0 or x0 + size > w or y0 + size > h:
        return
    scale = side / TILE_PX
    # Rotation clockwise on screen (y down) by ``angle``: OpenCV's positive is counter-clockwise.
    matrix = cv2.getRotationMatrix2D(((TILE_PX - 1) / 2, (TILE_PX - 1) / 2), -angle, scale)
    matrix[0, 2] += (cx - x0) - (TILE_PX - 1) / 2
    matrix[1, 2] += (cy - y0) - (TILE_PX - 1) / 2
    warped = cv2.warpAffine(face, matrix, (size, size), flags=cv2.INTER_LINEAR)
    alpha = warped[..., 3].astype(np.float32) / 255
    roi = canvas[y0 : y0 + size, x0 : x0 + size].astype(np.float32)
    # A soft shadow down and to the right, then the tile's edge (its thickness) showing below.
    lift = max(1.0, side * 0.025)
    shift = np.float32([[1, 0, lift * 1.6], [0, 1, lift * 2.0]])
    shadow = cv2.GaussianBlur(cv2.warpAffine(alpha, shift, (size, size)), (0, 0), lift * 1.2)
    roi *= 1 - 0.5 * shadow[..., None]
    edge = cv2.warpAffine(alpha, np.float32([[1, 0, lift * 0.6], [0, 1, lift * 0.8]]), (size, size))
    roi += (np.array(edge_bgr, np.float32) - roi) * edge[..., None]
    roi += (warped[..., :3].astype(np.float32) - roi) * alpha[..., None]
    canvas[y0 : y0 + size, x0 : x0 + size] = np.clip(roi, 0, 255).astype(np.uint8)


def compose_board(
    style: Style,
    layout: Layout,
    position: Position,
    stacks: Mapping[str, tuple[Tile, ...]],
    jitter_seed: int,
    px: int,
) -> tuple[np.ndarray, dict[str, float]]:
    """The board image with every stack drawn, and each top tile's angle by square."""
    canvas = board_image(style, layout, px).copy()
    angles: dict[str, float] = {}
    for square in layout.squares:
        top = position[square]
        below = tuple(stacks.get(square, ()))
        if top is None:
            continue
        rect = layout.rects[square]
        side = style.tile_scale * (rect.x1 - rect.x0) * px
        tiles = [*below, top]
        for depth_from_top, tile in zip(range(len(tiles) - 1, -1, -1), tiles, strict=True):
            pose = tile_pose(jitter_seed, square, tile, depth_from_top)
            cx = (rect.center[0] + pose.dx) * px - 0.5
            cy = (rect.center[1] + pose.dy) * px - 0.5
            _paste_tile(
                canvas, tile_face(tile, style), (cx, cy), side, pose.angle_deg, style.edge_bgr
            )
            if depth_from_top == 0:
                angles[square] = pose.angle_deg % 360
    return canvas, angles
