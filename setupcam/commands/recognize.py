"""``setupcam recognize IMAGE``: read the tile on every square of one photo.

``setupcam recognize IMAGE [--calibration FILE] [--model FILE] [--enrollment FILE]
[--layout FILE] [--seats S=red,...] [--debug OUT.png]`` prints the contract's JSON
(section 5)::

    {"board": {"found": true, "corners": [[x, y], ...]},
     "squares": {"b2": "5♥", "c2": null, "a3": "?"},
     "confidence": {"b2": 0.998, ...}}

With ``--calibration`` the image is undistorted and the file's board corners are
used, unless the board's remembered look shows it is no longer there (the camera
or the board moved: a one-line warning, then the board is found again); the board
finder also runs when the file has no corners, and without a calibration. A board
that cannot be found is not an error of the input: the JSON says ``"found": false``
and ``"corners": null`` with the reason, every square is ``"?"``, a one-line message
goes to stderr and the exit code is 0. A board found but small in the picture gets a
one-line hint on stderr (move the camera closer), and a board read without an enrolled
tile set a one-line note (enrol yours: a real set is misread with confidence). The
user's enrolled tile set (``setupcam enroll``) is used when present. Each square is
read at all four quarter turns (one photo can afford the fourfold work; it reads
better).

Which edge is south: the calibration file's remembered board look if it has one,
else with ``--seats`` the edge whose bonus frames have the south player's colour,
else the edge nearest the bottom of the photo.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "recognize",
        help="read the tiles on the board in one photo and print them as JSON",
        description=(
            "Find the board in IMAGE (or take its corners from --calibration) and read the top "
            "tile on every square. '?' marks a square that cannot be read (a hand, glare)."
        ),
    )
    parser.add_argument("image", type=Path, metavar="IMAGE", help="photo of the table")
    parser.add_argument(
        "--calibration", type=Path, metavar="FILE", help="calibration file (setupcam calibrate)"
    )
    parser.add_argument("--model", type=Path, metavar="FILE", help="tile model (.onnx)")
    parser.add_argument(
        "--enrollment",
        type=Path,
        metavar="FILE",
        help="enrolled tile set (default: the one setupcam enroll wrote, if any)",
    )
    parser.add_argument("--layout", metavar="FILE", help="board layout file")
    parser.add_argument(
        "--seats",
        metavar="S=red,...",
        help="who sits where: tells south from the colours of the bonus frames",
    )
    parser.add_argument(
        "--debug", type=Path, metavar="OUT.png", help="also write the photo with the readings"
    )
    parser.set_defaults(handler=run)


def parse_seats(text: str | None) -> Any:
    """``--seats`` as :class:`engine.Seats`, ``None`` when not given, or a one-line error."""
    from engine import Seats, SeatsError
    from setupcam.cli import UsageError

    if text is None:
        return None
    try:
        return Seats.parse(text)
    except SeatsError as err:
        raise UsageError(f"--seats: {err}") from None


def load_recognizer(model: Path | None, enrollment: Path | None):
    """The recognizer with the given (or default, if present) enrolment."""
    from setupcam.inputs import existing_file
    from vision.recognizer import TileRecognizer, default_enrollment_path

    if enrollment is not None:
        existing_file(enrollment, "enrolment file")
    elif default_enrollment_path().is_file():
        enrollment = default_enrollment_path()
    if model is not None:
        existing_file(model, "model file")
    return TileRecognizer.load(model, enrollment, notice=print_notice)


def print_notice(message: str) -> None:
    """A note for the user on stderr (stdout is the command's JSON)."""
    print(f"note: {message}", file=sys.stderr)


def board_look(calibration: Path | str | None, seats: Any) -> Any:
    """How to tell south in a photo (a :class:`calibration.orientation.BoardLook`):
    the one remembered beside the calibration, else the seats' colours, else ``None``."""
    from calibration.camera_file import load_board_look
    from calibration.orientation import BoardLook
    from setupcam.cli import UsageError

    if calibration is not None:
        try:
            look = load_board_look(calibration)
        except ValueError as err:
            raise UsageError(str(err)) from None
        if look is not None:
            return look
    if seats is None:
        return None
    look = BoardLook.from_seats(seats.by_edge)
    if look is None:
        import sys

        from calibration.colour_names import named_bgr

        unknown = [c for c in seats.by_edge.values() if named_bgr(c) is None]
        # Said, not refused: the seats still name the players; only south is a guess.
        print(
            "setupcam: note: --seats: south cannot be told from the bonus frames' "
            f"colours: {', '.join(map(repr, unknown))} "
            f"{'is not a colour name' if len(unknown) == 1 else 'are not colour names'} "
            "setupcam knows, and it needs two (or give #rrggbb)",
            file=sys.stderr,
        )
    return look


def locate_board(
    image: Any, calibration: Path | None, layout: Any, seats: Any = None
) -> tuple[Any, Any, str | None]:
    """``(image, corners or None, reason)``: the image undistorted when the
    calibration has a lens model, and the board's corners NW, NE, SE, SW (south
    decided as :func:`board_look` says)."""
    from calibration.board_finder import find_board
    from calibration.board_location import BoardNotFound

    look = board_look(calibration, seats)
    moved = False
    if calibration is not None:
        from calibration.camera_file import load_calibration, undistort

        cal = load_calibration(calibration)
        image = undistort(image, cal)
        height, width = image.shape[:2]
        corners = cal.board_corners_for(width, height)
        if corners is None and cal.board_corners is not None:
            print(
                f"{calibration}: made for {cal.image_size[0]}x{cal.image_size[1]} pictures, "
                f"this photo is {width}x{height}: looking for the board",
                file=sys.stderr,
            )
        if corners is not None:
            if _still_there(look, image, corners):
                return image, corners, None
            # Reading through corners the board has left would print nonsense.
            moved = True
            print(
                f"{calibration}: the board is not where this calibration puts it (camera or "
                "board moved?); looking for it",
                file=sys.stderr,
            )
    try:
        location = find_board(image, layout, look=look)
    except BoardNotFound as err:
        reason = err.reason
        if moved:
            reason = f"not where {calibration} puts it, and not found: {reason}"
        return image, None, reason
    if location.orientation_source == "nearest-edge":
        # A wrong guess names every square wrongly, surely: say it was a guess.
        print(
            "setupcam: south taken as the board's edge nearest the bottom of the photo; "
            "give --seats (the players' colours) or --calibration if it is another edge",
            file=sys.stderr,
        )
    return image, location.corners, None


def _still_there(look: Any, image: Any, corners: Any) -> bool:
    """Whether the registered board still lies at ``corners``, as far as its look
    (the rim profile) can tell; ``True`` when the look has no rim to compare."""
    from calibration.rim_profile import STILL_THERE, rim_match

    if look is None or getattr(look, "rim", None) is None:
        return True
    return rim_match(look.rim, image, corners) >= STILL_THERE


def recognize_image(
    image: Any,
    recognizer: Any,
    layout: Any,
    calibration: Path | None = None,
    seats: Any = None,
) -> tuple[dict[str, Any], Any, Any]:
    """The contract's JSON object for one image, plus the (undistorted) image and
    the readings (``None`` when no board was found), for callers that draw them."""
    image, corners, reason = locate_board(image, calibration, layout, seats)
    if corners is not None and share_inside(corners, image.shape) < NOT_IN_PICTURE:
        # Corners from a calibration of another view: no square can be read.
        corners, reason = None, f"the board's corners from {calibration} lie outside this picture"
    if corners is None:
        out = {
            # "corners" is there, null, so a script reading it gets None, not a KeyError.
            "board": {"found": False, "corners": None, "reason": reason},
            "squares": {s: "?" for s in layout.squares},
            "confidence": {s: 0.0 for s in layout.squares},
        }
        return out, image, None
    readings = recognizer.read_board(image, corners, layout, all_turns=True)
    squares: dict[str, str | None] = {}
    for name, reading in readings.items():
        if reading.label is None:
            squares[name] = None
        elif reading.unread:
            squares[name] = "?"
        else:
            squares[name] = str(reading.label)
    out = {
        "board": {
            "found": True,
            "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
        },
        "squares": squares,
        "confidence": {name: round(r.confidence, 3) for name, r in readings.items()},
    }
    return out, image, (corners, readings)


NOT_IN_PICTURE = 0.1
"""Under this share of its outline in the picture, a board is not in it at all."""


def share_inside(corners: Any, shape: tuple[int, ...]) -> float:
    """How much of the board's outline lies inside a picture of ``shape``."""
    import cv2
    import numpy as np

    height, width = shape[:2]
    quad = np.asarray(corners, np.float32).reshape(4, 2)
    frame = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    board = abs(cv2.contourArea(quad))
    if board <= 0:
        return 0.0
    inside, _ = cv2.intersectConvexConvex(quad, frame)
    return float(inside) / board


def outside_advice(corners: Any, shape: tuple[int, ...]) -> str | None:
    """A hint when much of the board's outline lies outside the picture (corners from
    a calibration of another view): its squares there can only read "?"."""
    share = share_inside(corners, shape)
    if share >= 0.9:
        return None
    return (
        f"only {100 * share:.0f}% of the board's outline lies inside the picture, so the "
        'squares outside it read "?": register the board again (setupcam calibrate '
        "board) or turn the camera onto it"
    )


def draw_debug(image: Any, corners: Any, readings: dict, layout: Any) -> Any:
    """The image with the board outline and each square's reading written on it."""
    import cv2
    import numpy as np

    from vision.board_view import board_homography

    out = image.copy()
    h = board_homography(corners)
    quad = np.round(corners).astype(np.int32)
    cv2.polylines(out, [quad], True, (0, 255, 0), 2, cv2.LINE_AA)
    for name, reading in readings.items():
        rect = layout.rects[name]
        pts = np.array([[*c, 1.0] for c in rect.corners]) @ h.T
        pts = pts[:, :2] / pts[:, 2:3]
        colour = (0, 200, 255) if reading.label == "?" else (0, 255, 0)
        cv2.polylines(out, [np.round(pts).astype(np.int32)], True, colour, 1, cv2.LINE_AA)
        # OpenCV fonts have no suit symbols: write the ASCII notation.
        label = reading.label
        text = "-" if label is None else label if isinstance(label, str) else label.ascii
        x, y = pts.mean(axis=0)
        for thickness, ink in ((4, (0, 0, 0)), (1, colour)):
            cv2.putText(
                out,
                f"{text} {reading.confidence:.2f}",
                (int(x) - 30, int(y) + 5),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.5,
                ink,
                thickness,
                cv2.LINE_AA,
            )
    return out


def run(args: argparse.Namespace) -> int:
    import cv2

    from setupcam.cli import UsageError
    from setupcam.inputs import (
        IMAGE_SUFFIXES,
        check_out,
        existing_file,
        print_json,
        read_image,
        read_layout,
    )

    layout = read_layout(args.layout)
    if args.calibration is not None:
        existing_file(args.calibration, "calibration file")
    seats = parse_seats(args.seats)
    if args.debug is not None:
        check_out(args.debug, IMAGE_SUFFIXES, "--debug", "an image", inputs=[args.image])
    image = read_image(args.image)
    recognizer = load_recognizer(args.model, args.enrollment)
    out, image, found = recognize_image(image, recognizer, layout, args.calibration, seats)
    print_json(out)
    if found is None:
        print(
            f"setupcam recognize: board not found in {args.image}: {out['board']['reason']}",
            file=sys.stderr,
        )
    else:
        from vision.recognizer import small_board_advice

        advice = outside_advice(found[0], image.shape) or small_board_advice(found[0])
        if advice is not None:
            print(f"setupcam recognize: {args.image}: {advice}", file=sys.stderr)
    if args.debug is not None:
        picture = image if found is None else draw_debug(image, *found, layout)
        try:
            written = cv2.imwrite(str(args.debug), picture)
        except cv2.error:
            written = False
        if not written:
            raise UsageError(f"{args.debug}: cannot write the debug image")
    if found is not None and recognizer.enrollment is None:
        # As serve says it: a real set read without enrolment is misread with confidence.
        from vision.recognizer import NOT_ENROLLED_ADVICE

        print(f"setupcam recognize: note: {NOT_ENROLLED_ADVICE}", file=sys.stderr)
    return 0
