"""The ``setupcam`` command line.

Each subcommand lives in its own module under :mod:`setupcam.commands` and exposes
``register(subparsers)``, which adds its parser and sets ``handler`` to a function
taking the parsed arguments and returning an exit code.

Bad input never shows a traceback: a handler raises :class:`UsageError` (or one of
the engine's ``ValueError`` subclasses) and the user sees one line on stderr and
exit code 2.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

EXIT_BAD_INPUT = 2

# Imported lazily, so `setupcam score` does not pay for OpenCV or onnxruntime.
COMMAND_MODULES = (
    "demo",
    "serve",
    "score",
    "replay",
    "recognize",
    "enroll",
    "calibrate",
    "synth",
    "train",
    "eval",
    "coloretto",
)


class UsageError(Exception):
    """Bad input from the user: printed as one line, exit code 2."""


def seed(text: str) -> int:
    """An argparse type for ``--seed``: a whole number, 0 or more (numpy's generators
    take no negative seeds)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {value}")
    return value


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, not a usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="setupcam",
        description="A camera companion for tabletop games: scores SETUP from a webcam.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subparsers.required = True
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"setupcam.commands.{name}")
        except ModuleNotFoundError as err:
            # A subcommand whose module is not written yet is simply absent.
            if err.name == f"setupcam.commands.{name}":
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except BrokenPipeError:
        # The reader went away (`| head`): what it wanted it has; say nothing more.
        # Python flushes stdout again at exit, so point it where that cannot fail.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (UsageError, ValueError, OSError) as err:
        print(f"setupcam {args.command}: error: {_one_line(err)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"setupcam {args.command}: interrupted", file=sys.stderr)
        return 130
    return code


def _one_line(err: BaseException) -> str:
    if isinstance(err, OSError) and err.filename is not None:
        return f"{err.filename}: {err.strerror}"
    return " ".join(str(err).split())
