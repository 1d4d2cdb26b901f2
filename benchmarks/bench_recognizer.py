"""Benchmark of tile recognition: the figures of the model card (models/README.md).

    .venv/bin/python benchmarks/bench_recognizer.py [--model models/tiles.onnx] [--quick]

Measures, on simulator frames whose seeds no training run uses:
1. per-square error per training art family (visible squares) and on squares
   under a hand (a confidently wrong tile is the failure there; "?" or
   "covered" is right);
2. the held-out family ("split", never trained on) without enrolment;
3. the same family after enrolling each tile set from 5 photos (all 50 tiles),
   tested on 20 further frames of that set (new positions, camera, light, hands);
4. speed of one 12-square batch on one thread (model call alone, and crops + model
   at 720p and 1080p), median and 95th percentile.
Prints markdown tables and writes the numbers to ``runs/bench-recognizer.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.models import model_problem
from engine import Layout
from vision.enrollment import THRESHOLD as ENROLLED_THRESHOLD
from vision.enrollment import EnrollmentSample, build_enrollment
from vision.pipeline import SECOND_LOOK_SQUARES
from vision.recognizer import COVERED, LABELS, TileRecognizer
from vision.synth import (
    COVERED_FRACTION,
    FAMILIES,
    HELDOUT_FAMILIES,
    random_scene,
    render_frame,
)
from vision.training.evaluate import (
    Scores,
    calibration_error,
    family_table,
    format_table,
    score,
    time_call,
)
from vision.training_data import (
    CropSet,
    DataSpec,
    ProgressBar,
    crop_labels,
    load_or_generate,
    tile_set_frames,
    top_labels,
)

LAYOUT = Layout.load()

BOARD_BANDS = ((0, 350), (350, 450), (450, None))
"""The board's width in the picture (px) by which still squares' error is split: under
350 px a classic tile's corner digits are about 5 px tall."""
NEARLY_COVERED = 0.15
"""The share of a square hidden from which a hand over part of it is split off: from
here to :data:`vision.synth.COVERED_FRACTION` the network cannot tell a square
shown from one covered, so it answers "covered" as often as not (models/HISTORY.md,
"Session 36")."""


def families_spec(crop_px: int, scale: float = 1.0) -> DataSpec:
    """The benchmark's frames of the training families (seed 5000), ``scale`` of them."""
    return DataSpec(
        name="bench-families", seed=5000, tables=max(5, int(150 * scale)), crop_px=crop_px
    )


