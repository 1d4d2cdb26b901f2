"""``setupcam score BEFORE AFTER --seats ... --active COLOUR``: score one turn."""

from __future__ import annotations

import argparse

from engine import Layout, Position, Seats, SeatsError, Teams
from engine.turn import analyse_turn
from setupcam.cli import UsageError
from setupcam.inputs import (
    is_image,
    position_from_photo,
    position_of,
    print_json,
    read_layout,
    read_photo,
    read_position_file,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score one turn from the positions before and after it",
        description="Compare two positions and print the turn as JSON: placed tiles, "
        "legality, sets, points and other players' bonus points.",
    )
    parser.add_argument("before", help="the board before the turn: position JSON file or photo")
    parser.add_argument("after", help="the board after the turn: position JSON file or photo")
    parser.add_argument("--seats", required=True, help="colour at each edge, e.g. S=red,W=green")
    parser.add_argument("--active", required=True, metavar="COLOUR", help="the player who moved")
    parser.add_argument("--layout", help="a layout JSON file (default: setup-standard)")
    parser.add_argument("--calibration", help="calibration file, for positions given as photos")
    parser.add_argument(
        "--teams",
        metavar="red+yellow,green+purple",
        help="the 2-against-2 game (checked against --seats; one turn scores as in any game)",
    )
    parser.add_argument(
        "--explain", action="store_true", help="also print the turn in words on a second line"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    layout = read_layout(args.layout)
    try:
        seats = Seats.parse(args.seats)
        seats.edge_of(args.active)
    except SeatsError as err:
        raise UsageError(f"--seats/--active: {err}") from None
    if args.teams is not None:
        try:
            Teams.parse(args.teams, seats)
        except SeatsError as err:
            raise UsageError(f"--teams: {err}") from None
    if args.calibration is not None:
        # Checked even when both positions are JSON: a bad file is a mistake either way.
        from calibration.camera_file import load_calibration

        load_calibration(args.calibration)
    before = _read_board(args.before, layout, args.calibration, seats)
    if is_image(args.after):
        after = _decode_after(args.after, before, seats, args.active, args.calibration)
    else:
        after = read_position_file(args.after, layout)
    result = analyse_turn(before, after, seats, args.active)
    print_json(result.to_json())
    if args.explain:
        print(result.explain())
    return 0


def _read_board(path: str, layout: Layout, calibration: str | None, seats: Seats) -> Position:
    if is_image(path):
        return position_from_photo(path, layout, calibration, seats)
    return read_position_file(path, layout)


def _decode_after(
    path: str, before: Position, seats: Seats, active: str, calibration: str | None
) -> Position:
    """The board after the play, read from a photo with the game's help: tiles are
    unique, and a square changes only by a tile placed on top."""
    from vision.decoder import GameContext, decode

    readings = read_photo(path, before.layout, calibration, seats)
    probabilities = {s: r.probabilities for s, r in readings.items()}
    decision = decode(probabilities, GameContext(before, frozenset(), seats, active))
    unsure = [r for r in decision.reasons if r.startswith("not sure")]
    if unsure:
        # No play on top of BEFORE fits the photo. If the photo reads every square by
        # itself, score that: a tile taken away is an illegal play, not a doubt.
        try:
            return position_of(readings, before.layout, path)
        except UsageError:
            raise UsageError(
                f"{path}: " + "; ".join(unsure) + "; give a position JSON file"
            ) from None
    return decision.position
