"""``setupcam replay GAME.json``: replay a whole game, one JSON line per turn."""

from __future__ import annotations

import argparse

from engine import GameError, GameRecord, GameState
from setupcam.cli import UsageError
from setupcam.inputs import print_json, read_json, read_layout


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a recorded game and print every turn and the result",
        description="Replay GAME.json: one JSON line per turn (the turn object of `score` "
        "plus player, action and running scores), then the final scores and winner.",
    )
    parser.add_argument("game", metavar="GAME.json", help="the game record")
    parser.add_argument("--layout", help="a layout JSON file (default: setup-standard)")
    parser.add_argument(
        "--explain", action="store_true", help="print the turns in words instead of JSON"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    layout = read_layout(args.layout)
    data = read_json(args.game)
    try:
        state = GameRecord.from_json(data, layout).replay()
    except GameError as err:
        raise UsageError(f"{args.game}: {err}") from None
    if args.explain:
        _print_words(state)
        return 0
    for outcome in state.outcomes:
        print_json(outcome.to_json())
    print_json({"final": final_json(state)})
    return 0


def final_json(state: GameState) -> dict[str, object]:
    """The contract's last line. A record that stops before the finish line still
    names a winner (the leader by the rules) and the turn it stopped after, so the
    line keeps the contract's types; ``finished`` tells the two cases apart."""
    standing = state.standing
    return {
        "scores": dict(state.scores),
        "winner": standing.winner,
        "ended_after_turn": standing.after_turn,
        "finished": state.finished,
        "reason": standing.reason,
    }


def _print_words(state: GameState) -> None:
    for outcome in state.outcomes:
        scores = ", ".join(f"{p} {s}" for p, s in outcome.scores.items())
        what = outcome.result.explain() if outcome.result else "swapped."
        checks = "".join(f" Check: {warning}." for warning in outcome.warnings)
        print(f"Turn {outcome.number} ({outcome.turn.player}): {what}{checks} Scores: {scores}.")
    ending = state.ending
    if ending:
        print(f"Game over after turn {ending.after_turn}: {ending.winner} wins: {ending.reason}.")
    else:
        leader = state.standing.winner
        print(f"The game is not over; {leader} leads and {state.next_player} is to play.")
