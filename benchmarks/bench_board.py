"""Board finding speed and accuracy on 1280x720 frames.

    .venv/bin/python benchmarks/bench_board.py [--frames 30] [--source synth|own]

Prints median and p95 milliseconds for finding the board from scratch and when
tracking from the previous frame (nothing moved), plus the share of frames whose
corners are within 1% of the board width (any rotation, and in the exact order).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from calibration.board_finder import BoardNotFound, corner_error, find_board
from calibration.camera_file import Calibration, undistort
from engine.layout import Layout


def frames(source: str, count: int):
    if source == "own":
        from calibration.synthetic import render_board_scene

        for seed in range(count):
            scene = render_board_scene(np.random.default_rng(seed))
            yield scene.image, scene.corners
        return
    from vision.synth.scene import random_scene, render_frame

    for seed in range(count):
        frame = render_frame(random_scene(seed), seed)
        truth = frame.truth
        cal = Calibration(truth.image_size, truth.camera_matrix, truth.dist_coeffs)
        yield undistort(frame.image, cal), truth.board_corners


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30)
    parser.add_argument("--source", choices=("synth", "own"), default="synth")
    args = parser.parse_args()
    layout = Layout.load()
    scratch, tracked = [], []
    within, ordered, missing = 0, 0, 0
    for image, truth in frames(args.source, args.frames):
        width = float(np.linalg.norm(truth[1] - truth[0]))
        start = time.perf_counter()
        try:
            location = find_board(image, layout)
        except BoardNotFound:
            missing += 1
            continue
        scratch.append(time.perf_counter() - start)
        error = min(corner_error(np.roll(location.corners, k, 0), truth) for k in range(4))
        within += error / width < 0.01
        ordered += corner_error(location.corners, truth) / width < 0.01
        for _ in range(10):
            start = time.perf_counter()
            find_board(image, layout, previous=location)
            tracked.append(time.perf_counter() - start)
    n = args.frames

    def ms(values: list[float]) -> str:
        arr = np.array(values) * 1000
        return f"median {np.median(arr):.1f} ms, p95 {np.percentile(arr, 95):.1f} ms"

    print(f"source {args.source}, {n} frames 1280x720")
    print(f"from scratch: {ms(scratch)}")
    print(f"tracked:      {ms(tracked)}")
    print(
        f"not found: {missing}/{n}; corners within 1% (any rotation): {within}/{n}; "
        f"in the right order with the nearest-edge default: {ordered}/{n}"
    )


if __name__ == "__main__":
    main()
