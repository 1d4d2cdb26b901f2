"""The calibration file (contract section 6): lens model plus board corners, as JSON.

Saved atomically (temporary file, then ``os.replace``) so a crash never leaves a
half-written file that a running dashboard would read. Loading validates every
field and fails with one line naming the field::

    >>> cal = Calibration(image_size=(1280, 720), camera_matrix=None, dist_coeffs=None,
    ...                   board_corners=((100, 100), (600, 100), (600, 600), (100, 600)))
    >>> save_calibration(cal, "/tmp/cal.json")
    >>> load_calibration("/tmp/cal.json") == cal
    True
"""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.atomic_file import replaced_atomically
from calibration.board_location import outline_problem

Point = tuple[float, float]


class CalibrationError(ValueError):
    """A calibration file that cannot be used; the message names the field."""


@dataclass(frozen=True)
class Calibration:
    """What setupcam knows about one camera and one board position.

    ``camera_matrix`` (3×3) and ``dist_coeffs`` (5 values, OpenCV order k1 k2 p1 p2 k3)
    are ``None`` when there is no lens correction. ``board_corners`` are the board's
    outer corners NW, NE, SE, SW in pixels of the *undistorted* image, or ``None``
    before the board has been registered. Tuples, not arrays, so the value is
    hashable and comparable.
    """

    image_size: tuple[int, int]
    camera_matrix: tuple[tuple[float, float, float], ...] | None = None
    dist_coeffs: tuple[float, ...] | None = None
    board_corners: tuple[Point, Point, Point, Point] | None = None

    def __post_init__(self) -> None:
        # Normalise whatever sequences / arrays were passed into plain float tuples.
        data = _to_jsonable(self)
        checked = _parse(data, origin="calibration")
        for name in ("image_size", "camera_matrix", "dist_coeffs", "board_corners"):
            object.__setattr__(self, name, getattr(checked, name))

    @property
    def has_lens(self) -> bool:
        return self.camera_matrix is not None and self.dist_coeffs is not None

    def camera_matrix_array(self) -> np.ndarray | None:
        return None if self.camera_matrix is None else np.array(self.camera_matrix, np.float64)

    def dist_coeffs_array(self) -> np.ndarray | None:
        return None if self.dist_coeffs is None else np.array(self.dist_coeffs, np.float64)

    def board_corners_array(self) -> np.ndarray | None:
        return None if self.board_corners is None else np.array(self.board_corners, np.float64)

    def board_corners_for(self, width: int, height: int) -> np.ndarray | None:
        """The board corners in pixels of a ``width`` x ``height`` image of the same
        camera: scaled when it streams at another resolution of the same shape, ``None``
        when the shape differs (then the corners cannot be carried over) or none are set.

            >>> board = ((100, 100), (600, 100), (600, 600), (100, 600))
            >>> cal = Calibration((1280, 720), board_corners=board)
            >>> cal.board_corners_for(640, 360)[1].tolist(), cal.board_corners_for(640, 480)
            ([300.0, 50.0], None)
        """
        corners = self.board_corners_array()
        if corners is None or not self.same_shape(width, height):
            return None
        return corners * (width / self.image_size[0])

    def same_shape(self, width: int, height: int) -> bool:
        """True when a ``width`` x ``height`` picture has the shape the file was made
        for: its lens model and corners scale to it; another shape is another crop of
        the sensor, which they do not fit.

            >>> cal = Calibration((1280, 720))
            >>> cal.same_shape(640, 360), cal.same_shape(640, 480)
            (True, False)
        """
        calibrated_width, calibrated_height = self.image_size
        return calibrated_width * height == calibrated_height * width

    def with_board(self, corners: Any) -> Calibration:
        """A copy with new board corners (NW, NE, SE, SW)."""
        return replace(self, board_corners=tuple(tuple(map(float, p)) for p in corners))


class _Raw:
    """A bare holder used while parsing, before the frozen dataclass exists."""

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)


def _to_jsonable(cal: Any) -> dict[str, Any]:
    def conv(v: Any) -> Any:
        if v is None:
            return None
        if isinstance(v, np.ndarray):
            return v.tolist()
        if isinstance(v, list | tuple):
            return [conv(x) for x in v]
        if isinstance(v, np.generic):
            return v.item()
        return v

    return {
        "image_size": conv(cal.image_size),
        "camera_matrix": conv(cal.camera_matrix),
        "dist_coeffs": conv(cal.dist_coeffs),
        "board_corners": conv(cal.board_corners),
    }


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


