"""Synthetic images with known truth, for calibration tests and benchmarks.

These are deliberately independent of the table simulator in ``vision/synth`` so the
calibration code can be tested on its own: a pinhole camera with known intrinsics
and distortion looks at a planar picture (the ChArUco target, a marker-framed board,
or a SETUP-like board on a cluttered table)::

    >>> scene = render_board_scene(np.random.default_rng(1))
    >>> scene.image.shape, scene.corners.shape
    ((720, 1280, 3), (4, 2))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine.layout import Edge, Layout

# Four distinct bonus-frame hues (BGR), one per edge S, W, N, E.
EDGE_COLOURS: dict[Edge, tuple[int, int, int]] = {
    Edge.SOUTH: (40, 40, 210),  # red
    Edge.WEST: (60, 170, 40),  # green
    Edge.NORTH: (30, 210, 230),  # yellow
    Edge.EAST: (170, 50, 140),  # purple
}


def camera_matrix(width: int, height: int, focal: float) -> np.ndarray:
    return np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]], np.float64)


def pose(tilt_deg: float, tilt_dir_deg: float, yaw_deg: float) -> np.ndarray:
    """Rotation (3×3) of a plane seen from a camera: yaw about the normal, then a tilt."""
    yaw = math.radians(yaw_deg)
    rz = np.array(
        [[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0], [0, 0, 1]]
    )
    axis = np.array([math.cos(math.radians(tilt_dir_deg)), math.sin(math.radians(tilt_dir_deg)), 0])
    tilt, _ = cv2.Rodrigues(axis * math.radians(tilt_deg))
    return tilt @ rz


def plane_homography(k: np.ndarray, rotation: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Homography from plane coordinates (X, Y, 0) to (undistorted) pixels."""
    h = k @ np.column_stack([rotation[:, 0], rotation[:, 1], t])
    return h / h[2, 2]


def render_plane(
    picture: np.ndarray,
    plane_to_picture: np.ndarray,
    plane_to_pixels: np.ndarray,
    size: tuple[int, int],
    background: np.ndarray | None = None,
    k: np.ndarray | None = None,
    dist: np.ndarray | None = None,
) -> np.ndarray:
    """Photograph ``picture`` (lying on the plane) through a camera with optional distortion.

    For every output pixel the ideal (undistorted) pixel is found with
    ``cv2.undistortPoints``, mapped back onto the plane and into the picture.
    """
    width, height = size
    xs, ys = np.meshgrid(np.arange(width, dtype=np.float32), np.arange(height, dtype=np.float32))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1).reshape(-1, 1, 2)
    if dist is not None and k is not None:
        pts = cv2.undistortPoints(pts, k, dist, P=k)
    to_picture = plane_to_picture @ np.linalg.inv(plane_to_pixels)
    mapped = cv2.perspectiveTransform(pts.astype(np.float64), to_picture).reshape(height, width, 2)
    map_x = mapped[..., 0].astype(np.float32)
    map_y = mapped[..., 1].astype(np.float32)
    if background is None:
        return cv2.remap(picture, map_x, map_y, cv2.INTER_AREA, borderValue=(128, 128, 128))
    out = background.copy()
    cv2.remap(picture, map_x, map_y, cv2.INTER_LINEAR, dst=out, borderMode=cv2.BORDER_TRANSPARENT)
    return out


