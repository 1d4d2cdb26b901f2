"""Sheets of the squares one frame leaves "?" or reads wrongly, for a person to read.

    .venv/bin/python -m benchmarks.error_sheet [--enrolled-sets 12] [--out runs/error-sheet]

The benchmark's frames of the trained art (`bench_recognizer`'s, cached) are read as
the live app reads every frame (one pass, and a second look at a few doubtful squares);
with ``--enrolled-sets N``, the first N held-out tile sets of `bench_enrolment`,
each enrolled from its 5 photos, instead. Writes ``OUT/sheet-K.png``: the squares in
error enlarged, numbered and shuffled, without their answers; and ``OUT/key.json``: for
each number the truth, the app's answer and its confidence, the same network's reading
at four quarter turns, and what the camera saw. Read the sheets first, then compare
with the key: the squares in error that neither a person nor the four-turn reading
reads are error that a better network reading one frame could hardly take away
(models/HISTORY.md, "Session 36").
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_enrolment import enrolled_and_read, square_coverage
from benchmarks.bench_recognizer import LAYOUT, families_spec, live_frames
from benchmarks.models import model_problem
from vision.recognizer import COVERED, LABELS, TileRecognizer
from vision.synth import HELDOUT_FAMILIES
from vision.training_data import (
    ProgressBar,
    crop_labels,
    load_or_generate,
    tile_set_frames,
)

SQUARE_PX = 160
"""Each crop's size on the sheet: twice the network's, enough to see what it sees."""
COLUMNS, ROWS = 8, 4


def in_error(probs: np.ndarray, thresholds: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The visible squares answered "?" or wrongly (a visible square read as covered is
    "?").

    >>> probs = np.eye(len(LABELS))[[0, 1, COVERED, COVERED]] * 0.9
    >>> in_error(probs, np.full(4, 0.8), np.array([0, 0, 0, COVERED])).tolist()
    [False, True, True, False]
    """
    right = (probs.argmax(1) == y) & (probs.max(1) >= thresholds)
    return (y != COVERED) & ~right


def seen(motion_blur: float, coverage: float) -> str:
    """What the camera saw of a square, as the benchmarks split it (blur first).

    >>> seen(5, 0.1), seen(0, 0.1), seen(0, 0.0)
    ('motion blur', 'a hand over part', 'still')
    """
    if motion_blur > 0:
        return "motion blur"
    return "a hand over part" if coverage > 0 else "still"


def key_rows(
    y: np.ndarray,
    answer: tuple[np.ndarray, np.ndarray],
    four_turns: tuple[np.ndarray, float],
    motion_blur,
    coverage,
) -> list[dict]:
    """One row of the key per square: its truth; the app's answer as probabilities and
    each square's threshold; the same network's reading at four quarter turns (as a
    steady view is read) with that reading's threshold; and what the camera saw."""
    (probs, thresholds), (turned, turned_threshold) = answer, four_turns
    return [
        {
            "truth": LABELS[y[i]],
            "answer": LABELS[probs[i].argmax()],
            "confidence": round(float(probs[i].max()), 3),
            "threshold": round(float(thresholds[i]), 3),
            "four_turns": LABELS[turned[i].argmax()],
            "four_turns_confidence": round(float(turned[i].max()), 3),
            "four_turns_threshold": round(float(turned_threshold), 3),
            "four_turns_right": bool(
                turned[i].argmax() == y[i] and turned[i].max() >= turned_threshold
            ),
            "seen": seen(float(motion_blur[i]), float(coverage[i])),
            "hidden": round(float(coverage[i]), 3),
        }
        for i in range(len(y))
    ]