def _parse(data: Any, origin: str) -> _Raw:
    if not isinstance(data, dict):
        raise CalibrationError(f"{origin}: a calibration must be a JSON object")
    size = data.get("image_size")
    if (
        not isinstance(size, list)
        or len(size) != 2
        or not all(_number(v) and int(v) == v and v > 0 for v in size)
    ):
        raise CalibrationError(f"{origin}: 'image_size' must be [width, height] in pixels")
    width, height = int(size[0]), int(size[1])

    matrix = data.get("camera_matrix")
    if matrix is not None:
        if (
            not isinstance(matrix, list)
            or len(matrix) != 3
            or not all(isinstance(r, list) and len(r) == 3 and all(map(_number, r)) for r in matrix)
        ):
            raise CalibrationError(f"{origin}: 'camera_matrix' must be null or a 3x3 number array")
        if matrix[0][0] <= 0 or matrix[1][1] <= 0 or matrix[2] != [0, 0, 1]:
            raise CalibrationError(
                f"{origin}: 'camera_matrix' must have positive fx, fy and last row [0, 0, 1]"
            )
        matrix = tuple(tuple(float(v) for v in row) for row in matrix)

    dist = data.get("dist_coeffs")
    if dist is not None:
        if not isinstance(dist, list) or len(dist) not in (4, 5, 8) or not all(map(_number, dist)):
            raise CalibrationError(
                f"{origin}: 'dist_coeffs' must be null or [k1, k2, p1, p2, k3] numbers"
            )
        dist = tuple(float(v) for v in dist)
    if (matrix is None) != (dist is None):
        raise CalibrationError(
            f"{origin}: 'camera_matrix' and 'dist_coeffs' must both be set or both be null"
        )

    corners = data.get("board_corners")
    if corners is not None:
        if (
            not isinstance(corners, list)
            or len(corners) != 4
            or not all(
                isinstance(p, list) and len(p) == 2 and all(map(_number, p)) for p in corners
            )
        ):
            raise CalibrationError(
                f"{origin}: 'board_corners' must be null or four [x, y] points NW, NE, SE, SW"
            )
        quad = np.array(corners, np.float64)
        # A board may reach past the picture's edge, but not lie beyond it entirely.
        x_in = (quad[:, 0] > -width) & (quad[:, 0] < 2 * width)
        y_in = (quad[:, 1] > -height) & (quad[:, 1] < 2 * height)
        if not np.all(x_in & y_in):
            raise CalibrationError(
                f"{origin}: 'board_corners' lie far outside the {width}x{height} image"
            )
        problem = outline_problem(quad)
        if problem is not None:
            raise CalibrationError(f"{origin}: 'board_corners': {problem}")
        corners = tuple((float(x), float(y)) for x, y in corners)
    return _Raw(
        image_size=(width, height), camera_matrix=matrix, dist_coeffs=dist, board_corners=corners
    )


def calibration_from_dict(data: Any, origin: str = "calibration") -> Calibration:
    raw = _parse(data, origin)
    return Calibration(raw.image_size, raw.camera_matrix, raw.dist_coeffs, raw.board_corners)


def calibration_to_dict(cal: Calibration) -> dict[str, Any]:
    return _to_jsonable(cal)


