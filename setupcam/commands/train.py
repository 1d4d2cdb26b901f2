"""``setupcam train``: train the tile classifier from scratch on simulator images.

``setupcam train [--network reader|enrollment-base|both]
[--recipe shipped|session-28|session-17] [--quick] [--out DIR] [--epochs N] [--threads T]
[--workers W] [--quiet]`` renders the crops (``W``
processes, default 2; cached under ``runs/data/``), trains, calibrates, exports and
prints the final evaluation table of each network. Two networks ship: the *reader*
(``OUT/tiles.onnx``) and the *enrolment base* (``OUT/enrollment-base.onnx``, its
enrolment value scale then fitted on the enrolment tuning sets). ``both``, the
default, renders the crops once, then trains the two side by side, one CPU core
each, the enrolment base in a second process logging to
``OUT/enrollment-base.log``. ``OUT`` is by default the ``models/`` the app reads, and
``runs/quick/`` for the smoke run (``--quick``), whose networks read nothing well.

Each network's last line says whether it is the shipped network, bit for bit, and if
not, why not (another recipe, another CPU's kernels, other library versions:
:mod:`vision.training.provenance`). A network the run writes over is kept in
``OUT/previous/`` unless the run made the same network again, so enrolments made with
it stay readable.
Needs the ``train`` extra (torch): ``pip install -e '.[train]'``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

NETWORK_CHOICES = ("both", "reader", "enrollment-base")
# vision.training.fit.RECIPES, without importing torch
RECIPE_CHOICES = ("shipped", "session-28", "session-17")
PREVIOUS = "previous"
"""Where, under ``--out``, the networks a run writes over are kept."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train the tile classifier on simulator images (needs torch)",
        description=(
            "Train the tile classifier from scratch: render simulator crops, train, calibrate "
            "the confidence, export ONNX and print the evaluation table. The default recipe "
            "reproduces the two shipped networks, models/tiles.onnx (the reader) and "
            "models/enrollment-base.onnx (what enrolment learns a tile set from), side by "
            "side on 2 CPU cores (about an hour), and says whether they are the shipped "
            "ones bit for bit (which needs a CPU with the same kernels). Networks it writes "
            "over are kept in OUT/previous/."
        ),
    )
    parser.add_argument(
        "--network",
        choices=NETWORK_CHOICES,
        default="both",
        help="which network to train (default both, side by side)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="output directory (default: the models/ the app reads; runs/quick/ with --quick)",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny smoke run (a minute): checks the pipeline"
    )
    parser.add_argument(
        "--recipe",
        choices=RECIPE_CHOICES,
        default="shipped",
        help="shipped (default): the recipe of the shipped networks, under an hour on 2 "
        "cores; session-28: the networks shipped in sessions 28-34 (the reader wider, "
        "no smeared crops); session-17: those shipped in sessions 17-27, about 63 min "
        "(models/HISTORY.md, Sessions 28 and 35)",
    )
    parser.add_argument("--epochs", type=int, help="override the recipe's number of epochs")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (default 1: faster on a busy CPU)"
    )
    parser.add_argument(
        "--workers",
        type=int,
        help="processes rendering the crops (default min(2, CPU count); the crops are the same)",
    )
    parser.add_argument(
        "--cache", type=Path, help="where rendered crops are cached (default runs/data/)"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from setupcam.cli import UsageError

    try:
        import torch  # noqa: F401
    except ModuleNotFoundError:
        raise UsageError("training needs torch: .venv/bin/pip install -e '.[train]'") from None
    from dataclasses import replace

    from vision.recognizer import MODELS_DIR
    from vision.training.fit import (
        MODEL_FILES,
        full_config,
        quick_config,
        render_data,
        train,
        with_epochs,
    )
    from vision.training_data import CACHE_DIR, REPO

    if args.epochs is not None and args.epochs < 1:
        raise UsageError("--epochs must be at least 1")
    if args.threads < 1:
        raise UsageError("--threads must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    cache = args.cache or CACHE_DIR
    if args.out is None:
        # A smoke run's network reads nothing well: it must not replace the app's.
        args.out = REPO / "runs" / "quick" if args.quick else MODELS_DIR

    def recipe(network: str):
        maker = quick_config if args.quick else full_config
        cfg = maker(network, args.recipe)
        if args.epochs is not None:
            cfg = with_epochs(cfg, args.epochs)
        return replace(cfg, threads=args.threads)

    networks = ("reader", "enrollment-base") if args.network == "both" else (args.network,)
    datasets, side = None, None
    if len(networks) == 2:
        # Rendered once, before the second process could start rendering the same crops.
        datasets = render_data(
            recipe(networks[0]), cache, progress=not args.quiet, workers=args.workers
        )
        args.out.mkdir(parents=True, exist_ok=True)
        log_path = args.out / "enrollment-base.log"
        print(
            f"training the enrolment base alongside, in a second process (log: {log_path})",
            file=sys.stderr,
            flush=True,
        )
        side = _start_side_training(args, "enrollment-base", log_path)
    network = networks[0]  # this process's; the second process checks its own
    # Read before training may write over them (the default --out is the app's models/).
    shipped = _shipped_meta(network)
    kept = _keep_previous(args.out, network)
    try:
        train(
            recipe(network),
            args.out,
            quiet=args.quiet,
            cache_dir=cache,
            workers=args.workers,
            network=network,
            datasets=datasets,
        )
        if network == "enrollment-base" and not args.quick:
            from vision.training.value_scale import fit_value_scale

            fit_value_scale(args.out / MODEL_FILES[network], progress=not args.quiet)
    except BaseException:
        if side is not None:
            side[0].terminate()  # no orphan left training on a failed or stopped run
        raise
    if side is not None:
        process, log_path = side
        if not args.quiet:
            print("waiting for the enrolment base...", file=sys.stderr, flush=True)
        if process.wait() != 0:
            raise UsageError(f"training the enrolment base failed: see {log_path}")
        print(f"\nenrolment base ({args.out / MODEL_FILES['enrollment-base']}):")
        print(log_path.read_text(encoding="utf-8").rstrip())
    print(_reproduction(network, args.out, shipped, kept))
    return 0


def _shipped_meta(network: str) -> dict:
    from vision.recognizer import MODELS_DIR
    from vision.training.fit import MODEL_FILES

    return _read_meta((MODELS_DIR / MODEL_FILES[network]).with_suffix(".json"))


def _keep_previous(out: Path, network: str) -> Path | None:
    """Copy the network ``out`` already holds to ``out/previous/`` and return the copy:
    an enrolment reads only the network it was made with, so one written over would
    leave a user's enrolments unreadable."""
    from vision.training.fit import MODEL_FILES

    model = out / MODEL_FILES[network]
    if not model.exists():
        return None
    kept = out / PREVIOUS / model.name
    kept.parent.mkdir(parents=True, exist_ok=True)
    for source in (model, model.with_suffix(".json")):
        if source.exists():
            shutil.copy2(source, kept.with_name(source.name))
    return kept


def _reproduction(network: str, out: Path, shipped: dict, kept: Path | None) -> str:
    """One line: is the network trained the shipped one, and if not, why not; and where
    the network it replaced is kept (the copy is dropped when it is the same network)."""
    from vision.training.fit import MODEL_FILES, recipe_defaults
    from vision.training.provenance import recipe_differences, verdict

    meta = _read_meta((out / MODEL_FILES[network]).with_suffix(".json"))
    digest = meta.get("network_digest", "?")
    other = recipe_differences(meta.get("recipe", {}), shipped.get("recipe", {}), recipe_defaults())
    if not shipped:
        line = f"{network}: network {digest} (no shipped network to compare with)"
    elif other:
        line = f"{network}: network {digest}, not the shipped recipe ({', '.join(other)})"
    else:
        line = verdict(network, digest, shipped, meta.get("trained_on", {}))
    if kept is not None:
        if _read_meta(kept.with_suffix(".json")).get("network_digest") == digest:
            kept.unlink()
            kept.with_suffix(".json").unlink(missing_ok=True)
            with contextlib.suppress(OSError):  # still holds the other network's copy
                kept.parent.rmdir()
        else:
            line += f"; the network it replaced is kept in {kept}"
    return line


def _read_meta(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _start_side_training(
    args: argparse.Namespace, network: str, log_path: Path
) -> tuple[subprocess.Popen, Path]:
    command = [sys.executable, "-m", "setupcam", "train", "--network", network, "--quiet"]
    command += ["--out", str(args.out), "--threads", str(args.threads)]
    command += ["--recipe", args.recipe]
    if args.quick:
        command.append("--quick")
    if args.epochs is not None:
        command += ["--epochs", str(args.epochs)]
    if args.cache is not None:
        command += ["--cache", str(args.cache)]
    log = log_path.open("w", encoding="utf-8")
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    log.close()  # the child holds its own copy of the file
    return process, log_path
