"""How fast the simulated table renders, on one core.

Prints the median milliseconds per frame of a game stream (hand moving, camera
shake, light flicker: the live demo's load) and of independent stills, at
1280x720 and 1920x1080::

    .venv/bin/python benchmarks/bench_synth.py [--frames 60]
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from vision.synth import random_scene, render_frame
from vision.synth.sequence import GameStream


def bench_stream(resolution: tuple[int, int], frames: int) -> float:
    stream = GameStream.random(1, resolution=resolution, hands=True, max_turns=6)
    times = []
    iterator = iter(stream)
    next(iterator)  # the first frame builds the caches (tile faces, board, table, lens maps)
    for _ in range(frames):
        start = time.perf_counter()
        try:
            next(iterator)
        except StopIteration:
            break
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def bench_stills(resolution: tuple[int, int], count: int) -> float:
    times = []
    for seed in range(count):
        scene = random_scene(np.random.default_rng(seed), hands=True, resolution=resolution)
        start = time.perf_counter()
        render_frame(scene, seed)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=60, help="stream frames per resolution")
    parser.add_argument("--stills", type=int, default=8, help="stills per resolution")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    for resolution in ((1280, 720), (1920, 1080)):
        label = f"{resolution[0]}x{resolution[1]}"
        ms = bench_stream(resolution, args.frames)
        print(f"stream {label}: median {ms:.1f} ms/frame ({1000 / ms:.1f} fps, one core)")
        ms = bench_stills(resolution, args.stills)
        print(f"stills {label}: median {ms:.1f} ms/frame (new art and camera each)")


if __name__ == "__main__":
    main()
