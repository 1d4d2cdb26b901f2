"""``setupcam calibrate``: printable targets, lens calibration and board registration.

setupcam calibrate target --out charuco.pdf
setupcam calibrate markers --out markers.pdf
setupcam calibrate lens photo1.jpg photo2.jpg ... --out camera.json
setupcam calibrate board frame.jpg [--calibration camera.json]
    [--corners "x,y x,y x,y x,y" | --markers] [--turn N] [--debug debug.png]
    --out calibration.json   (also writes calibration.look.json, the board's look)
"""

from __future__ import annotations

import argparse
from typing import Any

from setupcam.cli import UsageError
from setupcam.inputs import check_out, read_image, refuse_repeated_photos


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate", help="lens calibration, board registration and printable targets"
    )
    sub = parser.add_subparsers(dest="what", metavar="WHAT", parser_class=type(parser))
    sub.required = True

    target = sub.add_parser("target", help="write the printable ChArUco lens target (A4)")
    target.add_argument("--out", required=True, help="output file, .png (300 dpi) or .pdf")
    target.set_defaults(handler=_target)

    markers = sub.add_parser("markers", help="write the printable corner-marker sheet (A4)")
    markers.add_argument("--out", required=True, help="output file, .png (300 dpi) or .pdf")
    markers.set_defaults(handler=_markers)

    lens = sub.add_parser("lens", help="calibrate the lens from photos of the printed target")
    lens.add_argument("images", nargs="+", metavar="IMAGE", help="10-15 photos of the target")
    lens.add_argument("--out", required=True, help="calibration JSON to write")
    lens.add_argument(
        "--keep-anyway",
        action="store_true",
        help="write the calibration even when the photos call for a retake",
    )
    lens.set_defaults(handler=_lens)

    board = sub.add_parser("board", help="find the board in a photo and save its corners")
    board.add_argument("image", metavar="IMAGE", help="a photo from the camera in its place")
    board.add_argument("--calibration", help="lens calibration JSON (from 'calibrate lens')")
    board.add_argument("--layout", default="setup-standard", help="layout name or JSON file")
    how = board.add_mutually_exclusive_group()
    how.add_argument("--corners", help='the board corners NW NE SE SW in pixels: "x,y x,y x,y x,y"')
    how.add_argument("--markers", action="store_true", help="use the four corner markers")
    board.add_argument(
        "--turn",
        type=int,
        default=0,
        choices=(0, 1, 2, 3),
        help="turn the found orientation this many quarter turns clockwise "
        "(south is first taken to be the edge nearest the camera)",
    )
    board.add_argument(
        "--seats",
        metavar="S=red,...",
        help="who sits where: tells south from the colours of the bonus frames",
    )
    board.add_argument("--debug", metavar="OUT.png", help="draw what was found into an image")
    board.add_argument("--out", required=True, help="calibration JSON to write")
    board.set_defaults(handler=_board)


def _target(args: argparse.Namespace) -> int:
    from calibration.lens import MARKER_MM, SQUARE_MM, SQUARES_X, SQUARES_Y, write_charuco_target

    out = check_out(args.out, (".png", ".pdf"))
    write_charuco_target(out)
    print(
        f"wrote {out}: ChArUco {SQUARES_X}x{SQUARES_Y}, {SQUARE_MM:g} mm squares, "
        f"{MARKER_MM:g} mm markers, A4 landscape; print at 100% scale"
    )
    return 0


def _markers(args: argparse.Namespace) -> int:
    from calibration.markers import MARGIN_MM, MARKER_MM, write_marker_sheet

    out = check_out(args.out, (".png", ".pdf"))
    write_marker_sheet(out)
    print(
        f"wrote {out}: four corner markers ({MARKER_MM:g} mm, {MARGIN_MM:g} mm white margin), "
        "A4; cut them out and lay each outside its board corner"
    )
    return 0