def sheet_pages(crops: np.ndarray) -> list[np.ndarray]:
    """The crops enlarged to :data:`SQUARE_PX` and numbered from 0, :data:`COLUMNS` x
    :data:`ROWS` to a page."""
    cells = []
    for number, crop in enumerate(crops):
        cell = cv2.resize(crop, (SQUARE_PX, SQUARE_PX), interpolation=cv2.INTER_CUBIC)
        cell = cv2.copyMakeBorder(cell, 18, 2, 2, 2, cv2.BORDER_CONSTANT, value=(255,) * 3)
        cv2.putText(cell, str(number), (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0,) * 3, 1)
        cells.append(cell)
    per_page = COLUMNS * ROWS
    pages = []
    for start in range(0, len(cells), per_page):
        page = cells[start : start + per_page]
        page += [np.full_like(cells[0], 255)] * (-len(page) % COLUMNS)
        rows = [np.hstack(page[r : r + COLUMNS]) for r in range(0, len(page), COLUMNS)]
        pages.append(np.vstack(rows))
    return pages


def trained_art_errors(rec: TileRecognizer) -> tuple[np.ndarray, list[dict]]:
    """The squares in error among `bench_recognizer`'s frames of the trained art."""
    data = load_or_generate(families_spec(rec.crop_px))
    probs, thresholds = live_frames(rec, data.x, data.frame)
    rows = np.flatnonzero(in_error(probs, thresholds, data.y))
    turned = rec.probabilities_all_turns(data.x[rows])
    keys = key_rows(
        data.y[rows],
        (probs[rows], thresholds[rows]),
        (turned, rec.threshold_all_turns),
        data.motion_blur[rows],
        data.coverage[rows],
    )
    return data.x[rows], keys


def enrolled_errors(
    rec: TileRecognizer, sets: int, tests: int = 20, first: int = 7000
) -> tuple[np.ndarray, list[dict]]:
    """The squares in error among the ``tests`` test frames of ``sets`` held-out tile
    sets from seed ``first`` (`bench_enrolment`'s), each enrolled from its own photos."""
    crops, keys = [], []
    bar = ProgressBar("enrol sets", sets)
    for done, seed in enumerate(range(first, first + sets), 1):
        frames = tile_set_frames(seed, HELDOUT_FAMILIES[0], photos=5, tests=tests)
        enrolled, x, (probs, thresholds) = enrolled_and_read(rec, frames)
        y = np.concatenate([crop_labels(f, LAYOUT) for f, _ in frames.test])
        blur = np.repeat(frames.test_motion_blur, len(LAYOUT.squares))
        rows = np.flatnonzero(in_error(probs, thresholds, y))
        if len(rows):
            crops.append(x[rows])
            keys += key_rows(
                y[rows],
                (probs[rows], thresholds[rows]),
                (enrolled.probabilities_all_turns(x[rows]), enrolled.threshold_all_turns),
                blur[rows],
                square_coverage(frames)[rows],
            )
        bar.update(done)
    bar.close()
    empty = np.empty((0, rec.crop_px, rec.crop_px, 3), np.uint8)
    return np.concatenate([empty, *crops]), keys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="model (.onnx), default models/tiles.onnx")
    parser.add_argument("--enrolled-sets", type=int, default=0, help="held-out sets, enrolled")
    parser.add_argument("--out", type=Path, default=Path("runs/error-sheet"))
    parser.add_argument("--seed", type=int, default=0, help="the shuffle's seed")
    args = parser.parse_args()
    problem = model_problem([args.model])
    if args.enrolled_sets < 0 or args.enrolled_sets > 60:
        problem = f"--enrolled-sets must be 0-60, not {args.enrolled_sets}"
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    rec = TileRecognizer.load(args.model, threads=1)
    if args.enrolled_sets:
        crops, keys = enrolled_errors(rec, args.enrolled_sets)
    else:
        crops, keys = trained_art_errors(rec)
    order = np.random.default_rng(args.seed).permutation(len(keys))
    args.out.mkdir(parents=True, exist_ok=True)
    pages = sheet_pages(crops[order]) if len(keys) else []
    for k, page in enumerate(pages):
        cv2.imwrite(str(args.out / f"sheet-{k}.png"), page)
    key = [{"number": n, **keys[i]} for n, i in enumerate(order)]
    (args.out / "key.json").write_text(json.dumps(key, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(keys)} squares in error: {len(pages)} sheet(s) and key.json in {args.out}")
    turned = sum(row["four_turns_right"] for row in keys)
    print(f"the same network at four quarter turns answers {turned} of them right")
    return 0


if __name__ == "__main__":
    sys.exit(main())
