"""``setupcam train``: train the tile classifier from scratch on simulator images.

``setupcam train [--quick] [--out models/] [--epochs N] [--threads T] [--workers W] [--quiet]``
renders the crops (``W`` processes, default 2; cached under ``runs/data/``), trains,
calibrates, exports ``OUT/tiles.onnx`` + ``OUT/tiles.json`` and prints the final
evaluation table.
Needs the ``train`` extra (torch): ``pip install -e '.[train]'``.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train the tile classifier on simulator images (needs torch)",
        description=(
            "Train the tile classifier from scratch: render simulator crops, train, calibrate "
            "the confidence, export ONNX and print the evaluation table. The default recipe "
            "reproduces models/tiles.onnx (about 46 minutes on 2 CPU cores)."
        ),
    )
    parser.add_argument(
        "--out", type=Path, default=Path("models"), help="output directory (default models/)"
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny smoke run (a minute): checks the pipeline"
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

    from vision.training.fit import full_config, quick_config, train
    from vision.training_data import CACHE_DIR

    cfg = quick_config() if args.quick else full_config()
    if args.epochs is not None:
        if args.epochs < 1:
            raise UsageError("--epochs must be at least 1")
        cfg = replace(cfg, epochs=args.epochs)
    if args.threads < 1:
        raise UsageError("--threads must be at least 1")
    cfg = replace(cfg, threads=args.threads)
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers must be at least 1")
    train(cfg, args.out, quiet=args.quiet, cache_dir=args.cache or CACHE_DIR, workers=args.workers)
    return 0
