"""Board finding accuracy and speed on table-simulator frames.

    .venv/bin/python benchmarks/bench_board.py [--frames 200] [--first-seed 5000]
        [--hands mixed|none|all]

Frame ``i`` (seed ``first_seed + i``) cycles through every art family (the held-out
one included), has a hand over the board on every other block of six (``--hands
mixed``, the default; ``none``: the issue's target condition, a cluttered table with
nobody reaching over it; ``all``: always a hand) and is 1920x1080 on every other
block of twelve, else 1280x720. For each frame it reports:

* corners: found within 1% of the board width (any rotation) in the delivered,
  distorted image against ``board_corners_distorted``, and after ``undistort``
  with the frame's lens against ``board_corners``;
* corners found with a ``BoardLook`` registered on a *different* frame of the same
  board style (new camera, position, light, no hand; registered from its true
  corners, as a user confirms the board once): its rim profile moves an outline
  found on an inner ring out to the board's edge;
* orientation: corners in the right order, with that registered look, from
  the seats' colour names alone (``BoardLook.from_seats``), and with no look (the
  nearest-edge default);
* milliseconds from scratch (distorted image) and tracked from the previous
  location on the same image (nothing moved), median and p95.

Seeds below 5000 were used while tuning (1000-1239); keep the default for reports.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from calibration.board_finder import find_board
from calibration.board_location import BoardNotFound, manual_board
from calibration.camera_file import Calibration, undistort
from calibration.orientation import BoardLook
from engine import Seats
from engine.layout import Layout

HANDS_MODES = ("mixed", "none", "all")


def frame_spec(index: int, hands_mode: str = "mixed") -> tuple[str, bool, tuple[int, int]]:
    """(family, hands, resolution) of the benchmark's frame ``index``."""
    from vision.synth.styles import FAMILIES

    family = FAMILIES[index % len(FAMILIES)]
    hands = {"mixed": (index // 6) % 2 == 1, "none": False, "all": True}[hands_mode]
    resolution = (1920, 1080) if (index // 12) % 2 else (1280, 720)
    return family, hands, resolution


def frame_pair(seed: int, index: int, hands_mode: str = "mixed"):
    """The frame to measure and a reference frame of the same board style."""
    from vision.synth.scene import random_scene, render_frame

    family, hands, resolution = frame_spec(index, hands_mode)
    scene = random_scene(seed, family=family, hands=hands, resolution=resolution)
    other = random_scene(seed + 100_000, family=family, resolution=resolution)
    reference = dataclasses.replace(other, style=scene.style)
    return render_frame(scene, seed), render_frame(reference, seed + 100_000)


def relative_error(found: np.ndarray, truth: np.ndarray, any_rotation: bool) -> float:
    width = float(np.linalg.norm(truth[1] - truth[0]))
    turns = range(4) if any_rotation else (0,)
    return (
        min(float(np.max(np.linalg.norm(np.roll(found, k, 0) - truth, axis=1))) for k in turns)
        / width
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--first-seed", type=int, default=5000)
    parser.add_argument(
        "--hands", choices=HANDS_MODES, default="mixed", help="hands over the board (see above)"
    )
    parser.add_argument("--verbose", action="store_true", help="print every miss")
    args = parser.parse_args()
    layout = Layout.load()
    # The simulator seats its players S=red, W=green, N=yellow, E=purple.
    seats_look = BoardLook.from_seats(Seats.parse("S=red,W=green,N=yellow,E=purple").by_edge)
    scratch, tracked = [], []
    counts = dict.fromkeys(
        (
            "dist",
            "undist",
            "look",
            "look_corners",
            "seats",
            "nolook",
            "look_given_corners",
            "refused",
            "off",
        ),
        0,
    )
    found_both = 0
    by_condition: dict[str, list[int]] = {}  # condition -> [right, frames]
    by_condition_look: dict[str, list[int]] = {}  # the same, with a registered look
    for index in range(args.frames):
        seed = args.first_seed + index
        frame, ref = frame_pair(seed, index, args.hands)
        truth = frame.truth
        look = BoardLook.capture(ref.image, manual_board(ref.truth.board_corners_distorted), layout)
        image = frame.image
        start = time.perf_counter()
        try:
            location = find_board(image, layout)
        except BoardNotFound as err:
            location = None
            reason = err.reason
        scratch.append(time.perf_counter() - start)
        counts["refused"] += location is None
        if location is not None:
            for _ in range(5):
                start = time.perf_counter()
                find_board(image, layout, previous=location)
                tracked.append(time.perf_counter() - start)
            ok = relative_error(location.corners, truth.board_corners_distorted, True) < 0.01
            counts["dist"] += ok
            counts["off"] += not ok
            counts["nolook"] += (
                relative_error(location.corners, truth.board_corners_distorted, False) < 0.01
            )
            by_seats = find_board(image, layout, look=seats_look)
            counts["seats"] += (
                relative_error(by_seats.corners, truth.board_corners_distorted, False) < 0.01
            )
            try:
                looked = find_board(image, layout, look=look).corners
            except BoardNotFound:  # the rim moved the outline to too oblique a shape
                looked = np.full((4, 2), np.inf)
            right = relative_error(looked, truth.board_corners_distorted, False) < 0.01
            counts["look"] += right
            looked_right = relative_error(looked, truth.board_corners_distorted, True) < 0.01
            counts["look_corners"] += looked_right
            family, hands, resolution = frame_spec(index, args.hands)
            tally = by_condition_look.setdefault("hands" if hands else "no hands", [0, 0])
            tally[0] += looked_right
            if ok:
                found_both += 1
                counts["look_given_corners"] += right
            if args.verbose and not ok:
                print(f"miss seed {seed} {frame_spec(index, args.hands)}")
        elif args.verbose:
            print(f"not found seed {seed} {frame_spec(index, args.hands)}: {reason}")
        right_here = location is not None and (
            relative_error(location.corners, truth.board_corners_distorted, True) < 0.01
        )
        family, hands, resolution = frame_spec(index, args.hands)
        for key in ("hands" if hands else "no hands", f"{resolution[1]}p", family):
            tally = by_condition.setdefault(key, [0, 0])
            tally[0] += right_here
            tally[1] += 1
        by_condition_look.setdefault("hands" if hands else "no hands", [0, 0])[1] += 1
        cal = Calibration(truth.image_size, truth.camera_matrix, truth.dist_coeffs)
        try:
            flat = find_board(undistort(image, cal), layout)
            counts["undist"] += relative_error(flat.corners, truth.board_corners, True) < 0.01
        except BoardNotFound:
            pass
    n = args.frames

    def ms(values: list[float]) -> str:
        arr = np.array(values) * 1000
        return f"median {np.median(arr):.1f} ms, p95 {np.percentile(arr, 95):.1f} ms"

    def pct(count: int, total: int) -> str:
        return f"{count}/{total} ({100 * count / max(total, 1):.1f}%)"

    print(
        f"{n} simulator frames, seeds {args.first_seed}..{args.first_seed + n - 1}, "
        f"hands: {args.hands}"
    )
    print(f"corners within 1%, distorted image:        {pct(counts['dist'], n)}")
    print(f"corners within 1%, undistorted (with lens): {pct(counts['undist'], n)}")
    print(f"  missed: an outline off by more than 1%:  {pct(counts['off'], n)}")
    print(f"  missed: refused with a reason:           {pct(counts['refused'], n)}")
    for key, (right, total) in by_condition.items():
        print(f"  {key + ':':<40} {pct(right, total)}")
    print(f"corners within 1%, with a registered look: {pct(counts['look_corners'], n)}")
    for key, (right, total) in by_condition_look.items():
        print(f"  {key + ':':<40} {pct(right, total)}")
    print(f"orientation right with a registered look:  {pct(counts['look'], n)}")
    given = pct(counts["look_given_corners"], found_both)
    print(f"  of the frames whose corners were right:  {given}")
    print(f"orientation right from the seats' colours: {pct(counts['seats'], n)}")
    print(f"orientation right with no look (default):  {pct(counts['nolook'], n)}")
    print(f"from scratch: {ms(scratch)}")
    print(f"tracked:      {ms(tracked)}")


if __name__ == "__main__":
    main()
