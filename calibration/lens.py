"""Lens calibration from photos of a printed ChArUco target.

The target is fixed (7×5 squares of 35 mm, 26 mm markers from ``DICT_5X5_100``, on
A4 landscape), so users need nothing but ``setupcam calibrate target`` and a printer.
The result says in plain words whether it is good enough. Here on six simulated
photos of the target, from a lens of focal length 700 px::

    >>> import numpy as np
    >>> from calibration.synthetic import camera_matrix, charuco_view
    >>> rng, lens = np.random.default_rng(3), camera_matrix(800, 600, 700.0)
    >>> bent = np.array([-0.2, 0.06, 0, 0, 0])
    >>> photos = [charuco_view(rng, lens, bent, (800, 600)) for _ in range(6)]
    >>> result = calibrate_lens(photos)
    >>> result.verdict
    'good: reprojection error 0.22 px over 6 of 6 photos'
    >>> round(float(result.camera_matrix[0, 0]))
    700
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.camera_file import Calibration
from calibration.printed_page import mm_to_px, write_page

# The printed target. Changing any of these invalidates every printed copy.
SQUARES_X = 7
SQUARES_Y = 5
SQUARE_MM = 35.0
MARKER_MM = 26.0
DICTIONARY = cv2.aruco.DICT_5X5_100
A4_MM = (297.0, 210.0)  # landscape: the 7×5 target is wider than tall

# Fewer views than this cannot separate focal length from distance reliably.
MIN_VIEWS = 4
# Minimum ChArUco corners in one photo to use it (and they must not be collinear).
MIN_CORNERS = 8
# A set of photos whose most tilted view is below this is "all face-on".
MIN_TILT_DEG = 12.0


def charuco_board() -> cv2.aruco.CharucoBoard:
    """The target's board definition (lengths in metres)."""
    dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY)
    return cv2.aruco.CharucoBoard(
        (SQUARES_X, SQUARES_Y), SQUARE_MM / 1000.0, MARKER_MM / 1000.0, dictionary
    )


