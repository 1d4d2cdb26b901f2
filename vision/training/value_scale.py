"""Fit a model's enrolment value scale on the enrolment tuning sets (numpy only).

Enrolment's value head turns linear-discriminant scores into probabilities with a
scale (:data:`vision.enrollment.VALUE_SCALE`). How large the scores are depends on how
far apart a model's features put the values, so two trainings need different scales:
at the scale tuned on one, the other may leave far more squares "?" while being no
less right (models/HISTORY.md, "Session 16"). This fits the scale per model, the way
the temperature is fitted, and writes it into the enrolment base's ``.json`` (the
model's own when it names no other). It is the scale of an enrolment on the base
alone; one that reads the reader's features beside it takes
:data:`vision.enrollment.PAIRED_VALUE_SCALE` (models/HISTORY.md, "Session 18")::

    .venv/bin/python -m vision.training.value_scale --model runs/m/tiles.onnx [--write]

Each tuning set (held-out art, seeds 60000+, never a benchmark's) is enrolled from 5
photos and its 20 test frames read at four quarter turns, as the live app reads a
steady view and ``recognize`` a photo. The rule: the largest scale of
:data:`SCALES` at which at most :data:`WRONG_LIMIT` of the visible squares are read
wrongly (a larger scale answers more squares and risks more wrong answers).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

import numpy as np

from engine import Layout
from vision.enrollment import THRESHOLD, EnrollmentSample, build_enrollment
from vision.recognizer import COVERED, TileRecognizer
from vision.synth import HELDOUT_FAMILIES
from vision.tile_colour import colour_features
from vision.training.evaluate import score
from vision.training_data import (
    ProgressBar,
    crop_labels,
    default_workers,
    tile_set_frames,
    top_labels,
    worker_pool,
)

SCALES = (0.15, 0.2, 0.25, 0.3, 0.35, 0.45, 0.6)
WRONG_LIMIT = 0.001
"""The issue's per-square target; the shipped v11 model's 0.25 (6 of 6,997 squares
wrong) is the largest scale within it on 32 tuning sets."""
FIRST_TUNING_SEED = 60000


def choose_scale(scales: tuple[float, ...], wrong: np.ndarray, squares: int) -> float:
    """The largest scale whose wrong answers are at most :data:`WRONG_LIMIT` of
    ``squares`` (the smallest scale if none is).

    >>> choose_scale((0.2, 0.3, 0.4), np.array([1, 3, 9]), 4000)
    0.3
    """
    allowed = [s for s, w in zip(scales, wrong, strict=True) if w <= WRONG_LIMIT * squares]
    return max(allowed) if allowed else min(scales)


def sweep(
    rec: TileRecognizer,
    seeds: range,
    tests: int = 20,
    progress: bool = True,
    workers: int = 1,
) -> tuple[int, np.ndarray, np.ndarray]:
    """Visible squares, and per scale of :data:`SCALES` the squares "?" or wrong and
    those read wrongly, at four turns, over the tile sets ``seeds``, enrolled on
    ``rec``'s enrolment base.

    ``workers`` processes share the tile sets (each is rendered and read alone, so the
    counts are the same whatever their number). The sweep ends ``setupcam train``,
    when the other network's core would otherwise wait for it.
    """
    rec = rec.enrollment_base
    squares, errors, wrong = 0, np.zeros(len(SCALES), int), np.zeros(len(SCALES), int)
    bar = ProgressBar("tuning sets", len(seeds)) if progress else None
    counts: Iterable[tuple[int, np.ndarray, np.ndarray]]
    with ExitStack() as stack:
        if workers > 1 and len(seeds) > 1 and rec.path is not None:
            pool = stack.enter_context(
                worker_pool(min(workers, len(seeds)), _init_worker, rec.path)
            )
            counts = pool.imap_unordered(_count_in_worker, ((seed, tests) for seed in seeds))
        else:
            layout = Layout.load()
            counts = (count_tile_set(rec, seed, tests, layout) for seed in seeds)
        for i, (visible, set_errors, set_wrong) in enumerate(counts):
            squares, errors, wrong = squares + visible, errors + set_errors, wrong + set_wrong
            if bar:
                bar.update(i + 1)
    if bar:
        bar.close()
    return squares, errors, wrong


def count_tile_set(
    rec: TileRecognizer, seed: int, tests: int, layout: Layout
) -> tuple[int, np.ndarray, np.ndarray]:
    """One tile set of :func:`sweep`: its visible squares, and per scale those "?" or
    wrong and those read wrongly (``rec`` is the enrolment base)."""
    frames = tile_set_frames(seed, HELDOUT_FAMILIES[0], photos=5, tests=tests)
    samples = [EnrollmentSample(f.image, c, f.truth.position) for f, c in frames.enrol]
    y = np.concatenate([crop_labels(f, layout) for f, _ in frames.test])
    top = np.concatenate([top_labels(f, layout) for f, _ in frames.test])
    visible = y != COVERED
    enrolled = build_enrollment(rec, samples, layout)
    crops = np.concatenate([rec.crops(f.image, c, layout) for f, c in frames.test])
    turned = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(4)])
    # Read once, as the enrolled reading does: the scale only changes the heads.
    logits, features = rec.enrollment_inputs(turned)
    colours = colour_features(crops)
    errors, wrong = np.zeros(len(SCALES), int), np.zeros(len(SCALES), int)
    for j, scale in enumerate(SCALES):
        probs = replace(enrolled, value_scale=scale).probabilities_all_turns(
            logits, features, colours, 1.0
        )
        s = score("", probs[visible], y[visible], THRESHOLD, top[visible])
        errors[j] = round(s.error * s.squares)
        wrong[j] = round(s.confident_wrong * s.squares)
    return int(visible.sum()), errors, wrong


_WORKER: tuple[TileRecognizer, Layout] | None = None


def _init_worker(model: Path) -> None:
    """Sweep worker set-up: the enrolment base, read on one thread like the parent's."""
    global _WORKER
    _WORKER = TileRecognizer.load(model, threads=1).enrollment_base, Layout.load()


