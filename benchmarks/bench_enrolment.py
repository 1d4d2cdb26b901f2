"""Benchmark of enrolment on many held-out tile sets, and a fair comparison of models.

    .venv/bin/python -m benchmarks.bench_enrolment [--model A.onnx --model B.onnx] [--sets 60]

Each tile set of the held-out family ("split", never trained on) is enrolled from 5
photos showing all 50 tiles, then read on 20 further frames of the same set (new
positions, camera, light, hands), in one pass and at four quarter turns (as the live
app reads a steady view). Sets are seeds 7000, 7001, ...: the first 12 are the ones
`bench_recognizer.py` enrols; none is an enrolment tuning set (60000+).

To choose between candidate models without tuning on these sets, run it on the tuning
sets instead: ``--first-seed 60000 --sets 32``.

A second table splits the first model's squares by what the camera saw: a still
camera with nothing over the square (what a photo or the live app's steady view
reads, and what chesscog's figures are measured on), a hand over part of the square
(less than a fifth), and a frame with motion blur; then the squares a hand hides (a
fifth or more: "?" or the tile beneath is right there, and "wrong" is any other tile,
which the issue allows on at most 0.5% of them).

Why 60 sets, not 12: the error differs a lot from one set to the next, and two
trainings of the same recipe with another seed differ by 2.5 points at four turns
(models/HISTORY.md, "Session 15"). With several models every set is read by each, and
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

from benchmarks.bench_recognizer import NEARLY_COVERED
from benchmarks.models import model_problem
from engine import Layout
from vision.enrollment import THRESHOLD, EnrollmentSample, build_enrollment
from vision.pipeline import SECOND_LOOK_SQUARES
from vision.recognizer import COVERED, TileRecognizer
from vision.synth import COVERED_FRACTION, HELDOUT_FAMILIES
from vision.training.evaluate import score
from vision.training_data import (
    ProgressBar,
    TileSetFrames,
    crop_labels,
    tile_set_frames,
    top_labels,
)

ROOT = Path(__file__).resolve().parent.parent
LAYOUT = Layout.load()
FIRST_SEED = 7000
READINGS = ("one pass", "four turns", "second look")
"""How a frame is read: in one pass, at four quarter turns (a steady view, a photo), and
as the live app reads every frame (one pass, then a second look at four turns at its
few doubtful squares, against that reading's own threshold)."""
CONDITIONS = ("still, nothing over the square", "a hand over part of the square", "motion blur")
UNDER_A_HAND = "under a hand (a fifth or more hidden)"
NEARLY_HIDDEN = f"of which {NEARLY_COVERED:.0%}-{COVERED_FRACTION:.0%} hidden"
"""The squares a hand hides nearly enough to count as covered (a part of those with a hand
over part): benchmarks.bench_recognizer.NEARLY_COVERED."""


@dataclass(frozen=True)
class SetResult:
    """One model on one tile set's squares (all of them, or those seen in one
    condition): visible squares, and per reading the squares "?" or wrong
    (``errors``) and those answered wrongly (``wrong``)."""

    squares: int
    errors: tuple[int, ...]
    wrong: tuple[int, ...]


def square_conditions(frames: TileSetFrames) -> np.ndarray:
    """Each test square's index in :data:`CONDITIONS`, in the order of the crops.

    Motion blur comes first: a blurred frame is blurred whether or not a hand is there.
    """
    blurred = np.repeat(np.array(frames.test_motion_blur) > 0, len(LAYOUT.squares))
    return np.where(blurred, 2, np.where(square_coverage(frames) > 0, 1, 0))


def square_coverage(frames: TileSetFrames) -> np.ndarray:
    """The share of each test square a hand hides, in the order of the crops."""
    return np.array([f.truth.coverage.get(s, 0.0) for f, _ in frames.test for s in LAYOUT.squares])


def enrolled_and_read(
    rec: TileRecognizer, frames: TileSetFrames
) -> tuple[TileRecognizer, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """``rec`` enrolled from the set's photos, the test frames' crops, and those read as
    the live app reads every frame: probabilities and each square's threshold after a
    second look at each frame's few doubtful squares."""
    samples = [EnrollmentSample(f.image, c, f.truth.position) for f, c in frames.enrol]
    enrolled = rec.with_enrollment(build_enrollment(rec, samples, LAYOUT))
    per_frame = [rec.crops(f.image, c, LAYOUT) for f, c in frames.test]
    looked = [enrolled.probabilities_with_second_look(c, SECOND_LOOK_SQUARES) for c in per_frame]
    probs, thresholds = (np.concatenate(v) for v in zip(*looked, strict=True))
    return enrolled, np.concatenate(per_frame), (probs, thresholds)


def read_set(
    recognizers: list[TileRecognizer], seed: int, tests: int, plan: bool = False
) -> list[dict[str | None, SetResult]]:
    """Render tile set ``seed`` once; enrol it and read its test frames with each model.
    Per model: the result on all visible squares (key ``None``), per condition, and on
    the squares a hand hides (:data:`UNDER_A_HAND`)."""
    frames = tile_set_frames(seed, HELDOUT_FAMILIES[0], photos=5, tests=tests, plan=plan)
    y = np.concatenate([crop_labels(f, LAYOUT) for f, _ in frames.test])
    top = np.concatenate([top_labels(f, LAYOUT) for f, _ in frames.test])
    visible = y != COVERED
    condition = square_conditions(frames)
    groups: dict[str | None, np.ndarray] = {None: visible}
    groups.update({name: visible & (condition == k) for k, name in enumerate(CONDITIONS)})
    groups[NEARLY_HIDDEN] = groups[CONDITIONS[1]] & (square_coverage(frames) >= NEARLY_COVERED)
    groups[UNDER_A_HAND] = ~visible
    out = []
    for rec in recognizers:
        enrolled, crops, second_look = enrolled_and_read(rec, frames)
        readings = (
            (enrolled.probabilities(crops), np.full(len(crops), enrolled.threshold)),
            (
                enrolled.probabilities_all_turns(crops),
                np.full(len(crops), enrolled.threshold_all_turns),
            ),
            second_look,
        )
        out.append({name: _result(readings, y, top, rows) for name, rows in groups.items()})
    return out


def _result(readings: tuple, y: np.ndarray, top: np.ndarray, rows) -> SetResult:
    """Counts of each reading, given as its probabilities and each square's threshold."""
    if not rows.any():
        return SetResult(0, (0,) * len(READINGS), (0,) * len(READINGS))
    errors, wrong = [], []
    for probs, thresholds in readings:
        s = score("", probs[rows], y[rows], thresholds[rows], top[rows])
        errors.append(round(s.error * s.squares))
        wrong.append(round(s.confident_wrong * s.squares))
    return SetResult(int(rows.sum()), tuple(errors), tuple(wrong))


def _row(results: list[SetResult]) -> str:
    """The squares, then each reading's error and wrong answers, over several sets."""
    squares = sum(r.squares for r in results)
    cells = [str(squares)]
    for k in range(len(READINGS)):
        errors = sum(r.errors[k] for r in results)
        wrong = sum(r.wrong[k] for r in results)
        cells.append(f"{100 * errors / max(squares, 1):.2f}% ({wrong})")
    return " | ".join(cells)


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
        "--plan",
        action="store_true",
        help="enrol from photos laid out as the Enrol tiles page asks (default: random order)",
    )
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
    problem = model_problem(paths)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    recognizers = [TileRecognizer.load(p, threads=1) for p in paths]
    names = [_shown(Path(rec.path)) for rec in recognizers]
    results: list[list[dict[str | None, SetResult]]] = []
    bar = ProgressBar("enrol sets", args.sets)
    for i in range(args.sets):
        results.append(read_set(recognizers, first + i, args.tests, args.plan))
        bar.update(i + 1)
    bar.close()

    photos = "the Enrol page's plan" if args.plan else "5 photos"
    print(f"## Held-out family enrolled from {photos}: {args.sets} tile sets\n")
    print(
        f"Seeds {first}-{first + args.sets - 1}, {args.tests} test frames each; "
        f'"error" = "?" or wrong on visible squares, "wrong" = answered wrongly '
        f"(threshold {THRESHOLD}).\n"
    )
    columns = " | ".join(f"{r}: error (wrong)" for r in READINGS)
    print(f"| model | squares | {columns} |")
    print("|---|---|" + "---|" * len(READINGS))
    for m, name in enumerate(names):
        print(f"| {name} | {_row([r[m][None] for r in results])} |")
    print(f"\nBy what the camera saw ({names[0]}):\n")
    print(f"| squares seen | squares | {columns} |")
    print("|---|---|" + "---|" * len(READINGS))
    for condition in (*CONDITIONS[:2], NEARLY_HIDDEN, CONDITIONS[2], UNDER_A_HAND):
        print(f"| {condition} | {_row([r[0][condition] for r in results])} |")
    if len(names) > 1:
        print(f"\nPaired per set against {names[0]}: squares in error, difference and 95% interval")
        print("(bootstrap over sets; negative = fewer errors).\n")
        print("| model | " + " | ".join(READINGS) + " |")
        print("|---|" + "---|" * len(READINGS))
        for m, name in enumerate(names[1:], 1):
            cells = []
            for k in range(len(READINGS)):
                diff = np.array([r[m][None].errors[k] - r[0][None].errors[k] for r in results])
                lo, hi = paired_interval(diff)
                cells.append(f"{int(diff.sum()):+d} [{lo:+.0f}, {hi:+.0f}]")
            print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nbenchmark took {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
