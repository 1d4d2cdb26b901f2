"""``setupcam score BEFORE AFTER --seats ... --active COLOUR``: score one turn."""

from __future__ import annotations

import argparse

from engine import SeatsError
from engine.seats import Seats
from engine.turn import analyse_turn
from setupcam.cli import UsageError
from setupcam.inputs import print_json, read_layout, read_position_file


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "score",
        help="score one turn from the positions before and after it",
        description="Compare two positions and print the turn as JSON: placed tiles, "
        "legality, sets, points and other players' bonus points.",
    )
    parser.add_argument("before", help="position JSON file before the turn")
    parser.add_argument("after", help="position JSON file after the turn")
    parser.add_argument("--seats", required=True, help="colour at each edge, e.g. S=red,W=green")
    parser.add_argument("--active", required=True, metavar="COLOUR", help="the player who moved")
    parser.add_argument("--layout", help="a layout JSON file (default: setup-standard)")
    parser.add_argument("--calibration", help="calibration file, for positions given as photos")
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
    before = read_position_file(args.before, layout)
    after = read_position_file(args.after, layout)
    result = analyse_turn(before, after, seats, args.active)
    print_json(result.to_json())
    if args.explain:
        print(result.explain())
    return 0