def _lens(args: argparse.Namespace) -> int:
    from calibration.lens import MIN_VIEWS, calibrate_lens

    out = check_out(args.out, (".json",))
    if len(args.images) < MIN_VIEWS:
        raise UsageError(
            f"{len(args.images)} photo(s) given: the lens needs the target seen in at least "
            f"{MIN_VIEWS} photos (best 10-15, from different angles)"
        )
    refuse_repeated_photos(args.images, "give each photo of the target once")
    images = [read_image(p) for p in args.images]
    try:
        result = calibrate_lens(images, [str(p) for p in args.images])
    except ValueError as err:
        raise UsageError(str(err)) from None
    for path, used, error in zip(args.images, result.used, result.view_errors, strict=True):
        if not used:
            detail = "target not found"
        elif error == error:  # not NaN: the photo took part in a fit
            detail = f"{error:.2f} px"
        else:
            detail = "target seen (keep this photo)"
        print(f"  {path}: {detail}")
    if result.camera_matrix is None:
        # Nothing was written: the photos could not make a calibration, which is bad input.
        raise UsageError(" ".join(result.verdict.split()))
    print(result.verdict)
    k = result.camera_matrix
    fitted = f"rms {result.rms:.3f} px, fx {k[0][0]:.1f} fy {k[1][1]:.1f}"
    if not result.ok and not args.keep_anyway:
        # A lens model the photos cannot vouch for would bend every later reading:
        # photos not good enough are bad input, said as every command says it.
        raise UsageError(
            f"{fitted}; nothing written to {out} (a file there is as it was): retake the "
            "photos, or add --keep-anyway to write this calibration"
        )
    _save(result.to_calibration(), out)
    print(f"{fitted}; wrote {out}")
    return 0  # good, acceptable, or kept as asked


def _save(cal: Any, out: Any) -> None:
    """Write the calibration, saying where the one it replaced is kept."""
    from calibration.camera_file import save_calibration

    kept = save_calibration(cal, out)
    if kept is not None:
        print(f"the calibration that was at {out} is kept as {kept}")


EDGE_MARGIN = 0.01
"""A found corner this close to the photo's edge (a share of its width) may be cut off."""


def _corner_at_the_edge(corners: Any, width: int, height: int) -> str | None:
    """The name of a corner at (or past) the photo's edge, or ``None``.

    >>> _corner_at_the_edge([(100, 100), (900, 100), (1275, 600), (100, 600)], 1280, 720)
    'SE'
    """
    margin = EDGE_MARGIN * width
    for name, (x, y) in zip(("NW", "NE", "SE", "SW"), corners, strict=True):
        if not (margin <= x <= width - margin and margin <= y <= height - margin):
            return name
    return None


def _is_the_lens_target(image: Any, corners: Any) -> bool:
    """Whether most of the lens target's corners seen in ``image`` lie inside the
    outline: a printed target is square-ish and gridded, as a board is. A target lying
    on the table beside the board is outside the board's outline."""
    import cv2
    import numpy as np

    from calibration.lens import detect_charuco

    found = detect_charuco(image)
    if found is None:
        return False
    outline = np.asarray(corners, np.float32).reshape(-1, 1, 2)
    inside = [cv2.pointPolygonTest(outline, (float(x), float(y)), False) >= 0 for x, y in found[1]]
    return sum(inside) > len(inside) / 2


def _parse_corners(text: str) -> list[tuple[float, float]]:
    tokens = text.replace(";", " ").split()
    if len(tokens) != 4:
        raise UsageError(
            f'--corners needs four points "x,y x,y x,y x,y" (NW NE SE SW), got {text!r}'
        )
    points = []
    for token in tokens:
        parts = token.split(",")
        try:
            if len(parts) != 2:
                raise ValueError
            points.append((float(parts[0]), float(parts[1])))
        except ValueError:
            raise UsageError(f"--corners: {token!r} is not a point x,y") from None
    return points