def render_charuco_page() -> np.ndarray:
    """The printable A4 page (grey, 300 dpi) with the target centred and a caption."""
    page_w, page_h = mm_to_px(A4_MM[0]), mm_to_px(A4_MM[1])
    page = np.full((page_h, page_w), 255, np.uint8)
    square_px = mm_to_px(SQUARE_MM)
    board_w, board_h = SQUARES_X * square_px, SQUARES_Y * square_px
    image = charuco_board().generateImage((board_w, board_h), marginSize=0, borderBits=1)
    x0, y0 = (page_w - board_w) // 2, (page_h - board_h) // 2
    page[y0 : y0 + board_h, x0 : x0 + board_w] = image
    caption = (
        f"setupcam lens target: ChArUco {SQUARES_X}x{SQUARES_Y}, squares {SQUARE_MM:g} mm "
        f"- print at 100% (no 'fit to page'), keep it flat"
    )
    cv2.putText(
        page, caption, (x0, page_h - y0 // 3), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 0, 2, cv2.LINE_AA
    )
    return page


def write_charuco_target(path: str | Path) -> None:
    """Write the printable lens target (``.png`` at 300 dpi or ``.pdf``), A4 landscape."""
    write_page(render_charuco_page(), path)


@dataclass(frozen=True)
class LensResult:
    """The outcome of a lens calibration.

    ``level`` is ``"good"``, ``"acceptable"`` or ``"retake"``; ``verdict`` says the
    same in words with the likely reason. ``used[i]`` tells whether photo ``i``
    showed enough of the target; ``view_errors[i]`` is its rms error (NaN if unused).
    """

    camera_matrix: np.ndarray | None
    dist_coeffs: np.ndarray | None
    rms: float
    image_size: tuple[int, int]
    used: tuple[bool, ...]
    view_errors: tuple[float, ...]
    max_tilt_deg: float
    level: str
    verdict: str

    @property
    def ok(self) -> bool:
        return self.level != "retake" and self.camera_matrix is not None

    def to_calibration(self) -> Calibration:
        """The calibration file contents (no board yet)."""
        if self.camera_matrix is None or self.dist_coeffs is None:
            raise ValueError(f"no lens model to save: {self.verdict}")
        return Calibration(
            image_size=self.image_size,
            camera_matrix=self.camera_matrix,
            dist_coeffs=np.ravel(self.dist_coeffs)[:5],
        )


def detect_charuco(
    image: np.ndarray, detector: cv2.aruco.CharucoDetector | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """Object points (N×3, metres) and image points (N×2) of the target in one photo, or None."""
    board = charuco_board()
    detector = detector or cv2.aruco.CharucoDetector(board)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = detector.detectBoard(grey)
    if ids is None or len(ids) < MIN_CORNERS:
        return None
    # Collinear corners (one row) give a degenerate view that breaks calibrateCamera.
    if board.checkCharucoCornersCollinear(ids):
        return None
    obj, img = board.matchImagePoints(corners, ids)
    return obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32)


def calibrate_lens(images: Sequence[np.ndarray], names: Sequence[str] = ()) -> LensResult:
    """Calibrate the camera from photos of the printed target (all the same size);
    ``names`` (the files) name the photos in the verdict, else they are numbered.

    >>> result = calibrate_lens(photos)  # doctest: +SKIP
    >>> result.level, round(result.rms, 2)  # doctest: +SKIP
    ('good', 0.21)
    """
    if not images:
        raise ValueError("no photos given: take 10-15 photos of the printed target")
    sizes = {(im.shape[1], im.shape[0]) for im in images}
    if len(sizes) != 1:
        raise ValueError(f"photos differ in size {sorted(sizes)}: use one camera and resolution")
    size = sizes.pop()
    detector = cv2.aruco.CharucoDetector(charuco_board())
    obj_points, img_points, used = [], [], []
    for image in images:
        found = detect_charuco(image, detector)
        used.append(found is not None)
        if found is not None:
            obj_points.append(found[0])
            img_points.append(found[1])
    n_used, n_all = len(obj_points), len(images)
    if n_used < MIN_VIEWS:
        return LensResult(
            None,
            None,
            math.inf,
            size,
            tuple(used),
            tuple(math.nan for _ in images),
            0.0,
            "retake",
            f"retake: only {n_used} of {n_all} photos showed enough of the target "
            f"(need at least {MIN_VIEWS}, best 10-15); fill a good part of the view with it "
            "and keep it sharp",
        )
    # k3 only pays off with many views; with few it overfits and bends the image edges.
    flags = 0 if n_used >= 10 else cv2.CALIB_FIX_K3
    rms, matrix, dist, rvecs, _tvecs, _si, _se, per_view = cv2.calibrateCameraExtended(
        obj_points, img_points, size, None, None, flags=flags
    )
    tilts = [_tilt_deg(r) for r in rvecs]
    max_tilt = max(tilts)
    errors = iter(np.ravel(per_view).tolist())
    view_errors = tuple(next(errors) if u else math.nan for u in used)
    names = list(names) or [f"#{i + 1}" for i in range(n_all)]
    level, verdict = _verdict(float(rms), n_used, n_all, max_tilt, view_errors, names)
    return LensResult(
        matrix,
        np.ravel(dist),
        float(rms),
        size,
        tuple(used),
        view_errors,
        max_tilt,
        level,
        verdict,
    )


def _tilt_deg(rvec: np.ndarray) -> float:
    """Angle between the target's normal and the camera's axis."""
    rotation, _ = cv2.Rodrigues(rvec)
    return math.degrees(math.acos(min(1.0, abs(float(rotation[2, 2])))))


def _verdict(
    rms: float,
    n_used: int,
    n_all: int,
    max_tilt: float,
    view_errors: tuple[float, ...],
    names: Sequence[str],
) -> tuple[str, str]:
    summary = f"reprojection error {rms:.2f} px over {n_used} of {n_all} photos"
    if max_tilt < MIN_TILT_DEG:
        # Face-on views cannot tell focal length from distance: a low error means nothing.
        return "retake", (
            f"retake with the board tilted: every photo is nearly face-on (most tilted "
            f"{max_tilt:.0f}°); tilt the target 20-40° in different directions ({summary})"
        )
    if rms < 0.5:
        return "good", f"good: {summary}"
    if rms < 1.0:
        return "acceptable", f"acceptable: {summary}; sharper photos would improve it"
    worst = sorted(
        (e, i) for i, e in enumerate(view_errors) if not math.isnan(e) and e > 1.5 * rms
    )[::-1][:3]
    hint = (
        "photos " + ", ".join(f"{names[i]} ({e:.1f} px)" for e, i in worst) + " fit worst"
        if worst
        else "keep the target flat and the photos sharp"
    )
    return "retake", f"retake: {summary} is too high (blur or a bent target?); {hint}"
