"""``setupcam eval --games N --seed S [--hands] [--style FAMILY] [--enroll] [--json]``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from setupcam.cli import UsageError, seed

if TYPE_CHECKING:
    from setupcam.evaluate import EvalReport


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="measure accuracy and speed on simulated games through the live pipeline",
        description="Render simulated games, run every frame through the same pipeline "
        "as `serve`, and report against the ground truth: per-square error, turns scored "
        "right, flagged for confirmation, or wrong without a flag, frame times, delays.",
    )
    parser.add_argument("--games", type=int, required=True, help="how many games")
    parser.add_argument("--seed", type=seed, required=True, help="first game's seed")
    parser.add_argument("--hands", action="store_true", help="hands place the tiles")
    parser.add_argument("--style", help="tile art family (default: a training family per game)")
    parser.add_argument("--max-turns", type=int, default=400, help="stop each game after N turns")
    parser.add_argument("--players", default="S=red,W=green,N=yellow,E=purple", help="seats")
    parser.add_argument("--model", help="tile model (default: models/tiles.onnx)")
    parser.add_argument("--enrollment", help="an enrolled tile set")
    parser.add_argument(
        "--enroll",
        action="store_true",
        help="enrol each game's tile set first, from 5 photos of its table laid out as the "
        "Enrol tiles page asks, as a user does",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from setupcam.evaluate import evaluate, print_progress
    from vision.synth.styles import FAMILIES

    if args.games < 1:
        raise UsageError("--games must be at least 1")
    if args.max_turns < 1:
        raise UsageError("--max-turns must be at least 1")
    if args.enroll and args.enrollment:
        raise UsageError("--enroll enrols each game's own tiles: leave out --enrollment")
    if args.style is not None and args.style not in FAMILIES:
        raise UsageError(f"unknown --style {args.style!r}; families: {', '.join(FAMILIES)}")
    report = evaluate(
        args.games,
        args.seed,
        hands=args.hands,
        style=args.style,
        max_turns=args.max_turns,
        players=args.players,
        model_path=args.model,
        enrollment_path=args.enrollment,
        enroll=args.enroll,
        progress=print_progress,
    )
    print(file=sys.stderr)  # end the progress line
    data = report.to_json()
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
        return 0
    rows = [
        ("games / frames", f"{report.games} / {report.frames}"),
        ("per-square error", f"{report.per_square_error:.4%} of {report.squares_read} squares"),
        ("  of which unread (?)", f"{report.per_square_unknown:.4%}"),
        ("  of which confidently wrong", f"{report.per_square_wrong:.4%}"),
        *_worst_game_row(report),
        (
            "exact positions",
            f"{report.exact_position_rate:.2%} of {report.frames_clear} clear frames",
        ),
        (
            "per-square error of the steady views",
            f"{report.steady_view_error:.4%} of {report.steady_views} views "
            f"(confidently wrong {report.steady_view_wrong:.4%})",
        ),
        ("turns", str(report.turns)),
        ("  scored right", str(report.turns_correct)),
        ("  flagged for the players", str(report.turns_flagged)),
        ("  WRONG without a flag", str(report.turns_wrong_silent)),
        ("  missed", str(report.turns_missed)),
        ("plays recorded that never happened", str(report.turns_extra)),
        ("bonus points missed", str(report.bonus_missed)),
        ("start squares the players fixed", str(report.start_squares_fixed)),
        ("frames without the board", str(report.board_not_found)),
        *([("games enrolled first", f"{report.games_enrolled}/{report.games}")] * args.enroll),
        (
            "games told many tiles were unread",
            f"{report.games_told_unread}/{report.games} "
            f"({report.frames_told_unread:.1%} of frames)",
        ),
        ("frame time p50 / p95", f"{report.frame_ms_p50:.1f} / {report.frame_ms_p95:.1f} ms"),
        (
            "turn shown (score or question) p50 / p95",
            f"{report.score_delay_s_p50:.2f} / {report.score_delay_s_p95:.2f} s",
        ),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


def _worst_game_row(report: EvalReport) -> list[tuple[str, str]]:
    """Where the error is: one game can hold most of it (a small or soft picture)."""
    worst = report.worst_game()
    if worst is None or report.games < 2:
        return []
    board = f", board {worst['board_px']:.0f} px" if worst["board_px"] is not None else ""
    return [
        (
            "  the worst game",
            f"seed {worst['seed']} ({worst['family']}{board}): "
            f"{worst['per_square_error']:.2%} of its {worst['squares_read']} squares",
        )
    ]
