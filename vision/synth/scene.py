"""Scenes and frames: what is on the table, and the picture a camera takes of it.

A :class:`Scene` says everything about the table (position, the stacks beneath,
the art, the camera, a hand, the light); :func:`render_frame` draws it and returns
the image with its ground truth::

    >>> import numpy as np
    >>> scene = random_scene(np.random.default_rng(3), resolution=(640, 360))
    >>> frame = render_frame(scene, 3)
    >>> frame.image.shape, frame.truth.board_corners.shape
    ((360, 640, 3), (4, 2))

Rendering: the table and the board are drawn top-down and cached; a frame warps
them into the ideal pinhole image with one homography each, draws the hand there,
applies light and noise, then bends the picture with the lens distortion
(``cv2.remap``). ``board_corners`` are therefore exact in the *undistorted* image
and ``board_corners_distorted`` in the delivered one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from engine import ALL_TILES, Layout, Position, Tile
from vision.synth.camera import BOARD_CORNERS, Camera, distortion_maps, random_camera
from vision.synth.compose import compose_board
from vision.synth.hands import HandSpec, draw_hand, random_hand
from vision.synth.photo import CLEAN, PhotoEffects, apply_photo_effects, jpeg, sample_photo_effects
from vision.synth.styles import FAMILIES, TRAINING_FAMILIES, Style, sample_style
from vision.synth.table_art import (
    TABLE_ORIGIN,
    TABLE_PX,
    TABLE_SPAN,
    ClutterItem,
    random_clutter,
    table_image,
)

COVERED_FRACTION = 0.2
"""A square counts as covered when the hand hides at least this fraction of it."""
COMMON_SQUARES = ("b2", "b3", "c2", "c3")


@dataclass(frozen=True, eq=False)
class Scene:
    """Everything on and above the table for one picture.

    ``stacks`` holds the tiles beneath each square's top tile, bottom first.
    """

    position: Position
    stacks: Mapping[str, tuple[Tile, ...]]
    camera: Camera
    style: Style
    hand: HandSpec | None = None
    resolution: tuple[int, int] = (1280, 720)
    photo: PhotoEffects = CLEAN
    clutter: tuple[ClutterItem, ...] = ()
    jitter_seed: int = 0  # where exactly each tile lies on its square

    def tiles(self) -> list[Tile]:
        """Every tile on the board, visible or buried."""
        out = [t for t in self.position.squares.values() if t is not None]
        for below in self.stacks.values():
            out.extend(below)
        return out


@dataclass(frozen=True, eq=False)
class FrameTruth:
    """The ground truth of one frame. Pixel coordinates follow OpenCV (pixel centres
    at integers); ``board_corners`` are NW, NE, SE, SW in the undistorted image."""

    position: Position
    stacks: Mapping[str, tuple[Tile, ...]]
    covered: frozenset[str]
    coverage: dict[str, float]
    board_corners: np.ndarray  # 4x2, undistorted image
    board_corners_distorted: np.ndarray  # 4x2, the delivered image
    square_corners: dict[str, np.ndarray]  # 4x2 per square, delivered image
    tile_angles: dict[str, float]  # top tile's rotation, degrees clockwise from north
    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]
    family: str
    camera_pose: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The contract's calibration fields (section 6), the position (section 3) and more."""
        return {
            "image_size": list(self.image_size),
            "camera_matrix": self.camera_matrix.tolist(),
            "dist_coeffs": self.dist_coeffs.tolist(),
            "board_corners": _round(self.board_corners),
            "board_corners_distorted": _round(self.board_corners_distorted),
            "position": self.position.to_json(),
            "stacks": {s: [str(t) for t in below] for s, below in self.stacks.items() if below},
            "covered": sorted(self.covered),
            "coverage": {s: round(v, 4) for s, v in self.coverage.items()},
            "square_corners": {s: _round(c) for s, c in self.square_corners.items()},
            "tile_angles": {s: round(a, 2) for s, a in self.tile_angles.items()},
            "family": self.family,
            "camera_pose": {k: round(v, 4) for k, v in self.camera_pose.items()},
        }


