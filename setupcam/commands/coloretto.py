"""`setupcam coloretto score TABLEAUS.json [--explain]`: the best Coloretto totals.

Prints the contract's JSON object (INTERFACES.md section 5); with ``--explain`` the
same result in words instead, one block per player and the winner at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from engine.coloretto import Scoresheet, explain
from setupcam.cli import UsageError
from setupcam.inputs import read_json

_FILE_HELP = """\
TABLEAUS.json:
  {"table": "brown",
   "players": {"anna": {"green": 6, "yellow": 4, "red": 3, "blue": 2,
                        "joker": 1, "golden_joker": 0, "+2": 1}}}
Colour names are free; "table" is brown or purple. A name that looks like a typo
("golden", or "Red" beside "red") is scored as written, with a note on stderr. Optional fields:
  "colours": [...]   the colours in play, which jokers may become (without it: any
                     colour in the file, or "another colour" nobody named)
  "removed": [...]   colours taken out of the game (3 players: 1, 2 players: 2)
  "players_count": N the number of players at the table (2 to 5)
"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "coloretto",
        help="Coloretto: score the players' cards at the end of a game",
        description="Coloretto, the second game setupcam knows.",
    )
    commands = parser.add_subparsers(dest="coloretto_command", metavar="COMMAND")
    commands.required = True
    score = commands.add_parser(
        "score",
        help="each player's best total and the choice that reaches it",
        description=(
            "Score Coloretto tableaus: for every player the best legal total, which 3\n"
            "colours score positive and which colour each joker becomes."
        ),
        epilog=_FILE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    score.add_argument("file", metavar="TABLEAUS.json", help="the table and each player's cards")
    score.add_argument("--explain", action="store_true", help="print the result in words")
    score.set_defaults(handler=run_score)


def run_score(args: argparse.Namespace) -> int:
    sheet = load_scoresheet(Path(args.file))
    # On stderr, so the JSON on stdout stays the contract's object.
    for note in sheet.notes:
        print(f"note: {note}", file=sys.stderr)
    if not args.explain:
        print(json.dumps(sheet.as_dict(), ensure_ascii=False))
        return 0
    scores = sheet.best_scores()
    blocks = ["\n".join(explain(name, score, sheet.table)) for name, score in scores.items()]
    if len(scores) > 1:
        best = max(score.total for score in scores.values())
        winners = [name for name, score in scores.items() if score.total == best]
        word = "winner" if len(winners) == 1 else "tie between"
        blocks.append(f"{word}: {', '.join(winners)} with {best} point{'' if best == 1 else 's'}")
    print("\n\n".join(blocks))
    return 0


def load_scoresheet(path: Path) -> Scoresheet:
    """Read and check a tableaus file; any problem is one line naming the file."""
    data = read_json(path)
    try:
        return Scoresheet.from_dict(data)
    except ValueError as err:
        raise UsageError(f"{path}: {err}") from None
