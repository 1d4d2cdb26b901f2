"""A camera above the table: pose, intrinsics, lens distortion, and projection.

World frame: origin at the board's centre, x east, y south, z down into the table
(right-handed), metres. Board coordinates (contract section 2: unit square, origin
north-west, y south) map to the world by ``X = (x - 0.5) * board_size_m``. The
camera frame is OpenCV's (x right, y down, z forward)::

    >>> import numpy as np
    >>> cam = random_camera(np.random.default_rng(0), (1280, 720))
    >>> corners = cam.project_board(BOARD_CORNERS)
    >>> corners.shape, bool((corners >= 0).all())
    ((4, 2), True)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

BOARD_SIZE_M = 0.30
"""The physical board: a 30 cm square."""
BOARD_CORNERS = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
"""The board's outer corners in board units: NW, NE, SE, SW."""
MAX_TILT_DEG = 35.0


@dataclass(frozen=True, eq=False)
class Camera:
    """A calibrated camera pose. ``rvec``/``tvec`` map world to camera (OpenCV)."""

    image_size: tuple[int, int]  # (width, height)
    camera_matrix: np.ndarray  # 3x3
    dist_coeffs: np.ndarray  # (5,): k1 k2 p1 p2 k3
    rvec: np.ndarray  # (3,)
    tvec: np.ndarray  # (3,)
    board_size_m: float = BOARD_SIZE_M
    yaw_deg: float = 0.0
    tilt_deg: float = 0.0
    height_m: float = 0.7

    def board_to_world(self, points: np.ndarray, height_m: float | np.ndarray = 0.0) -> np.ndarray:
        """(N, 2) board-unit points, ``height_m`` above the table -> (N, 3) world points."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        heights = np.broadcast_to(np.asarray(height_m, np.float64), (len(pts),))
        return np.column_stack(
            [(pts[:, 0] - 0.5) * self.board_size_m, (pts[:, 1] - 0.5) * self.board_size_m, -heights]
        )

    def project_board(
        self, points: np.ndarray, height_m: float | np.ndarray = 0.0, *, distorted: bool = True
    ) -> np.ndarray:
        """Pixel coordinates of board-unit points (in the distorted image, or the ideal one)."""
        world = self.board_to_world(points, height_m)
        dist = self.dist_coeffs if distorted else np.zeros(5)
        pixels, _ = cv2.projectPoints(world, self.rvec, self.tvec, self.camera_matrix, dist)
        return pixels.reshape(-1, 2)

    def homography(self) -> np.ndarray:
        """3x3 map from board units (x, y, 1) to the undistorted image's pixels."""
        rotation, _ = cv2.Rodrigues(self.rvec)
        plane = np.column_stack([rotation[:, 0], rotation[:, 1], self.tvec])
        s = self.board_size_m
        board_to_world = np.array([[s, 0, -s / 2], [0, s, -s / 2], [0, 0, 1]])
        return self.camera_matrix @ plane @ board_to_world

    def shaken(self, rng: np.random.Generator, pixels: float = 1.5) -> Camera:
        """The same camera nudged by a tiny rotation: about ``pixels`` px of image motion."""
        angle = pixels / float(self.camera_matrix[0, 0])
        delta = rng.normal(0.0, angle / math.sqrt(3), 3)
        r_old, _ = cv2.Rodrigues(self.rvec)
        r_delta, _ = cv2.Rodrigues(delta)
        r_new = r_delta @ r_old
        # Rotate about the camera centre, so the centre stays put and only the view turns.
        centre = -r_old.T @ self.tvec
        rvec, _ = cv2.Rodrigues(r_new)
        return replace(self, rvec=rvec.reshape(3), tvec=-r_new @ centre)


def _look_at(target: np.ndarray, yaw: float, tilt: float, distance: float) -> tuple:
    """rvec, tvec of a camera ``distance`` from ``target``, looking at it, tilted ``tilt``."""
    heading = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    down = np.array([0.0, 0.0, 1.0])
    z_axis = math.sin(tilt) * heading + math.cos(tilt) * down
    y_axis = -(math.cos(tilt) * heading - math.sin(tilt) * down)  # image "up" points ahead
    x_axis = np.cross(y_axis, z_axis)
    rotation = np.vstack([x_axis, y_axis, z_axis])
    centre = target - distance * z_axis
    rvec, _ = cv2.Rodrigues(rotation)
    return rvec.reshape(3), -rotation @ centre


