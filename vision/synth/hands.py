"""Hands and arms reaching over the board, drawn in 3-D so they show parallax.

A hand is a few polygons (forearm, sleeve, palm, thumb, four fingers) laid out in
metres along the arm's direction, rising from the fingertips towards the elbow,
projected through the camera and filled with shaded skin. It returns its mask, so
the scene knows which squares it hides::

    >>> import numpy as np
    >>> from vision.synth.camera import random_camera
    >>> rng = np.random.default_rng(0)
    >>> camera = random_camera(rng, (320, 180))
    >>> image = np.zeros((180, 320, 3), np.uint8)
    >>> mask = draw_hand(image, camera, random_hand(rng))
    >>> mask.shape, bool(mask.any())
    ((180, 320), True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from engine import Edge
from vision.synth.camera import Camera
from vision.synth.styles import BGR

SKIN_TONES: tuple[BGR, ...] = (
    (185, 205, 240),
    (150, 180, 225),
    (120, 155, 205),
    (95, 130, 180),
    (70, 100, 145),
    (45, 65, 100),
)
"""From very light to very dark skin (BGR)."""
SLEEVE_COLOURS: tuple[BGR, ...] = (
    (40, 40, 40),  # black
    (120, 120, 120),  # grey
    (225, 225, 225),  # white
    (110, 70, 40),  # denim
    (70, 35, 25),  # navy
    (40, 30, 110),  # maroon
    (60, 100, 90),  # olive
    (140, 170, 190),  # beige
    (60, 60, 170),  # red
    (150, 110, 60),  # teal-blue
)

# Unit vector from each edge into the board (board units, y south).
_INWARD = {
    Edge.SOUTH: (0.0, -1.0),
    Edge.NORTH: (0.0, 1.0),
    Edge.WEST: (1.0, 0.0),
    Edge.EAST: (-1.0, 0.0),
}


@dataclass(frozen=True)
class HandSpec:
    """One hand and forearm. ``target`` is where the fingertips are (board units)."""

    edge: Edge  # the side the arm comes from (the player's seat)
    target: tuple[float, float]
    height_m: float  # fingertips above the board
    skin_bgr: BGR
    sleeve_bgr: BGR
    sleeve_from_m: float  # sleeve starts this far back from the fingertips
    scale: float = 1.0
    yaw_deg: float = 0.0  # arm direction, relative to straight in from the edge
    spread: float = 0.5  # 0 fingers together, 1 spread
    right_hand: bool = True


def random_hand(
    rng: np.random.Generator, *, edge: Edge | None = None, target: tuple[float, float] | None = None
) -> HandSpec:
    """A hand from a random (or given) edge, over a random (or given) board point."""
    edge = edge or list(Edge)[int(rng.integers(4))]
    if target is None:
        target = (float(rng.uniform(0.15, 0.85)), float(rng.uniform(0.15, 0.85)))
    skin = SKIN_TONES[int(rng.integers(len(SKIN_TONES)))]
    skin = tuple(int(np.clip(c + rng.integers(-12, 13), 0, 255)) for c in skin)
    return HandSpec(
        edge=edge,
        target=target,
        height_m=float(rng.uniform(0.01, 0.12)),
        skin_bgr=skin,  # type: ignore[arg-type]
        sleeve_bgr=tuple(
            int(np.clip(c + rng.integers(-15, 16), 0, 255))
            for c in SLEEVE_COLOURS[int(rng.integers(len(SLEEVE_COLOURS)))]
        ),  # type: ignore[arg-type]
        sleeve_from_m=float(rng.uniform(0.17, 0.4)),
        scale=float(rng.uniform(0.85, 1.1)),
        yaw_deg=float(rng.uniform(-35, 35)),
        spread=float(rng.uniform(0, 1)),
        right_hand=bool(rng.random() < 0.85),
    )


def _capsule(a0: float, b0: float, a1: float, b1: float, r0: float, r1: float) -> np.ndarray:
    """Outline of a tapered capsule from (a0, b0) to (a1, b1) in hand coordinates (metres)."""
    da, db = a1 - a0, b1 - b0
    length = math.hypot(da, db) or 1e-6
    ua, ub = da / length, db / length
    base = math.atan2(ub, ua)
    points = []
    for t in np.linspace(-math.pi / 2, math.pi / 2, 7):  # round end at (a1, b1)
        points.append((a1 + r1 * math.cos(base + t), b1 + r1 * math.sin(base + t)))
    for t in np.linspace(math.pi / 2, 3 * math.pi / 2, 7):  # round end at (a0, b0)
        points.append((a0 + r0 * math.cos(base + t), b0 + r0 * math.sin(base + t)))
    return np.array(points)


def hand_parts(spec: HandSpec) -> list[tuple[np.ndarray, str]]:
    """The hand's polygons in hand coordinates (a forward, b sideways; metres) and their
    material (``skin`` or ``sleeve``), in drawing order."""
    s = spec.scale
    side = 1.0 if spec.right_hand else -1.0
    spread = 0.004 + 0.012 * spec.spread
    parts: list[tuple[np.ndarray, str]] = []
    # Forearm from the wrist back past the elbow (far out of the picture).
    parts.append((_capsule(-0.16 * s, 0.0, -0.9, 0.0, 0.06, 0.03 * s), "skin"))
    sleeve_start = -max(spec.sleeve_from_m, 0.17 * s)
    parts.append((_capsule(sleeve_start, 0.0, -0.95, 0.0, 0.075, 0.042 * s), "sleeve"))
    # Palm: a rounded quad from the wrist to the knuckles.
    palm = []
    for t in np.linspace(0, 2 * math.pi, 20, endpoint=False):
        a = -0.125 * s + 0.05 * s * math.cos(t)
        b = 0.043 * s * math.sin(t) * (1.0 if math.cos(t) > 0 else 0.9)
        palm.append((a, b))
    parts.append((np.array(palm), "skin"))
    # Thumb along the side of the palm, pointing forward-out.
    parts.append(
        (
            _capsule(
                -0.14 * s, side * 0.03 * s, -0.085 * s, side * 0.065 * s, 0.014 * s, 0.011 * s
            ),
            "skin",
        )
    )
    # Four fingers: middle longest; knuckles across the front of the palm.
    lengths = (0.062, 0.075, 0.08, 0.072)  # little, ring, middle, index
    for k, length in enumerate(lengths):
        b0 = side * (-0.03 + 0.02 * k) * s
        b1 = b0 + side * (k - 1.5) * spread
        a0 = -0.085 * s
        parts.append((_capsule(a0, b0, a0 + length * s, b1, 0.0095 * s, 0.008 * s), "skin"))
    return parts


def _heights(spec: HandSpec, a: np.ndarray) -> np.ndarray:
    """Height above the board along the arm: low at the fingertips, rising to the elbow."""
    back = np.maximum(0.0, -a)
    return spec.height_m + 0.12 * back + 0.25 * np.maximum(0.0, back - 0.2)


def project_parts(spec: HandSpec, camera: Camera) -> list[tuple[np.ndarray, str]]:
    """Each part's outline in the undistorted image (pixels), with its material."""
    yaw = math.radians(spec.yaw_deg)
    ia, ib = _INWARD[spec.edge]
    fa = (ia * math.cos(yaw) - ib * math.sin(yaw), ia * math.sin(yaw) + ib * math.cos(yaw))
    side_dir = (-fa[1], fa[0])
    metre = 1.0 / camera.board_size_m
    rotation, _ = cv2.Rodrigues(camera.rvec)
    tip = camera.board_to_world(np.array([spec.target]), spec.height_m)[0]
    out = []
    for outline, material in hand_parts(spec):
        a, b = outline[:, 0], outline[:, 1]
        bx = spec.target[0] + (a * fa[0] + b * side_dir[0]) * metre
        by = spec.target[1] + (a * fa[1] + b * side_dir[1]) * metre
        world = camera.board_to_world(np.column_stack([bx, by]), _heights(spec, a))
        # An arm reaching past the camera would project through infinity: pull such
        # points back towards the fingertips until they are safely in front of the lens.
        depth = (world @ rotation.T + camera.tvec)[:, 2]
        tip_depth = float(rotation[2] @ tip + camera.tvec[2])
        near = 0.15 * tip_depth
        too_close = depth < near
        if too_close.any():
            t = (tip_depth - near) / np.maximum(1e-9, tip_depth - depth[too_close])
            world[too_close] = tip + (world[too_close] - tip) * t[:, None]
        pixels, _ = cv2.projectPoints(
            world, camera.rvec, camera.tvec, camera.camera_matrix, np.zeros(5)
        )
        out.append((pixels.reshape(-1, 2), material))
    return out


