"""Benchmark of the blur check on enrolment photos (vision.photo_blur).

    .venv/bin/python -m benchmarks.bench_photo_blur [--sets 60] [--harm-sets 16]

Two questions, each on the simulator's held-out seeds:

1. **Does it pass the photos it should?** Every enrolment photo of ``--sets`` tile sets
   of the held-out art ("split", seeds 7000...) and as many of the trained classic art
   (seeds 8000...; its corner digits are the finest print), at 720p and 1080p, each with
   the camera's own blur, noise and JPEG: their blur, and how many the check refuses.
2. **Does it refuse the photos it should?** ``--harm-sets`` held-out sets (seeds
   7100...) enrolled from their 5 photos blurred by 0, 1, 1.5 and 2 px more, then read
   on 10 sharp frames with no hand at four turns (as a steady view is read): the still
   squares left "?" or read wrongly, how many sets the read-back rule
   (``setupcam enroll``'s :func:`~setupcam.commands.enroll.photos_to_retake`) refuses,
   how many the blur check does, and how many it takes with a note (a photo a little
   soft).
3. **What it costs:** one measure of a 720p and a 1080p photo, on one thread (the live
   app measures each steady view's picture, and the Calibrate page its latest).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script too

from engine import Layout
from setupcam.commands.enroll import photos_to_retake, read_back_each
from vision.enrollment import EnrollmentSample, build_enrollment
from vision.photo_blur import BLURRED_PX, SOFT_PX, focus_verdict, photo_blur_px
from vision.recognizer import COVERED, TileRecognizer
from vision.synth import HELDOUT_FAMILIES
from vision.training_data import ProgressBar, crop_labels, tile_set_frames

LAYOUT = Layout.load()
RESOLUTIONS = ((1280, 720), (1920, 1080))
FAMILIES = ((HELDOUT_FAMILIES[0], 7000), ("classic", 8000))
ADDED_BLUR = (0.0, 1.0, 1.5, 2.0)
HARM_FIRST_SEED = 7100


def photo_blurs(family: str, seeds: range) -> list[float]:
    """The blur of every enrolment photo of the sets ``seeds``, at both resolutions."""
    blurs = []
    for seed in seeds:
        for resolution in RESOLUTIONS:
            frames = tile_set_frames(seed, family, photos=5, tests=0, resolution=resolution)
            blurs += [photo_blur_px(frame.image, corners) for frame, corners in frames.enrol]
    return blurs


def blurred(image: np.ndarray, sigma: float) -> np.ndarray:
    return image if sigma == 0 else cv2.GaussianBlur(image, (0, 0), sigma)


def enrolled_from_blurred_photos(rec: TileRecognizer, seed: int, tests: int) -> list[dict]:
    """Set ``seed`` enrolled from its photos blurred by each of :data:`ADDED_BLUR`, read
    on its sharp test frames: one row per blur."""
    frames = tile_set_frames(seed, HELDOUT_FAMILIES[0], photos=5, tests=tests, hand_rate=0.0)
    y = np.concatenate([crop_labels(f, LAYOUT) for f, _ in frames.test])
    crops = np.concatenate([rec.crops(f.image, c, LAYOUT) for f, c in frames.test])
    still = np.repeat(np.array(frames.test_motion_blur) == 0, len(LAYOUT.squares)) & (y != COVERED)
    rows = []
    for sigma in ADDED_BLUR:
        samples = [
            EnrollmentSample(blurred(f.image, sigma), c, f.truth.position) for f, c in frames.enrol
        ]
        enrolled = rec.with_enrollment(build_enrollment(rec, samples, LAYOUT))
        per_photo, _, _, _ = read_back_each(enrolled, samples, LAYOUT)
        blurs = [photo_blur_px(s.image, s.corners) for s in samples]
        probabilities = enrolled.probabilities_all_turns(crops)[still]
        answered = probabilities.max(1) >= enrolled.threshold_all_turns
        rows.append(
            {
                "sigma": sigma,
                "squares": int(still.sum()),
                "unread": int((~answered).sum()),
                "wrong": int((answered & (probabilities.argmax(1) != y[still])).sum()),
                "read_back_refused": bool(photos_to_retake(per_photo)),
                "blur_refused": focus_verdict(max(blurs)) == "blurred",
                "noted_soft": focus_verdict(max(blurs)) == "a little soft",
            }
        )
    return rows


def measure_ms(repeats: int = 50) -> dict[str, float]:
    """The median time of one :func:`photo_blur_px`, in ms, on a 720p and a 1080p photo."""
    cv2.setNumThreads(1)
    out = {}
    for width, height in RESOLUTIONS:
        frames = tile_set_frames(
            7000, HELDOUT_FAMILIES[0], photos=5, tests=0, resolution=(width, height)
        )
        frame, corners = frames.enrol[0]
        times = []
        for _ in range(repeats + 1):
            started = time.perf_counter()
            photo_blur_px(frame.image, corners)
            times.append((time.perf_counter() - started) * 1000)
        out[f"{height}p"] = float(np.median(times[1:]))  # the first warms the caches
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", type=int, default=60, help="tile sets per art (photos)")
    parser.add_argument("--harm-sets", type=int, default=16, help="sets enrolled blurred")
    parser.add_argument("--tests", type=int, default=10, help="sharp frames read per set")
    args = parser.parse_args()

    print(
        f"A photo is refused when its blur is over {BLURRED_PX} px (reader pixels), and "
        f"taken with a note when over {SOFT_PX} px.\n"
    )
    print("### The simulator's photos, as taken\n")
    print("| art | photos | blur: least | median | 99th percentile | most | noted | refused |")
    print("|---|---|---|---|---|---|---|---|")
    for family, first in FAMILIES:
        progress = ProgressBar(f"photos: {family}", args.sets)
        blurs = []
        for done, seed in enumerate(range(first, first + args.sets), 1):
            blurs += photo_blurs(family, range(seed, seed + 1))
            progress.update(done)
        progress.close()
        print(file=sys.stderr)
        b = np.array(blurs)
        verdicts = [focus_verdict(blur) for blur in blurs]
        print(
            f"| {family} | {len(b)} | {b.min():.2f} | {np.median(b):.2f} | "
            f"{np.percentile(b, 99):.2f} | {b.max():.2f} | "
            f"{verdicts.count('a little soft')} | {verdicts.count('blurred')} |"
        )

    print("\n### Photos blurred, then sharp frames read with the set learnt from them\n")
    rec = TileRecognizer.load()
    progress = ProgressBar("blurred sets", args.harm_sets)
    per_set = []
    for done, seed in enumerate(range(HARM_FIRST_SEED, HARM_FIRST_SEED + args.harm_sets), 1):
        per_set.append(enrolled_from_blurred_photos(rec, seed, args.tests))
        progress.update(done)
    progress.close()
    print(file=sys.stderr)
    print(
        '| photos blurred by | still squares | "?" | wrong | sets the read-back refuses '
        "| sets the blur check refuses | sets taken with a note |"
    )
    print("|---|---|---|---|---|---|---|")
    for k, sigma in enumerate(ADDED_BLUR):
        rows = [rows[k] for rows in per_set]
        squares = sum(r["squares"] for r in rows)
        unread = sum(r["unread"] for r in rows)
        wrong = sum(r["wrong"] for r in rows)
        print(
            f"| {sigma:g} px | {squares} | {100 * unread / squares:.2f}% | "
            f"{100 * wrong / squares:.2f}% | {sum(r['read_back_refused'] for r in rows)} "
            f"of {len(rows)} | {sum(r['blur_refused'] for r in rows)} of {len(rows)} | "
            f"{sum(r['noted_soft'] for r in rows)} of {len(rows)} |"
        )

    print("\n### What one measure costs (one thread, median of 50)\n")
    print("| photo | ms |")
    print("|---|---|")
    for name, ms in measure_ms().items():
        print(f"| {name} | {ms:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