def random_camera(
    rng: np.random.Generator,
    resolution: tuple[int, int] = (1280, 720),
    *,
    distortion: bool = True,
    max_tilt_deg: float = MAX_TILT_DEG,
) -> Camera:
    """A plausible webcam above the table: any yaw, 0-35° tilt, 50-90 cm up, whole board in view.

    The board's width in the image is about 42-80% of the image height.
    """
    width, height = resolution
    for _ in range(200):
        yaw = rng.uniform(0, 2 * math.pi)
        tilt = math.radians(rng.uniform(0, max_tilt_deg))
        height_m = rng.uniform(0.5, 0.9)
        fraction = rng.uniform(0.42, 0.8)
        distance = height_m / math.cos(tilt)
        fx = fraction * height * distance / BOARD_SIZE_M
        hfov = math.degrees(2 * math.atan(width / 2 / fx))
        if not 45 <= hfov <= 95:
            continue
        fy = fx * rng.uniform(0.99, 1.01)
        cx = width / 2 + rng.uniform(-0.02, 0.02) * width
        cy = height / 2 + rng.uniform(-0.02, 0.02) * height
        matrix = np.array([[fx, 0, cx], [0, fy, cy], [0, 0, 1]])
        dist = np.zeros(5)
        if distortion and rng.random() < 0.85:
            dist = np.array(
                [
                    rng.uniform(-0.22, 0.06),
                    rng.uniform(-0.04, 0.08),
                    rng.uniform(-0.001, 0.001),
                    rng.uniform(-0.001, 0.001),
                    0.0,
                ]
            )
        target = np.array([*rng.uniform(-0.05, 0.05, 2), 0.0])
        rvec, tvec = _look_at(target, yaw, tilt, distance)
        camera = Camera(
            image_size=(width, height),
            camera_matrix=matrix,
            dist_coeffs=dist,
            rvec=rvec,
            tvec=tvec,
            yaw_deg=math.degrees(yaw),
            tilt_deg=math.degrees(tilt),
            height_m=height_m,
        )
        corners = camera.project_board(BOARD_CORNERS)
        margin = 0.03 * height
        inside = (corners >= margin).all() and (corners[:, 0] <= width - margin).all()
        if inside and (corners[:, 1] <= height - margin).all():
            return camera
    raise RuntimeError("could not place a camera that sees the whole board")


def distortion_maps(camera: Camera) -> tuple[np.ndarray, np.ndarray] | None:
    """``cv2.remap`` maps that turn the ideal (undistorted) image into the lens's image.

    ``None`` when the lens has no distortion. Cached per intrinsics, so a shaking
    camera in a sequence pays once.
    """
    if not np.any(camera.dist_coeffs):
        return None
    key = (camera.image_size, camera.camera_matrix.tobytes(), camera.dist_coeffs.tobytes())
    return _maps(key)


_GRID_STEP = 8


@functools.lru_cache(maxsize=8)
def _maps(key: tuple) -> tuple[np.ndarray, np.ndarray]:
    (width, height), matrix_bytes, dist_bytes = key
    matrix = np.frombuffer(matrix_bytes).reshape(3, 3)
    dist = np.frombuffer(dist_bytes)
    # Undistort a coarse grid of output pixels exactly, then interpolate: the map is smooth.
    gw, gh = width // _GRID_STEP + 2, height // _GRID_STEP + 2
    xs = np.linspace(0, width - 1, gw)
    ys = np.linspace(0, height - 1, gh)
    grid = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 1, 2)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-9)
    ideal = cv2.undistortPoints(grid, matrix, dist, None, None, matrix, criteria)
    coarse = ideal.reshape(gh, gw, 2).astype(np.float32)
    lookup_x = np.arange(width, dtype=np.float32) * (gw - 1) / (width - 1)
    lookup_y = np.arange(height, dtype=np.float32) * (gh - 1) / (height - 1)
    lx, ly = np.meshgrid(lookup_x, lookup_y)
    full = cv2.remap(coarse, lx, ly, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    map1, map2 = cv2.convertMaps(full[..., 0], full[..., 1], cv2.CV_16SC2)
    return map1, map2
