"""Reading users' files for the command line, with one-line errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from engine import Layout, LayoutError, Position, PositionError
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


def read_position_file(path: str | Path, layout: Layout) -> Position:
    """A position from a JSON file (contract section 3)."""
    path = Path(path)
    if path.suffix.lower() in IMAGE_SUFFIXES:
        raise UsageError(
            f"{path}: reading a position from a photo needs the tile recognizer, "
            "which this build does not have yet; give a position JSON file"
        )
    data = read_json(path)
    try:
        return Position.from_json(data, layout, origin=str(path))
    except PositionError as err:
        raise UsageError(str(err)) from None


def print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))