def draw_hand(image: np.ndarray, camera: Camera, spec: HandSpec) -> np.ndarray:
    """Draw the hand (with its shadow) into the undistorted ``image``; return its uint8 mask."""
    h, w = image.shape[:2]
    parts = project_parts(spec, camera)
    limit = 8 * max(w, h)  # keep far-away arm points within cv2's fixed-point range
    polys = [(np.clip(p, -limit, limit) * 16).astype(np.int32) for p, _ in parts]
    mask = np.zeros((h, w), np.uint8)
    for poly in polys:
        cv2.fillPoly(mask, [poly], 255, cv2.LINE_8, 4)
    ys, xs = np.nonzero(mask)
    if xs.size == 0:
        return mask
    pad = 40
    x0, x1 = max(0, xs.min() - pad), min(w, xs.max() + pad + 1)
    y0, y1 = max(0, ys.min() - pad), min(h, ys.max() + pad + 1)
    roi = image[y0:y1, x0:x1].astype(np.float32)
    roi_mask = mask[y0:y1, x0:x1]
    # Shadow: the hand's outline cast down and to the side, softer the higher the hand.
    focal = float(camera.camera_matrix[0, 0])
    offset = focal * (0.02 + spec.height_m * 0.4)
    shift = np.float32([[1, 0, offset * 0.6], [0, 1, offset * 0.8]])
    shadow = cv2.warpAffine(roi_mask, shift, (x1 - x0, y1 - y0)).astype(np.float32) / 255
    shadow = cv2.GaussianBlur(shadow, (0, 0), 2 + offset * 0.3)
    roi *= 1 - 0.45 * shadow[..., None]
    # Colour each part, then shade: darker towards the outline, like a rounded limb.
    colour = np.zeros_like(roi)
    for poly, (_, material) in zip(polys, parts, strict=True):
        bgr = spec.skin_bgr if material == "skin" else spec.sleeve_bgr
        shifted = poly - np.array([x0, y0], np.int32) * 16
        cv2.fillPoly(colour, [shifted], bgr, cv2.LINE_AA, 4)
        dark = tuple(0.7 * c for c in bgr)
        cv2.polylines(colour, [shifted], True, dark, 1, cv2.LINE_AA, 4)
    soft = roi_mask.astype(np.float32) / 255
    rounded = cv2.GaussianBlur(soft, (0, 0), max(1.5, focal * 0.006))
    shade = 0.72 + 0.38 * rounded
    roi_out = roi * (1 - soft[..., None]) + colour * (soft * shade)[..., None]
    image[y0:y1, x0:x1] = np.clip(roi_out, 0, 255).astype(np.uint8)
    return mask
