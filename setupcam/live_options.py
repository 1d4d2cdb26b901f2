"""Command-line options shared by the live commands (``demo`` and ``serve``)."""

from __future__ import annotations

import argparse
import errno
import socket

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
    check_can_listen(args.host, args.port)


def check_can_listen(host: str, port: int) -> None:
    """A one-line :class:`UsageError` unless the dashboard can listen on ``host:port``.

    Said before the model and the games are loaded, and in our words: the web server
    itself would print two lines of its own and exit with 1."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except socket.gaierror as err:
        raise UsageError(
            f"--host {host}: not an address of this computer ({err.strerror})"
        ) from None
    probe = socket.socket(family, kind, proto)
    try:
        # As the web server binds: an address in TIME_WAIT from a last run is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(address)
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            raise UsageError(
                f"port {port} is in use by another program (is setupcam already running? "
                "try --port with another number)"
            ) from None
        raise UsageError(f"cannot listen on {host}:{port} ({err.strerror})") from None
    finally:
        probe.close()
