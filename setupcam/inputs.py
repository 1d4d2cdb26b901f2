"""Reading users' files for the command line, with one-line errors that name the file."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine import Layout, LayoutError, Position, PositionError, Seats
from setupcam import strict_json
from setupcam.cli import UsageError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".webp", ".tif", ".tiff"})
MIN_IMAGE_PX = 64
"""An image narrower than this cannot show a board's squares (they span a twelfth of it)."""


def read_json(path: str | Path) -> Any:
    path = Path(path)
    try:
        # utf-8-sig: Windows Notepad starts a UTF-8 file with a byte-order mark.
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UsageError(f"{path}: is a folder, not a file") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a text file (expected JSON)") from None
    except OSError as err:
        raise UsageError(f"{path}: cannot read ({err.strerror})") from None
    try:
        return strict_json.loads(text)
    except strict_json.DuplicateKeyError as err:
        raise UsageError(f"{path}: {err}") from None
    except json.JSONDecodeError as err:
        raise UsageError(f"{path}: not valid JSON ({err.msg} at line {err.lineno})") from None
    except RecursionError:
        raise UsageError(f"{path}: JSON nested too deeply to be a setupcam file") from None


def read_image(path: str | Path) -> Any:
    """The photo at ``path`` as BGR uint8, or a one-line :class:`UsageError` naming the file."""
    import cv2

    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not an image")
    if is_cut_short(path):
        # OpenCV decodes what there is and greys out the rest: read, a board in the
        # grey would be nonsense, printed as if it were a reading.
        raise UsageError(f"{path}: the file is cut short (an unfinished copy or download?)")
    try:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    except cv2.error as err:
        # OpenCV refuses, rather than decodes, a picture over its pixel limit (2^30).
        too_big = "CV_IO_MAX_IMAGE_PIXELS" in str(err)
        reason = "too many pixels for OpenCV to open" if too_big else "OpenCV cannot decode it"
        raise UsageError(f"{path}: cannot read this image ({reason})") from None
    if image is None:
        raise UsageError(f"{path}: not an image OpenCV can read")
    height, width = image.shape[:2]
    if min(height, width) < MIN_IMAGE_PX:
        raise UsageError(f"{path}: {width}x{height} pixels is too small to show a board")
    return image


def existing_file(path: str | Path, kind: str = "file", flag: str = "") -> Path:
    """``path`` as a Path, or a one-line :class:`UsageError` unless it is a file:
    a folder is said to be one, not "no such file". ``kind`` names the file
    (``"calibration file"``), ``flag`` the option (``"--video"``).

    >>> existing_file("/", "model file")
    Traceback (most recent call last):
    setupcam.cli.UsageError: /: is a folder, not a model file
    """
    path = Path(path)
    named = f"{flag} {path}" if flag else str(path)
    if path.is_dir():
        article = "an" if kind[0] in "aeiou" else "a"
        raise UsageError(f"{named}: is a folder, not {article} {kind}")
    if not path.is_file():
        raise UsageError(f"{named}: no such {kind}")
    return path


def refuse_repeated_photos(paths: Iterable[str | Path], advice: str) -> None:
    """A one-line :class:`UsageError` if one photo is given twice: the same file however
    it is written (``photo0.png``, ``./photo0.png``), or a copy of it under another name.
    ``advice`` ends the message: what to give instead."""
    import hashlib

    given_paths = [Path(p) for p in paths]
    seen_paths: set[Path] = set()
    seen_contents: dict[str, Path] = {}
    for given in given_paths:
        where = given.resolve()
        if where in seen_paths:
            times = sum(1 for p in given_paths if p.resolve() == where)
            raise UsageError(f"{given} is given {times} times: {advice}")
        seen_paths.add(where)
        if not given.is_file():
            continue  # reading it says what is wrong with it
        digest = hashlib.sha256(given.read_bytes()).hexdigest()
        if digest in seen_contents:
            # A copy counts twice for one view: a lens fitted to it, or a set enrolled
            # from it, leans on that view without a word.
            raise UsageError(f"{given} is the same photo as {seen_contents[digest]}: {advice}")
        seen_contents[digest] = given


def check_out(
    path: str | Path,
    suffixes: Iterable[str],
    flag: str = "",
    kind: str = "an output",
    inputs: Iterable[str | Path] = (),
) -> Path:
    """``path`` as a Path, or a one-line :class:`UsageError` unless a file ending in one
    of ``suffixes`` can be written there: said before the work, not after it.
    ``flag`` (``"--debug"``) names the option in the message, ``kind`` the file;
    ``inputs`` are the command's own files, which an output must never overwrite."""
    path = Path(path)
    named = f"{flag} {path}" if flag else str(path)
    if path.is_dir():
        raise UsageError(f"{named}: is a folder, not a file")
    if any(path.resolve() == Path(given).resolve() for given in inputs):
        raise UsageError(f"{named}: is the photo being read; name another file to write")
    allowed = sorted(suffixes)
    if path.suffix.lower() not in allowed:
        raise UsageError(f"{named}: name {kind} file ({', '.join(allowed)})")
    if not path.parent.is_dir():
        raise UsageError(f"{named}: no such folder {path.parent}")
    return path


def read_layout(name_or_path: str | Path | None) -> Layout:
    """A shipped layout by name (``setup-standard`` when none is given), or a user's
    layout file; a one-line :class:`UsageError` naming the file and the problem."""
    if not name_or_path:
        return Layout.load()
    path = Path(name_or_path)
    looks_like_file = path.suffix == ".json" or len(path.parts) > 1
    try:
        if not looks_like_file and not path.exists():
            return Layout.load(str(name_or_path))
        return Layout.from_dict(read_json(path), origin=str(path))
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


def is_cut_short(path: Path) -> bool:
    """True for a JPEG or PNG file whose end is missing.

    A JPEG's picture ends with an end-of-image marker after its last scan (an EXIF
    thumbnail has its own, earlier); a PNG ends with its IEND chunk."""
    with open(path, "rb") as file:
        head = file.read(8)
        file.seek(0, 2)
        size = file.tell()
        if head.startswith(b"\x89PNG"):
            file.seek(max(0, size - 64))
            return b"IEND" not in file.read()
        if not head.startswith(b"\xff\xd8"):
            return False
        file.seek(0)
        data = file.read()
    scan = data.rfind(b"\xff\xda")
    return scan < 0 or data.rfind(b"\xff\xd9") < scan  # no picture, or its end missing


def print_json(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def read_photo(
    path: str | Path, layout: Layout, calibration: str | None, seats: Seats | None = None
) -> Any:
    """Each square's :class:`vision.recognizer.Reading` in a photo, or a one-line error
    naming the photo when the board cannot be found. With ``seats``, south is the edge
    framed in the south player's colour."""
    from setupcam.commands.recognize import load_recognizer, locate_board

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
    return position_of(read_photo(path, layout, calibration, seats), layout, path)


def position_of(readings: Any, layout: Layout, path: str | Path) -> Position:
    """The position a photo's readings show, or a one-line error naming the photo's
    first square that cannot be read."""
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