def _round(points: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 3), round(float(y), 3)] for x, y in points]


@dataclass(frozen=True, eq=False)
class Frame:
    """A rendered picture (H x W x 3 BGR uint8), its ground truth, and the hand's mask
    in the delivered image (``None`` without a hand)."""

    image: np.ndarray
    truth: FrameTruth
    hand_mask: np.ndarray | None = None


def board_px_for(resolution: tuple[int, int]) -> int:
    """Side of the top-down board image: enough pixels for the board's size on screen."""
    return 800 if resolution[1] <= 720 else 1100


def random_position(
    rng: np.random.Generator, layout: Layout | None = None
) -> tuple[Position, dict[str, tuple[Tile, ...]]]:
    """A plausible mid-game board: common squares usually filled, some stacks, some gaps."""
    layout = layout or Layout.load()
    pool = list(ALL_TILES)
    order = rng.permutation(len(pool))
    deck = [pool[i] for i in order]
    squares: dict[str, Tile | None] = {}
    stacks: dict[str, tuple[Tile, ...]] = {}
    fill_rate = rng.uniform(0.3, 0.95)
    for square in layout.squares:
        filled = rng.random() < (0.93 if square in COMMON_SQUARES else fill_rate)
        if not filled:
            squares[square] = None
            continue
        depth = int(rng.choice([0, 0, 0, 1, 1, 2, 3])) if rng.random() < 0.6 else 0
        tiles = [deck.pop() for _ in range(depth + 1)]
        squares[square] = tiles[-1]
        if depth:
            stacks[square] = tuple(tiles[:-1])
    return Position(squares, layout), stacks


def random_scene(
    rng: np.random.Generator | int,
    *,
    family: str | None = None,
    hands: bool = False,
    resolution: tuple[int, int] = (1280, 720),
    layout: Layout | None = None,
) -> Scene:
    """A random scene: position, stacks, art (from ``family``, or any training family),
    camera, clutter, light, and with ``hands`` a hand reaching over the board."""
    rng = np.random.default_rng(rng)
    if family is not None and family not in FAMILIES:
        raise ValueError(f"unknown art family {family!r}; families: {', '.join(FAMILIES)}")
    family = family or TRAINING_FAMILIES[int(rng.integers(len(TRAINING_FAMILIES)))]
    style = sample_style(family, rng)
    position, stacks = random_position(rng, layout)
    camera = random_camera(rng, resolution)
    clutter = random_clutter(rng) if rng.random() < 0.6 else ()
    photo = sample_photo_effects(rng, strength=float(rng.uniform(0.3, 1.0)))
    hand = random_hand(rng) if hands else None
    return Scene(
        position=position,
        stacks=stacks,
        camera=camera,
        style=style,
        hand=hand,
        resolution=resolution,
        photo=photo,
        clutter=clutter,
        jitter_seed=int(rng.integers(1 << 30)),
    )