def load_calibration(path: str | Path) -> Calibration:
    """Read and validate a calibration file; errors are one line naming the file and field."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")  # -sig: a Notepad file's byte-order mark
    except FileNotFoundError:
        raise CalibrationError(f"{path}: calibration file not found") from None
    except IsADirectoryError:
        raise CalibrationError(f"{path}: is a folder, not a calibration file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise CalibrationError(f"{path}: cannot read calibration file ({err})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise CalibrationError(f"{path}: not valid JSON ({err.msg}, line {err.lineno})") from None
    except RecursionError:
        raise CalibrationError(f"{path}: JSON nested too deeply to be a calibration") from None
    return calibration_from_dict(data, origin=str(path))


def save_calibration(cal: Calibration, path: str | Path) -> Path | None:
    """Write ``cal`` as JSON; atomic, so readers see the old or the new file, never half.

    A different calibration already there is kept at :func:`previous_calibration_path`
    (returned): a lens or corners fitted once are never lost to a second run.
    """
    path = Path(path)
    text = json.dumps(calibration_to_dict(cal), indent=2) + "\n"
    kept = None
    if path.is_file() and path.read_text(encoding="utf-8", errors="replace") != text:
        kept = previous_calibration_path(path)
        shutil.copy2(path, kept)
    _write_text(path, text)
    return kept


def previous_calibration_path(path: str | Path) -> Path:
    """Where :func:`save_calibration` keeps the file it replaces.

    >>> str(previous_calibration_path("/tmp/calibration.json"))
    '/tmp/calibration.previous.json'
    """
    path = Path(path)
    return path.with_name(f"{path.stem}.previous{path.suffix}")


# Remap tables are expensive to build (a full-frame computation) and identical for
# every frame of one camera, so they are cached per (lens, size).
_MAPS: dict[tuple[Any, ...], tuple[np.ndarray, np.ndarray]] = {}


class LensMismatch(ValueError):
    """A picture of another shape than the lens was calibrated on: the lens model,
    fitted to another crop of the sensor, would bend it wrongly."""


def undistort(image: np.ndarray, cal: Calibration) -> np.ndarray:
    """The image with lens distortion removed (same size and camera matrix).

    Returns the image itself when the calibration has no lens model.

        >>> flat = undistort(frame, cal)  # doctest: +SKIP
    """
    if not cal.has_lens:
        return image
    height, width = image.shape[:2]
    if not cal.same_shape(width, height):
        calibrated = f"{cal.image_size[0]}x{cal.image_size[1]}"
        if cal.same_shape(height, width):
            # A phone or a viewer stood the photo upright: the camera took it as the rest.
            raise LensMismatch(
                f"this picture is {width}x{height}, the {calibrated} pictures the lens was "
                f"calibrated on turned a quarter: turn it back to {calibrated}"
            )
        raise LensMismatch(
            f"the lens was calibrated on {calibrated} pictures, "
            f"and this one is {width}x{height}, another shape: calibrate the lens at this "
            "size (setupcam calibrate lens)"
        )
    key = (cal.camera_matrix, cal.dist_coeffs, width, height)
    maps = _MAPS.get(key)
    if maps is None:
        import cv2

        k = cal.camera_matrix_array()
        k = scaled_camera_matrix(k, cal.image_size, (width, height))
        maps = cv2.initUndistortRectifyMap(
            k, cal.dist_coeffs_array(), None, k, (width, height), cv2.CV_16SC2
        )
        if len(_MAPS) > 8:
            _MAPS.clear()
        _MAPS[key] = maps
    import cv2

    return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR)


def scaled_camera_matrix(
    k: Any, calibrated: tuple[int, int], actual: tuple[int, int]
) -> np.ndarray:
    """The camera matrix for a frame size other than the calibrated one, of the same
    shape (:func:`undistort` refuses another)."""
    k = np.array(k, np.float64)
    if tuple(actual) == tuple(calibrated):
        return k
    k[:2] *= actual[0] / calibrated[0]
    return k


# --- the board's look (sidecar file) ----------------------------------------------------
# Section 6 fixes the calibration file's keys, so the BoardLook (which edge is which,
# by the colours of the board's art) lives beside it: calibration.json ->
# calibration.look.json. Readers of the calibration file never see it.


def board_look_path(calibration_path: str | Path) -> Path:
    """The sidecar file holding the board's look for a calibration file.

    >>> str(board_look_path("/tmp/calibration.json"))
    '/tmp/calibration.look.json'
    """
    path = Path(calibration_path)
    return path.with_name(f"{path.stem}.look.json")


def save_board_look(look: Any, calibration_path: str | Path) -> Path:
    """Write ``look`` (a :class:`calibration.orientation.BoardLook`) beside the calibration.

    Atomic like :func:`save_calibration`; returns the sidecar's path.
    """
    path = board_look_path(calibration_path)
    _write_text(path, json.dumps({"board_look": look.to_dict()}, indent=2) + "\n")
    return path


def _write_text(path: Path, text: str) -> None:
    with replaced_atomically(path) as handle:
        handle.write(text.encode("utf-8"))


def load_board_look(calibration_path: str | Path) -> Any:
    """The board's look saved beside ``calibration_path``, or ``None`` if there is none.

    Without a look, south is taken to be the edge nearest the camera (the dashboard
    asks the user to confirm it). A broken sidecar raises :class:`CalibrationError`.

        >>> look = load_board_look("calibration.json")  # doctest: +SKIP
        >>> tracker = BoardTracker(layout, look=look)   # doctest: +SKIP
    """
    from calibration.orientation import BoardLook

    path = board_look_path(calibration_path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CalibrationError(f"{path}: cannot read the board look ({err})") from None
    try:
        return BoardLook.from_dict(data["board_look"])
    except (KeyError, TypeError, ValueError) as err:
        raise CalibrationError(f"{path}: {err}") from None
