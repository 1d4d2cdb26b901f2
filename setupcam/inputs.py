"""Reading users' files for the command line, with one-line errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine import Layout, LayoutError, Position, PositionError, Seats
from setupcam.cli import UsageError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff"})


def read_json(path: str | Path) -> Any:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a text file (expected JSON)") from None
    except OSError as err:
        raise UsageError(f"{path}: cannot read ({err.strerror})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise UsageError(f"{path}: not valid JSON ({err.msg} at line {err.lineno})") from None


def read_layout(name_or_path: str | None) -> Layout:
    try:
        return Layout.load(name_or_path) if name_or_path else Layout.load()
    except LayoutError as err:
        raise UsageError(str(err)) from None


def is_image(path: str | Path) -> bool:
    return Path(path).suffix.lower() in IMAGE_SUFFIXES


def read_position_file(path: str | Path, layout: Layout) -> Position:
    """A position from a JSON file (contract section 3)."""
    path = Path(path)
    data = read_json(path)
    try:
        return Position.from_json(data, layout, origin=str(path))
    except PositionError as err:
        raise UsageError(str(err)) from None


def print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def read_photo(
    path: str | Path, layout: Layout, calibration: str | None, seats: Seats | None = None
) -> Any:
    """The board in a photo: ``(readings, recognizer)``, or a one-line error naming the
    photo when the board cannot be found. With ``seats``, south is the edge framed in
    the south player's colour."""
    from setupcam.commands.recognize import load_recognizer, locate_board, read_image

    recognizer = load_recognizer(None, None)
    image = read_image(Path(path))
    image, corners, reason = locate_board(
        image, Path(calibration) if calibration else None, layout, seats
    )
    if corners is None:
        raise UsageError(f"{path}: board not found ({reason}); try --calibration FILE")
    return recognizer.read_board(image, corners, layout, all_turns=True)


def position_from_photo(
    path: str | Path, layout: Layout, calibration: str | None, seats: Seats | None = None
) -> Position:
    """Every square of the photo read; a square that cannot be read is an error."""
    readings = read_photo(path, layout, calibration, seats)
    squares = {}
    for square, reading in readings.items():
        if reading.unread:
            why = "a hand over it" if reading.label == "covered" else "unclear"
            raise UsageError(
                f"{path}: cannot read square {square} ({why}); "
                "give a position JSON file or a clearer photo"
            )
        squares[square] = reading.label
    try:
        return Position(squares, layout)
    except PositionError as err:
        raise UsageError(f"{path}: {err}") from None