def charuco_view(
    rng: np.random.Generator,
    k: np.ndarray,
    dist: np.ndarray | None,
    size: tuple[int, int],
    tilt_range: tuple[float, float] = (15.0, 40.0),
) -> np.ndarray:
    """A photo of the lens target at a random pose (board about half the view)."""
    from calibration.lens import SQUARE_MM, SQUARES_X, SQUARES_Y, charuco_board

    px = 80  # pixels per square in the flat picture
    picture = charuco_board().generateImage((SQUARES_X * px, SQUARES_Y * px), marginSize=0)
    picture = cv2.copyMakeBorder(
        picture, px // 2, px // 2, px // 2, px // 2, cv2.BORDER_CONSTANT, value=255
    )
    metres = SQUARE_MM / 1000.0 / px
    # Plane (metres, board centred) -> picture pixels.
    w_m, h_m = SQUARES_X * SQUARE_MM / 1000.0, SQUARES_Y * SQUARE_MM / 1000.0
    plane_to_picture = np.array(
        [
            [1 / metres, 0, w_m / 2 / metres + px // 2],
            [0, 1 / metres, h_m / 2 / metres + px // 2],
            [0, 0, 1],
        ]
    )
    rotation = pose(rng.uniform(*tilt_range), rng.uniform(0, 360), rng.uniform(-20, 20))
    distance = k[0, 0] * w_m / (size[0] * rng.uniform(0.45, 0.65))
    shift = rng.uniform(-0.15, 0.15, 2) * np.array(size) * distance / k[0, 0]
    t = np.array([shift[0], shift[1], distance])
    image = render_plane(
        picture, plane_to_picture, plane_homography(k, rotation, t), size, k=k, dist=dist
    )
    noise = rng.normal(0, 2.0, image.shape)
    return np.clip(image.astype(np.float64) + noise, 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class BoardScene:
    """A rendered frame and its truth: corners NW, NE, SE, SW in pixels."""

    image: np.ndarray
    corners: np.ndarray
    board_to_image: np.ndarray


def board_picture(
    layout: Layout, px: int = 512, rng: np.random.Generator | None = None
) -> np.ndarray:
    """A top-down picture of a SETUP-like board (BGR, ``px`` square)."""
    rng = rng or np.random.default_rng(0)
    base = np.array([120, 70, 30], np.float64) + rng.uniform(-15, 15, 3)  # dark blue-ish
    img = np.empty((px, px, 3), np.uint8)
    img[:] = base.astype(np.uint8)

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[tuple[int, int], tuple[int, int]]:
        return (round(x0 * px), round(y0 * px)), (round(x1 * px) - 1, round(y1 * px) - 1)

    # Score track: small cells around the border (art near the edge, symmetric).
    for i in range(20):
        a = 0.04 + i * 0.046
        for x0, y0 in ((a, 0.035), (a, 0.925), (0.035, a), (0.925, a)):
            p, q = box(x0, y0, x0 + 0.036, y0 + 0.036)
            cv2.rectangle(img, p, q, (150, 110, 70), -1)
    # White lines between joined squares' centres.
    for line in layout.lines:
        a, b = sorted(line)
        ca, cb = layout.rects[a].center, layout.rects[b].center
        pa = (round(ca[0] * px), round(ca[1] * px))
        pb = (round(cb[0] * px), round(cb[1] * px))
        cv2.line(img, pa, pb, (235, 235, 235), max(2, px // 120), cv2.LINE_AA)
    for square in layout.squares:
        r = layout.rects[square]
        owner = layout.owners[square]
        if owner is not None:
            p, q = box(r.x0 - 0.012, r.y0 - 0.012, r.x1 + 0.012, r.y1 + 0.012)
            cv2.rectangle(img, p, q, EDGE_COLOURS[owner], -1)
        p, q = box(r.x0, r.y0, r.x1, r.y1)
        cv2.rectangle(img, p, q, (190, 170, 150), -1)
    return img


def table_texture(rng: np.random.Generator, size: tuple[int, int]) -> np.ndarray:
    """A wood-like table with clutter (cards, mugs, a phone)."""
    width, height = size
    colour = np.array([60, 110, 160], np.float64) + rng.uniform(-30, 30, 3)
    ys = np.arange(height)[:, None]
    xs = np.arange(width)[None, :]
    angle = rng.uniform(0, math.pi)
    grain = np.sin((xs * math.cos(angle) + ys * math.sin(angle)) / rng.uniform(6, 14))
    grain = grain + 0.5 * np.sin((xs * math.cos(angle) + ys * math.sin(angle)) / 37.0)
    img = colour[None, None, :] * (1 + 0.08 * grain[..., None])
    img = np.clip(img, 0, 255).astype(np.uint8)
    for _ in range(rng.integers(3, 8)):
        c = tuple(int(v) for v in rng.integers(0, 255, 3))
        cx, cy = int(rng.integers(0, width)), int(rng.integers(0, height))
        if rng.random() < 0.5:
            w, h = int(rng.integers(40, 160)), int(rng.integers(40, 160))
            rect = ((cx, cy), (w, h), float(rng.uniform(0, 90)))
            cv2.fillPoly(img, [cv2.boxPoints(rect).astype(np.int32)], c, cv2.LINE_AA)
        else:
            cv2.circle(img, (cx, cy), int(rng.integers(20, 70)), c, -1, cv2.LINE_AA)
    return img


def render_board_scene(
    rng: np.random.Generator,
    layout: Layout | None = None,
    size: tuple[int, int] = (1280, 720),
    max_tilt: float = 35.0,
    yaw: float | None = None,
    board_fraction: tuple[float, float] = (0.42, 0.62),
    brightness: float = 1.0,
) -> BoardScene:
    """A SETUP-like board on a cluttered table, photographed at a random pose."""
    layout = layout or Layout.load()
    width, height = size
    px = 512
    picture = board_picture(layout, px, rng)
    k = camera_matrix(width, height, focal=1.0 * width)
    rotation = pose(
        rng.uniform(0, max_tilt), rng.uniform(0, 360), rng.uniform(0, 360) if yaw is None else yaw
    )
    # Board is 1 unit wide; choose distance so its image is a fraction of the frame height.
    distance = k[0, 0] / (height * rng.uniform(*board_fraction))
    # Board coordinates (0..1) centred on the optical axis, then shifted a little.
    centre = np.array([-0.5, -0.5, 0.0])
    shift = rng.uniform(-0.08, 0.08, 2) * np.array([width, height]) * distance / k[0, 0]
    t = rotation @ centre + np.array([shift[0], shift[1], distance])
    board_to_image = plane_homography(k, rotation, t)
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [1, 0], [1, 1], [0, 1]]], np.float64), board_to_image
    ).reshape(4, 2)
    background = table_texture(rng, size)
    plane_to_picture = np.diag([float(px), float(px), 1.0])
    image = render_plane(picture, plane_to_picture, board_to_image, size, background=background)
    # Light falloff and sensor noise.
    ys, xs = np.mgrid[0:height, 0:width]
    gx, gy = rng.uniform(-1, 1, 2)
    light = brightness * (1 + 0.25 * (gx * (xs / width - 0.5) + gy * (ys / height - 0.5)))
    noisy = image.astype(np.float32) * light[..., None].astype(np.float32)
    noisy += rng.normal(0, 3.0, noisy.shape).astype(np.float32)
    image = np.clip(noisy, 0, 255).astype(np.uint8)
    return BoardScene(image, corners, board_to_image)


def render_marker_scene(
    rng: np.random.Generator,
    layout: Layout | None = None,
    size: tuple[int, int] = (1280, 720),
    max_tilt: float = 30.0,
    board_mm: float = 400.0,
) -> BoardScene:
    """A board with the four corner marker cards laid outside its corners."""
    from calibration.markers import MARGIN_MM, MARKER_MM, card_image

    layout = layout or Layout.load()
    width, height = size
    unit_px = 600
    pad = 0.2
    canvas_px = round(unit_px * (1 + 2 * pad))
    picture = np.empty((canvas_px, canvas_px, 3), np.uint8)
    picture[:] = (70, 110, 150)
    off = round(pad * unit_px)
    picture[off : off + unit_px, off : off + unit_px] = board_picture(layout, unit_px, rng)
    marker_px = round(MARKER_MM / board_mm * unit_px)
    margin_px = round(MARGIN_MM / board_mm * unit_px)
    card_px = marker_px + 2 * margin_px
    for marker_id, (cx, cy) in enumerate(((0, 0), (1, 0), (1, 1), (0, 1))):
        card = np.rot90(card_image(marker_id, marker_px, margin_px), int(rng.integers(0, 4)))
        x = off + cx * unit_px - (card_px if cx == 0 else 0)
        y = off + cy * unit_px - (card_px if cy == 0 else 0)
        picture[y : y + card_px, x : x + card_px] = card[..., None]
    k = camera_matrix(width, height, focal=1.0 * width)
    rotation = pose(rng.uniform(0, max_tilt), rng.uniform(0, 360), rng.uniform(0, 360))
    distance = k[0, 0] / (height * rng.uniform(0.42, 0.5))
    t = rotation @ np.array([-0.5, -0.5, 0.0]) + np.array([0.0, 0.0, distance])
    board_to_image = plane_homography(k, rotation, t)
    corners = cv2.perspectiveTransform(
        np.array([[[0, 0], [1, 0], [1, 1], [0, 1]]], np.float64), board_to_image
    ).reshape(4, 2)
    plane_to_picture = np.array([[unit_px, 0, off], [0, unit_px, off], [0, 0, 1]], np.float64)
    image = render_plane(
        picture, plane_to_picture, board_to_image, size, background=table_texture(rng, size)
    )
    noisy = image.astype(np.float32) + rng.normal(0, 2.0, image.shape).astype(np.float32)
    return BoardScene(np.clip(noisy, 0, 255).astype(np.uint8), corners, board_to_image)