def _board(args: argparse.Namespace) -> int:
    import cv2

    from calibration.board_finder import find_board
    from calibration.board_location import BoardNotFound, manual_board
    from calibration.camera_file import (
        Calibration,
        load_calibration,
        save_board_look,
        undistort,
    )
    from calibration.markers import find_board_by_markers, missing_markers
    from calibration.orientation import BoardLook
    from setupcam.commands.recognize import board_look, parse_seats
    from setupcam.inputs import read_layout

    out = check_out(args.out, (".json",))
    debug = check_out(args.debug, (".png", ".jpg"), inputs=[args.image]) if args.debug else None
    image = read_image(args.image)
    layout = read_layout(args.layout)
    height, width = image.shape[:2]
    look = board_look(args.calibration, parse_seats(args.seats))
    if args.calibration:
        cal = load_calibration(args.calibration)
        if cal.image_size != (width, height) and (
            cal.image_size[0] * height != cal.image_size[1] * width
        ):
            raise UsageError(
                f"{args.image}: image is {width}x{height} but the lens was calibrated at "
                f"{cal.image_size[0]}x{cal.image_size[1]}"
            )
        # A calibration file without a lens (one that only registered the board) is
        # given for its board look; it has nothing to undistort.
        if cal.has_lens:
            image = undistort(image, cal)
            cal = Calibration((width, height), *_scaled_lens(cal, width, height))
        else:
            cal = Calibration((width, height))
    else:
        cal = Calibration((width, height))
    if args.corners is not None:
        location = manual_board(_parse_corners(args.corners))
        how = "from the corners you gave"
    elif args.markers:
        location = find_board_by_markers(image)
        if location is None:
            missing = ", ".join(missing_markers(image)) or "none"
            raise UsageError(f"board not found: corner markers missing: {missing}")
        how = "from the four corner markers"
    else:
        try:
            location = find_board(image, layout, look=look)
        except BoardNotFound as err:
            raise UsageError(f"board not found: {err.reason}") from None
        if _is_the_lens_target(image, location.corners):
            raise UsageError(
                f"{args.image}: the outline found is the lens's printed target, not the board: "
                "give photos of the target to `setupcam calibrate lens`, and a photo of the "
                "board to `calibrate board`"
            )
        how = {
            "nearest-edge": "automatically; south taken as the edge nearest the bottom of the "
            "image (give --seats to tell it from the bonus frames' colours)",
            "seats": "automatically; south from the bonus frames' colours and --seats",
            "signature": "automatically; south and the board's rim from the look saved "
            "with --calibration",
        }.get(location.orientation_source, "automatically")
    if args.turn:
        location = location.rotated(args.turn, "manual")
        how += f", turned {args.turn} quarter turn(s) clockwise"
    _save(cal.with_board(location.corners), out)
    # Remember the board's look (its edges' colours) so later frames, from any camera
    # position, know which edge is south without asking again.
    board_look = BoardLook.capture(image, location, layout)
    look_file = save_board_look(board_look, out)
    corners = " ".join(
        f"{n}=({x:.1f},{y:.1f})"
        for n, (x, y) in zip(("NW", "NE", "SE", "SW"), location.corners, strict=True)
    )
    print(f"board found {how} (confidence {location.confidence:.2f}): {corners}")
    from vision.recognizer import small_board_advice

    advice = small_board_advice(location.corners)
    if advice is not None:  # this is when the camera gets placed: say it now
        print(f"note: {advice}")
    if args.corners is None:
        edge = _corner_at_the_edge(location.corners, width, height)
        if edge is not None:
            # Found automatically, an outline cut by the picture's edge is often a ring
            # inside the board, or the board's edge misplaced: the user should look.
            print(
                f"note: the board's {edge} corner is at the edge of the photo: the outline "
                "may be wrong there (check it with --debug); leave a margin round the "
                "board, or give its corners with --corners"
            )
    if debug is not None:
        if not cv2.imwrite(str(debug), draw_location(image, location, layout)):
            raise UsageError(f"{args.debug}: cannot write the debug image")
        print(f"wrote {debug}")
    print(f"wrote {out}")
    tell = (
        "its edges look distinct: orientation will follow the board"
        if board_look.distinct()
        else "its edges look alike: orientation will rely on tracking"
    )
    print(f"wrote {look_file} (the board's look; {tell})")
    return 0


def _scaled_lens(cal: Any, width: int, height: int) -> tuple[Any, Any]:
    from calibration.camera_file import scaled_camera_matrix

    matrix = scaled_camera_matrix(cal.camera_matrix, cal.image_size, (width, height))
    return matrix, cal.dist_coeffs


def draw_location(image: Any, location: Any, layout: Any) -> Any:
    """The image with the board outline, the squares and the edge letters S/W/N/E drawn."""
    import cv2
    import numpy as np

    canvas = image.copy()
    thick = max(2, round(location.width_px() / 250))
    cv2.polylines(
        canvas, [np.round(location.corners).astype(np.int32)], True, (0, 255, 0), thick, cv2.LINE_AA
    )
    for name, quad in location.square_quads(layout).items():
        cv2.polylines(
            canvas, [np.round(quad).astype(np.int32)], True, (0, 200, 255), thick - 1, cv2.LINE_AA
        )
        cx, cy = quad.mean(axis=0)
        cv2.putText(
            canvas,
            name,
            (int(cx) - 10, int(cy) + 5),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5,
            (0, 200, 255),
            1,
            cv2.LINE_AA,
        )
    labels = {"N": (0.5, 0.06), "E": (0.94, 0.5), "S": (0.5, 0.94), "W": (0.06, 0.5)}
    for letter, point in labels.items():
        x, y = location.to_image([point])[0]
        cv2.putText(
            canvas,
            letter,
            (int(x) - 10, int(y) + 10),
            cv2.FONT_HERSHEY_SIMPLEX,
            1.0,
            (0, 0, 255),
            3,
            cv2.LINE_AA,
        )
    return canvas
