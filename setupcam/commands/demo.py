"""``setupcam demo``: the whole live app on the built-in simulated table."""

from __future__ import annotations

import argparse

from setupcam.cli import UsageError, seed
from setupcam.live_options import add_live_options, check_live_options


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="run the live app on the built-in simulated table (no camera needed)",
        description="Simulated games are rendered frame by frame, read by the real "
        "pipeline, scored, and shown on the dashboard. The simulated players press New "
        "game and Swap, and answer the app's questions, as people at the table would.",
    )
    parser.add_argument("--seed", type=seed, default=0, help="first simulated game's seed")
    parser.add_argument(
        "--players",
        default="S=red,W=green,N=yellow,E=purple",
        help="colour at each edge of the simulated table, e.g. S=red,N=green (2-4 players)",
    )
    parser.add_argument("--no-hands", action="store_true", help="tiles appear without hands")
    parser.add_argument("--style", help="tile art family of the simulated table")
    parser.add_argument("--db", help="game database (default: a fresh one for the demo)")
    add_live_options(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import tempfile

    from vision.sim_source import SimulatedTableSource
    from vision.synth.styles import FAMILIES

    if args.style is not None and args.style not in FAMILIES:
        raise UsageError(f"unknown --style {args.style!r}; families: {', '.join(FAMILIES)}")
    check_live_options(args)
    source = SimulatedTableSource(
        args.seed, players=args.players, hands=not args.no_hands, family=args.style
    )
    # The demo's games are not the user's: keep them apart unless --db says otherwise.
    # Its folder goes when the demo stops (--db keeps the games where it says).
    with tempfile.TemporaryDirectory(prefix="setupcam-demo-") as scratch:
        return _serve(args, source, scratch)


def _serve(args: argparse.Namespace, source, scratch: str) -> int:  # type: ignore[no-untyped-def]
    from setupcam.live_app import build_live_app, run_until_interrupted

    db = args.db or f"{scratch}/games.sqlite"
    live = build_live_app(
        source,
        settle_s=args.settle,
        host=args.host,
        db_path=db,
        model_path=args.model,
        simulated_players=True,
        resume=args.db is not None,
        # The simulated tiles are not the user's: an enrolment made on the Enrol page
        # stays with the demo, and the user's own is not read.
        enrollment_out=f"{scratch}/enrollment.npz",
    )
    print("setupcam demo: simulated games on a simulated table, read by the real pipeline.")
    return run_until_interrupted(live, args.host, args.port)