class BoardCache:
    """The last composited top-down board, reused while the board does not change."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._value: tuple[np.ndarray, dict[str, float]] | None = None

    def get(self, scene: Scene, px: int) -> tuple[np.ndarray, dict[str, float]]:
        stacks_key = tuple(sorted((s, tuple(t)) for s, t in scene.stacks.items()))
        key = (
            scene.style,
            id(scene.position.layout),
            scene.position,
            stacks_key,
            scene.jitter_seed,
            px,
        )
        if self._key != key or self._value is None:
            layout = scene.position.layout
            self._value = compose_board(
                scene.style, layout, scene.position, scene.stacks, scene.jitter_seed, px
            )
            self._key = key
        return self._value


_DEFAULT_CACHE = BoardCache()


def render_frame(
    scene: Scene,
    rng: np.random.Generator | int | None = None,
    *,
    flicker: float = 1.0,
    encode_jpeg: bool = True,
    cache: BoardCache | None = None,
) -> Frame:
    """Draw ``scene``; ``rng`` (or a seed) drives the per-frame noise only.

    ``flicker`` scales the light (sequences); ``encode_jpeg=False`` skips the JPEG
    round trip even when the scene's photo effects ask for one.
    """
    rng = np.random.default_rng(rng)
    cache = cache or _DEFAULT_CACHE
    camera = scene.camera
    width, height = scene.resolution
    if camera.image_size != (width, height):
        raise ValueError(f"camera is for {camera.image_size}, scene wants {scene.resolution}")
    px = board_px_for(scene.resolution)
    board, angles = cache.get(scene, px)
    homography = camera.homography()
    # Table first, with its own (coarser) pixel grid, then the board over it.
    table_scale = TABLE_SPAN / TABLE_PX
    table_to_board = np.array(
        [
            [table_scale, 0, TABLE_ORIGIN + table_scale / 2],
            [0, table_scale, TABLE_ORIGIN + table_scale / 2],
            [0, 0, 1],
        ]
    )
    image = cv2.warpPerspective(
        table_image(scene.style, scene.clutter),
        homography @ table_to_board,
        (width, height),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT_101,
    )
    canvas_to_board = np.array([[1 / px, 0, 0.5 / px], [0, 1 / px, 0.5 / px], [0, 0, 1]])
    cv2.warpPerspective(
        board,
        homography @ canvas_to_board,
        (width, height),
        dst=image,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )
    layout = scene.position.layout
    ideal_squares = {
        s: camera.project_board(np.array(layout.rects[s].corners), distorted=False)
        for s in layout.squares
    }
    hand_mask = None
    coverage = {s: 0.0 for s in layout.squares}
    if scene.hand is not None:
        hand_mask = draw_hand(image, camera, scene.hand)
        coverage = square_coverage(hand_mask, ideal_squares)
    if scene.photo is not CLEAN:
        image = apply_photo_effects(image, scene.photo, rng, flicker=flicker)
    maps = distortion_maps(camera)
    if maps is not None:
        image = cv2.remap(
            image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101
        )
        if hand_mask is not None:
            hand_mask = cv2.remap(hand_mask, maps[0], maps[1], cv2.INTER_NEAREST)
    if encode_jpeg:
        image = jpeg(image, scene.photo.jpeg_quality)
    truth = FrameTruth(
        position=scene.position,
        stacks=dict(scene.stacks),
        covered=frozenset(s for s, v in coverage.items() if v >= COVERED_FRACTION),
        coverage=coverage,
        board_corners=camera.project_board(BOARD_CORNERS, distorted=False),
        board_corners_distorted=camera.project_board(BOARD_CORNERS),
        square_corners={
            s: camera.project_board(np.array(layout.rects[s].corners)) for s in layout.squares
        },
        tile_angles=angles,
        camera_matrix=camera.camera_matrix.copy(),
        dist_coeffs=camera.dist_coeffs.copy(),
        image_size=(width, height),
        family=scene.style.family,
        camera_pose={
            "yaw_deg": camera.yaw_deg,
            "tilt_deg": camera.tilt_deg,
            "height_m": camera.height_m,
        },
    )
    return Frame(image=image, truth=truth, hand_mask=hand_mask)


def square_coverage(mask: np.ndarray, squares: Mapping[str, np.ndarray]) -> dict[str, float]:
    """The fraction of each square's outline (pixels, 4x2) that ``mask`` hides."""
    out: dict[str, float] = {}
    h, w = mask.shape
    for square, quad in squares.items():
        x0, y0 = np.floor(quad.min(axis=0)).astype(int)
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 1
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 <= x0 or y1 <= y0:
            out[square] = 0.0
            continue
        local = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(local, [np.round((quad - [x0, y0]) * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
        area = int(local.sum())
        hidden = int(np.count_nonzero(mask[y0:y1, x0:x1][local > 0]))
        out[square] = hidden / area if area else 0.0
    return out
