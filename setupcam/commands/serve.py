"""``setupcam serve --camera 0 | --video FILE | --url URL | --folder DIR``."""

from __future__ import annotations

import argparse
from pathlib import Path

from setupcam.cli import UsageError


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
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument("--calibration", metavar="FILE", help="calibration file (lens, board)")
    parser.add_argument("--layout", metavar="FILE", help="a layout file for a different board")
    parser.add_argument("--model", metavar="FILE", help="tile model (default: models/tiles.onnx)")
    parser.add_argument("--enrollment", metavar="FILE", help="an enrolled tile set")
    parser.add_argument("--db", metavar="FILE", help="game database (default in ~/.local/share)")
    parser.add_argument(
        "--settle",
        type=float,
        default=0.35,
        metavar="SECONDS",
        help="how long the board must be still and clear of hands before a play counts",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from setupcam.live_app import build_live_app, run_until_interrupted
    from vision.sources import CaptureSource, ImageFolderSource

    if not 0.05 <= args.settle <= 10:
        raise UsageError(f"--settle must be between 0.05 and 10 seconds, not {args.settle}")
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be 1..65535, not {args.port}")
    for flag in ("video", "model", "enrollment", "layout"):
        value = getattr(args, flag)
        if value is not None and not Path(value).is_file():
            raise UsageError(f"--{flag} {value}: no such file")
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
    return run_until_interrupted(live, args.host, args.port)
