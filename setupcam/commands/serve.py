"""``setupcam serve --camera 0 | --video FILE | --url URL | --folder DIR``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from engine import GameOptions, GameSetup, Seats, SeatsError, Teams
from setupcam.cli import UsageError
from setupcam.inputs import check_out, existing_file
from setupcam.live_options import add_live_options, check_live_options


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the live app on a real camera, video file, stream or image folder",
        description="Read the table from a real source, score every turn, and serve "
        "the dashboard. Games are saved at every turn and resumed at the next start.",
    )
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--camera", type=int, metavar="INDEX", help="webcam index, e.g. 0")
    group.add_argument("--video", metavar="FILE", help="a video file")
    group.add_argument("--url", help="an RTSP or HTTP stream")
    group.add_argument("--folder", metavar="DIR", help="a folder of images, in name order")
    parser.add_argument("--calibration", metavar="FILE", help="calibration file (lens, board)")
    parser.add_argument("--layout", metavar="FILE", help="a layout file for a different board")
    parser.add_argument("--enrollment", metavar="FILE", help="an enrolled tile set")
    parser.add_argument("--db", metavar="FILE", help="game database (default in ~/.local/share)")
    game = parser.add_argument_group(
        "starting a game by itself (to score a recording with nobody at the dashboard)"
    )
    game.add_argument(
        "--seats",
        help="start a game with these seats, e.g. S=red,W=green, at the first steady view "
        "of the board, as New game on the dashboard does (a swap cannot be seen: press "
        "Swap on the dashboard)",
    )
    game.add_argument(
        "--teams", help="with --seats: the 2-against-2 game, e.g. red+yellow,green+purple"
    )
    game.add_argument(
        "--equal-turns",
        action="store_true",
        help="with --seats: play on after the finish line until all have had as many turns",
    )
    parser.add_argument(
        "--each",
        type=float,
        metavar="SECONDS",
        help="with --folder: each image stands for this long (a photo per turn: 2); "
        "by default the images are a video's frames, 1/15 s apart",
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="with --video or --folder: read it as fast as it can be read, not at the pace "
        "it was taken (either way it waits while the dashboard asks about a play)",
    )
    add_live_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from setupcam.live_app import build_live_app, run_until_interrupted
    from vision.sources import CaptureSource, ImageFolderSource

    if args.camera is not None and args.camera < 0:
        raise UsageError(
            f"--camera must be 0 or more (cameras are numbered from 0), not {args.camera}"
        )
    check_live_options(args)
    # FFmpeg's own lines ("Connection refused", "No JPEG data found") would say again,
    # in its words, what our one-line errors and the camera line say. Set it to 24 to
    # see them.
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    start_game = _game_to_start(args)
    if args.each is not None and not args.folder:
        raise UsageError("--each is for a folder of images (--folder)")
    if args.each is not None and not 0.05 <= args.each <= 600:
        raise UsageError(f"--each must be between 0.05 and 600 seconds, not {args.each}")
    if args.fast and not (args.video or args.folder):
        raise UsageError(
            "--fast is for a recording (--video or --folder): a camera has its own pace"
        )
    for flag in ("video", "model", "enrollment", "layout"):
        value = getattr(args, flag)
        if value is not None:
            existing_file(value, flag=f"--{flag}")
    if args.camera is not None:
        _check_camera(args.camera)
    if args.video is not None:
        _check_video(args.video)
    if args.calibration is not None and not Path(args.calibration).is_file():
        # Save on the Calibrate page writes it there: a place it can be written.
        check_out(args.calibration, (".json",), "--calibration", "a calibration")
    if args.calibration is not None and not Path(args.calibration).exists():
        # Not an error: the Calibrate page saves the calibration there.
        print(
            f"setupcam serve: note: {args.calibration} does not exist yet: the board is "
            "found without it, and the Calibrate page's Save writes it there",
            file=sys.stderr,
            flush=True,
        )
    source = (
        CaptureSource(args.camera)
        if args.camera is not None
        else CaptureSource(args.video, is_file=True)
        if args.video
        else CaptureSource(args.url)
        if args.url
        else ImageFolderSource(args.folder, each=args.each)
    )
    live = build_live_app(
        source,
        settle_s=args.settle,
        host=args.host,
        db_path=args.db,
        model_path=args.model,
        enrollment_path=args.enrollment,
        calibration_path=args.calibration,
        layout_path=args.layout,
        start_game=start_game,
        paced=not args.fast,
        say=lambda line: print(f"setupcam: {line}", flush=True),
    )
    if live.runner.pipeline.recognizer.enrollment is None:
        from vision.recognizer import NOT_ENROLLED_ADVICE

        print(f"setupcam serve: note: {NOT_ENROLLED_ADVICE}", file=sys.stderr, flush=True)
    return run_until_interrupted(live, args.host, args.port)


def _game_to_start(args: argparse.Namespace) -> GameSetup | None:
    """The game ``--seats`` asks to start (its start board comes from the camera)."""
    if args.seats is None:
        for flag in ("teams", "equal_turns"):
            if getattr(args, flag):
                raise UsageError(f"--{flag.replace('_', '-')} goes with --seats")
        return None
    try:
        seats = Seats.parse(args.seats)
    except SeatsError as err:
        raise UsageError(f"--seats: {err}") from None
    teams = None
    if args.teams is not None:
        try:
            teams = Teams.parse(args.teams, seats)
        except SeatsError as err:
            raise UsageError(f"--teams: {err}") from None
    return GameSetup(seats, teams, GameOptions(equal_turns=args.equal_turns))


def _check_video(path: str) -> None:
    """A one-line :class:`UsageError` unless ``path`` is a video with a picture in it."""
    import cv2

    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    capture = cv2.VideoCapture(path)
    try:
        ok = capture.isOpened() and capture.read()[0]
    finally:
        capture.release()
        cv2.utils.logging.setLogLevel(level)
    if not ok:
        raise UsageError(f"--video {path}: not a video OpenCV can read")


def _check_camera(index: int) -> None:
    """A one-line :class:`UsageError` unless camera ``index`` opens now. (Once running,
    a camera that drops out is reopened, and the dashboard says so.)"""
    import cv2

    # OpenCV warns on stderr for each backend it tries: the one line below says it all.
    level = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    try:
        capture = cv2.VideoCapture(index)
    finally:
        cv2.utils.logging.setLogLevel(level)
    try:
        if not capture.isOpened():
            raise UsageError(
                f"--camera {index}: no camera with this number could be opened (is it plugged "
                "in, and free of other programs? the first camera is 0)"
            )
    finally:
        capture.release()
