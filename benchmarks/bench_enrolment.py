"""Benchmark of enrolment on many held-out tile sets, and a fair comparison of models.

    .venv/bin/python -m benchmarks.bench_enrolment [--model A.onnx --model B.onnx] [--sets 60]

Each tile set of the held-out family ("split", never trained on) is enrolled from 5
photos showing all 50 tiles, then read on 20 further frames of the same set (new
positions, camera, light, hands), in one pass and at four quarter turns (as the live
app reads a steady view). Sets are seeds 7000, 7001, ...: the first 12 are the ones
`bench_recognizer.py` enrols; none is an enrolment tuning set (60000+).

To choose between candidate models without tuning on these sets, run it on the tuning
sets instead: ``--first-seed 60000 --sets 32``.

Why 60 sets, not 12: the error differs a lot from one set to the next, and two
trainings of the same recipe with another seed differ by 2.5 points at four turns
(models/README.md, "Session 15"). With several models every set is read by each, and
the differences are paired per set, with a 95% bootstrap interval over sets: a
difference whose interval holds 0 is not a difference.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script too

from engine import Layout
from vision.enrollment import THRESHOLD, EnrollmentSample, build_enrollment
from vision.recognizer import COVERED, TileRecognizer
from vision.synth import HELDOUT_FAMILIES
from vision.training.evaluate import score
from vision.training_data import ProgressBar, crop_labels, tile_set_frames, top_labels

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = Layout.load()
FIRST_SEED = 7000
READINGS = ("one pass", "four turns")


@dataclass(frozen=True)
class SetResult:
    """One model on one tile set: visible squares, and per reading the squares "?" or
    wrong (``errors``) and those answered wrongly (``wrong``)."""

    squares: int
    errors: tuple[int, int]
    wrong: tuple[int, int]


def read_set(recognizers: list[TileRecognizer], seed: int, tests: int) -> list[SetResult]:
    """Render tile set ``seed`` once; enrol it and read its test frames with each model."""
    frames = tile_set_frames(seed, HELDOUT_FAMILIES[0], photos=5, tests=tests)
    samples = [EnrollmentSample(f.image, c, f.truth.position) for f, c in frames.enrol]
    y = np.concatenate([crop_labels(f, LAYOUT) for f, _ in frames.test])
    top = np.concatenate([top_labels(f, LAYOUT) for f, _ in frames.test])
    visible = y != COVERED
    out = []
    for rec in recognizers:
        enrolled = rec.with_enrollment(build_enrollment(rec, samples, LAYOUT))
        crops = np.concatenate([rec.crops(f.image, c, LAYOUT) for f, c in frames.test])
        errors, wrong = [], []
        for probs in (enrolled.probabilities(crops), enrolled.probabilities_all_turns(crops)):
            s = score("", probs[visible], y[visible], THRESHOLD, top[visible])
            errors.append(round(s.error * s.squares))
            wrong.append(round(s.confident_wrong * s.squares))
        out.append(SetResult(int(visible.sum()), (errors[0], errors[1]), (wrong[0], wrong[1])))
    return out


def paired_interval(diff: np.ndarray, draws: int = 4000, seed: int = 0) -> tuple[float, float]:
    """95% bootstrap interval of ``diff.sum()`` over resampled sets.

    >>> lo, hi = paired_interval(np.array([3, 4, 5, 4, 3, 5]))
    >>> 18 <= lo <= 24 <= hi <= 30
    True
    """
    rng = np.random.default_rng(seed)
    sums = diff[rng.integers(0, len(diff), (draws, len(diff)))].sum(axis=1)
    lo, hi = np.percentile(sums, [2.5, 97.5])
    return float(lo), float(hi)


def _shown(path: Path) -> str:
    """A model's path as the docs show it: relative to the repository when inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--model",
        type=Path,
        action="append",
        help="model (.onnx); repeat to compare (default: models/tiles.onnx)",
    )
    parser.add_argument("--sets", type=int, default=60, help="tile sets (default 60)")
    parser.add_argument("--tests", type=int, default=20, help="test frames per set")
    parser.add_argument(
        "--first-seed",
        type=int,
        default=FIRST_SEED,
        help=f"first tile set's seed (default {FIRST_SEED}; tuning sets start at 60000)",
    )
    args = parser.parse_args()
    if args.sets < 2 or args.tests < 1:
        print("error: --sets must be at least 2 and --tests at least 1", file=sys.stderr)
        return 2
    if args.first_seed < 0:
        print("error: --first-seed must be 0 or more", file=sys.stderr)
        return 2
    first = args.first_seed
    t0 = time.perf_counter()
    paths = args.model or [None]
    recognizers = [TileRecognizer.load(p, threads=1) for p in paths]
    names = [_shown(Path(rec.path)) for rec in recognizers]
    results: list[list[SetResult]] = []
    bar = ProgressBar("enrol sets", args.sets)
    for i in range(args.sets):
        results.append(read_set(recognizers, first + i, args.tests))
        bar.update(i + 1)
    bar.close()

    print(f"## Held-out family enrolled from 5 photos: {args.sets} tile sets\n")
    print(
        f"Seeds {first}-{first + args.sets - 1}, {args.tests} test frames each; "
        f'"error" = "?" or wrong on visible squares, "wrong" = answered wrongly '
        f"(threshold {THRESHOLD}).\n"
    )
    print("| model | squares | one pass: error (wrong) | four turns: error (wrong) |")
    print("|---|---|---|---|")
    for m, name in enumerate(names):
        squares = sum(r[m].squares for r in results)
        cells = []
        for k in range(len(READINGS)):
            errors = sum(r[m].errors[k] for r in results)
            wrong = sum(r[m].wrong[k] for r in results)
            cells.append(f"{100 * errors / squares:.2f}% ({wrong})")
        print(f"| {name} | {squares} | {cells[0]} | {cells[1]} |")
    if len(names) > 1:
        print(f"\nPaired per set against {names[0]}: squares in error, difference and 95% interval")
        print("(bootstrap over sets; negative = fewer errors).\n")
        print("| model | one pass | four turns |")
        print("|---|---|---|")
        for m, name in enumerate(names[1:], 1):
            cells = []
            for k in range(len(READINGS)):
                diff = np.array([r[m].errors[k] - r[0].errors[k] for r in results])
                lo, hi = paired_interval(diff)
                cells.append(f"{int(diff.sum()):+d} [{lo:+.0f}, {hi:+.0f}]")
            print(f"| {name} | {cells[0]} | {cells[1]} |")
    print(f"\nbenchmark took {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