def _count_in_worker(job: tuple[int, int]) -> tuple[int, np.ndarray, np.ndarray]:
    assert _WORKER is not None
    rec, layout = _WORKER
    seed, tests = job
    return count_tile_set(rec, seed, tests, layout)


def fit_value_scale(
    model: Path,
    sets: int = 32,
    progress: bool = True,
    write: bool = True,
    workers: int | None = None,
) -> float:
    """Sweep :data:`SCALES` on ``sets`` tuning sets for ``model``'s enrolment base, print
    the table, and (``write``) store the chosen scale in that network's ``.json``.
    ``workers``: processes sharing the sets (default
    :func:`vision.training_data.default_workers`)."""
    rec = TileRecognizer.load(model, threads=1).enrollment_base
    assert rec.path is not None
    meta_path = rec.path.with_suffix(".json")
    seeds = range(FIRST_TUNING_SEED, FIRST_TUNING_SEED + sets)
    workers = default_workers() if workers is None else workers
    squares, errors, wrong = sweep(rec, seeds, progress=progress, workers=workers)
    chosen = choose_scale(SCALES, wrong, squares)
    print(f"{squares} visible squares, tuning sets {seeds[0]}-{seeds[-1]}, four turns")
    print("| value scale | error | wrong |")
    print("|---|---|---|")
    for scale, e, w in zip(SCALES, errors, wrong, strict=True):
        mark = " (chosen)" if scale == chosen else ""
        print(f"| {scale}{mark} | {100 * e / squares:.2f}% | {w} |")
    if write:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        meta["enrollment_value_scale"] = chosen
        text = json.dumps(meta, ensure_ascii=False, indent=1) + "\n"
        meta_path.write_text(text, encoding="utf-8")
        print(f"wrote enrollment_value_scale {chosen} into {meta_path}")
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="model (.onnx)")
    parser.add_argument("--sets", type=int, default=32, help="tuning sets (default 32)")
    parser.add_argument("--write", action="store_true", help="write the scale into its .json")
    args = parser.parse_args(argv)
    if args.sets < 1:
        print("error: --sets must be at least 1", file=sys.stderr)
        return 2
    meta_path = args.model.with_suffix(".json")
    if not args.model.is_file() or not meta_path.is_file():
        print(f"error: {args.model} and {meta_path} must both exist", file=sys.stderr)
        return 2
    try:
        fit_value_scale(args.model, args.sets, write=args.write)
    except FileNotFoundError as err:
        print(f"error: {err.filename}: {err.strerror}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