def live_frames(
    rec: TileRecognizer, crops: np.ndarray, frame: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Each frame's squares read as the live app reads every frame, with a second look
    at its few doubtful squares: probabilities and each square's threshold."""
    probs, thresholds = np.empty((len(crops), len(LABELS))), np.empty(len(crops))
    for f in np.unique(frame):
        rows = np.flatnonzero(frame == f)
        probs[rows], thresholds[rows] = rec.probabilities_with_second_look(
            crops[rows], SECOND_LOOK_SQUARES
        )
    return probs, thresholds


def error_sources(probs: np.ndarray, thresholds: np.ndarray, data: CropSet) -> list[Scores]:
    """Where the error on ``data``'s visible squares is: frames smeared by motion blur,
    squares a hand partly hides, and the still squares with nothing over them by art
    family and by the board's width in the picture (:data:`BOARD_BANDS`); the squares a
    hand partly hides, split at :data:`NEARLY_COVERED`.

    >>> from vision.recognizer import LABELS
    >>> y = np.array([0, 0, 0, COVERED])
    >>> data = CropSet(np.zeros((4, 1)), y, np.zeros(4, int), np.zeros(4, int),
    ...     np.array([0, 0.1, 0, 1]), y, np.full(4, 400.0), np.array([5, 0, 0, 0]))
    >>> probs = np.eye(len(LABELS))[[1, 0, 0, COVERED]]  # the smeared square read wrong
    >>> [(r.name, r.squares, r.error) for r in error_sources(probs, np.full(4, 0.9), data)][:3]
    [('motion blur', 1, 1.0), ('a hand over part', 1, 0.0), ('still, no hand', 1, 0.0)]
    """
    shown = data.y != COVERED
    blurred = shown & (data.motion_blur > 0)
    under_hand = shown & (data.motion_blur == 0) & (data.coverage > 0)
    still = shown & (data.motion_blur == 0) & (data.coverage == 0)
    groups = [("motion blur", blurred), ("a hand over part", under_hand), ("still, no hand", still)]
    nearly = data.coverage >= NEARLY_COVERED
    groups.append((f"hand: under {NEARLY_COVERED:.0%} hidden", under_hand & ~nearly))
    groups.append(
        (f"hand: {NEARLY_COVERED:.0%}-{COVERED_FRACTION:.0%} hidden", under_hand & nearly)
    )
    for index, name in enumerate(FAMILIES):
        groups.append((f"still: {name}", still & (data.family == index)))
    for low, high in BOARD_BANDS:
        wide = data.board_px >= low
        if high is not None:
            wide &= data.board_px < high
        label = f"{low}-{high}" if high is not None else f">= {low}"
        groups.append((f"still: board {label} px", still & wide))
    return [
        score(name, probs[mask], data.y[mask], thresholds[mask], data.top[mask])
        for name, mask in groups
        if mask.any()
    ]


def enrolled_sets(rec: TileRecognizer, seeds: list[int], family: str, tests: int) -> tuple:
    """Probabilities before and after enrolment (one pass, at four quarter turns as a
    steady view is read, and with the live app's second look at a frame's doubtful
    squares, with those squares' thresholds), labels and the tiles under hands, over
    the test frames of ``seeds`` tile sets (each enrolled from its own 5 photos)."""
    before_p, after_p, turned_p, live_p, live_t, ys, tops = [], [], [], [], [], [], []
    bar = ProgressBar(f"enrol {family}", len(seeds))
    for done, seed in enumerate(seeds, 1):
        ts = tile_set_frames(seed, family, photos=5, tests=tests)
        samples = [EnrollmentSample(f.image, c, f.truth.position) for f, c in ts.enrol]
        enrollment = build_enrollment(rec, samples, LAYOUT)
        enrolled = rec.with_enrollment(enrollment)
        for frame, corners in ts.test:
            crops = rec.crops(frame.image, corners, LAYOUT)
            before_p.append(rec.probabilities(crops))
            after_p.append(enrolled.probabilities(crops))
            turned_p.append(enrolled.probabilities_all_turns(crops))
            probs, thresholds = enrolled.probabilities_with_second_look(crops, SECOND_LOOK_SQUARES)
            live_p.append(probs)
            live_t.append(thresholds)
            ys.append(crop_labels(frame, LAYOUT))
            tops.append(top_labels(frame, LAYOUT))
        bar.update(done)
    bar.close()
    return tuple(np.concatenate(v) for v in (before_p, after_p, turned_p, live_p, live_t, ys, tops))


def speed(rec: TileRecognizer) -> dict:
    out = {}
    frames = {
        res: render_frame(random_scene(np.random.default_rng(8000), resolution=res), 0)
        for res in ((1280, 720), (1920, 1080))
    }
    crops = rec.crops(
        frames[(1280, 720)].image, frames[(1280, 720)].truth.board_corners_distorted, LAYOUT
    )
    out["model, 12 squares"] = time_call(lambda: rec.read_crops(crops), repeats=300)
    # With a user's enrolled tile set the reading adds the tiles' colour summary.
    photos = tile_set_frames(7000, HELDOUT_FAMILIES[0], photos=5, tests=0).enrol
    samples = [EnrollmentSample(f.image, c, f.truth.position) for f, c in photos]
    enrollment = build_enrollment(rec, samples, LAYOUT)
    enrolled = rec.with_enrollment(enrollment)
    out["model + enrolment, 12 squares"] = time_call(
        lambda: enrolled.read_crops(crops), repeats=300
    )
    for (_w, h), frame in frames.items():
        corners = frame.truth.board_corners_distorted
        out[f"crops {h}p"] = time_call(lambda f=frame, c=corners: rec.crops(f.image, c, LAYOUT))
        out[f"crops + model {h}p"] = time_call(
            lambda f=frame, c=corners: rec.read_board(f.image, c, LAYOUT), repeats=300
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, help="model (.onnx), default models/tiles.onnx")
    parser.add_argument("--quick", action="store_true", help="small sets (a minute)")
    parser.add_argument("--json", type=Path, default=Path("runs/bench-recognizer.json"))
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    t0 = time.perf_counter()
    problem = model_problem([args.model])
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    rec = TileRecognizer.load(args.model, threads=1)
    report: dict = {
        "model": str(rec.path),
        "threshold": rec.threshold,
        "threshold_all_turns": rec.threshold_all_turns,
    }

    # Crops at the model's own input size, so models of different sizes are measured
    # on the same frames.
    fam_spec = families_spec(rec.crop_px, scale)
    held_spec = DataSpec(
        name="bench-heldout",
        seed=6000,
        tables=max(3, int(50 * scale)),
        families=HELDOUT_FAMILIES,
        crop_px=rec.crop_px,
    )
    fam = load_or_generate(fam_spec)
    held = load_or_generate(held_spec)
    fam_probs = rec.probabilities(fam.x)
    rows = family_table(fam_probs, fam.y, fam.family, rec.threshold, top=fam.top)
    report["calibration_error"] = calibration_error(fam_probs, fam.y)
    report["answered_accuracy"] = {}
    for th in (0.5, rec.threshold, 0.99):
        answered = fam_probs.max(1) >= th
        report["answered_accuracy"][f"{th:.4f}"] = {
            "answered": float(answered.mean()),
            "accuracy": float((fam_probs.argmax(1) == fam.y)[answered].mean()),
        }
    # The live app's steady views, second looks and photos are read at all four quarter
    # turns, against their own threshold.
    turned_probs = rec.probabilities_all_turns(fam.x)
    th_turns = rec.threshold_all_turns
    shown = fam.y != COVERED
    rows.append(score("all visible, four turns", turned_probs[shown], fam.y[shown], th_turns))
    # One frame read alone as the live app reads every frame: one pass, and a second
    # look at its few doubtful squares.
    live_probs, live_th = live_frames(rec, fam.x, fam.frame)
    rows.append(score("all visible, second look", live_probs[shown], fam.y[shown], live_th[shown]))
    # What the error is made of: frames shaken by motion blur (a tenth of the scenes
    # at full strength) and squares a hand partly hides hold most of it.
    still = shown & (fam.motion_blur == 0) & (fam.coverage == 0)
    for name, probs, th in (
        ("still, no hand", fam_probs, rec.threshold),
        ("still, no hand, 4 turns", turned_probs, th_turns),
    ):
        rows.append(score(name, probs[still], fam.y[still], th))
    sources = error_sources(live_probs, live_th, fam)
    report["error_sources"] = [asdict(r) for r in sources]
    report["best_class"] = {
        "one pass": float((fam_probs.argmax(1) == fam.y)[shown].mean()),
        "four turns": float((turned_probs.argmax(1) == fam.y)[shown].mean()),
    }
    rows += family_table(
        rec.probabilities(held.x),
        held.y,
        held.family,
        rec.threshold,
        prefix="held out, base: ",
        top=held.top,
    )
    seeds = [7000 + i for i in range(max(2, int(12 * scale)))]
    before, after, turned, live, live_th, ys, tops = enrolled_sets(
        rec, seeds, HELDOUT_FAMILIES[0], tests=20
    )
    visible = ys != COVERED
    th_enrolled = ENROLLED_THRESHOLD

    def enrolled_row(name: str, probs: np.ndarray, mask: np.ndarray, threshold):
        return score(name, probs[mask], ys[mask], threshold, tops[mask])

    rows += [
        enrolled_row("held out, same sets, base", before, visible, rec.threshold),
        enrolled_row("held out, enrolled (5 photos)", after, visible, th_enrolled),
        enrolled_row("held out, enrolled, covered", after, ~visible, th_enrolled),
        enrolled_row("held out, enrolled, four turns", turned, visible, th_enrolled),
        enrolled_row("held out, enrolled, 4 turns, cov.", turned, ~visible, th_enrolled),
        enrolled_row("held out, enrolled, 2nd look", live, visible, live_th[visible]),
    ]
    print("## Accuracy\n")
    print("```")
    print(format_table(rows))
    print("```")
    report["rows"] = [asdict(r) for r in rows]
    print(f"\nexpected calibration error (training families): {report['calibration_error']:.4f}")
    print(
        "best class right (training families, visible): "
        + ", ".join(f"{k} {100 * v:.2f}%" for k, v in report["best_class"].items())
    )
    for th, v in report["answered_accuracy"].items():
        print(
            f"confidence >= {th}: {100 * v['answered']:.2f}% of squares answered, "
            f"{100 * v['accuracy']:.3f}% of them right"
        )
    print("\nWhere one frame's error is (second look, training families, visible squares):\n")
    print("```")
    print(format_table(sources))
    print("```")
    report["speed"] = speed(rec)
    print("\n## Speed (1 thread, ms)\n")
    print("| what | median | p95 |\n|---|---|---|")
    for name, t in report["speed"].items():
        print(f"| {name} | {t['median_ms']:.2f} | {t['p95_ms']:.2f} |")
    size = rec.path.stat().st_size / 1e6
    report["size_mb"] = size
    report["seconds"] = time.perf_counter() - t0
    print(f"\nmodel size {size:.2f} MB; benchmark took {report['seconds']:.0f} s")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
