"""Command-line options shared by the live commands (``demo`` and ``serve``)."""

from __future__ import annotations

import argparse

from setupcam.cli import UsageError
from vision.stability import SETTLE_S


def add_live_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=5000, help="port (default 5000)")
    parser.add_argument("--model", metavar="FILE", help="tile model (default: models/tiles.onnx)")
    parser.add_argument(
        "--settle",
        type=float,
        default=SETTLE_S,
        metavar="SECONDS",
        help="how long the board must be still and clear of hands before a play counts",
    )


def check_live_options(args: argparse.Namespace) -> None:
    if not 0.05 <= args.settle <= 10:
        raise UsageError(f"--settle must be between 0.05 and 10 seconds, not {args.settle}")
    if not 1 <= args.port <= 65535:
        raise UsageError(f"--port must be 1..65535, not {args.port}")
