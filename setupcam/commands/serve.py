"""``setupcam serve --camera 0 | --video FILE | --url URL | --folder DIR``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from setupcam.cli import UsageError
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
    for flag in ("video", "model", "enrollment", "layout"):
        value = getattr(args, flag)
        if value is not None and not Path(value).is_file():
            raise UsageError(f"--{flag} {value}: no such file")
    if args.camera is not None:
        _check_camera(args.camera)
    source = (
        CaptureSource(args.camera)
        if args.camera is not None
        else CaptureSource(args.video, is_file=True)
        if args.video
        else CaptureSource(args.url)
        if args.url
        else ImageFolderSource(args.folder)
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
    )
    if live.runner.pipeline.recognizer.enrollment is None:
        from vision.recognizer import NOT_ENROLLED_ADVICE

        print(f"setupcam serve: note: {NOT_ENROLLED_ADVICE}", file=sys.stderr, flush=True)
    return run_until_interrupted(live, args.host, args.port)


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
