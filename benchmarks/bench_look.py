"""What a steady view's look through its frames costs (``LivePipeline._through_frames``).

Only a view that leaves tiles in doubt pays it: the frames lined up, averaged and
burst-accumulated, and up to nine pictures of the doubtful squares read at four turns
(models/HISTORY.md, "Session 33"). The crops here are noise, so no picture answers the
squares and every picture is read: the worst case.

Run: ``.venv/bin/python -m benchmarks.bench_look [--frames 15] [--repeats 5]``.
onnxruntime on one thread, as in ``serve``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import cv2
import numpy as np

from vision.decoder import LABELS
from vision.pipeline import LivePipeline
from vision.recognizer import TileRecognizer
from vision.stability import StableView

DOUBTFUL = (1, 4, 8)
BOARD = np.array([[0, 0], [400, 0], [400, 400], [0, 400]], np.float32)  # 400 px wide


def look_ms(pipeline: LivePipeline, frames: int, doubtful: int, repeats: int) -> float:
    """Median time (ms) of the look on a view of ``frames`` frames, ``doubtful`` in doubt."""
    rng = np.random.default_rng(doubtful)
    squares = pipeline.layout.squares
    size = pipeline.recognizer.crop_px
    crops = tuple(
        rng.integers(0, 256, (len(squares), size, size, 3), dtype=np.uint8) for _ in range(frames)
    )
    unsure = np.full(len(LABELS), 0.5 / (len(LABELS) - 1))
    unsure[0] = 0.5  # a tile, held far below the threshold
    sure_empty = np.full(len(LABELS), 1e-6)
    sure_empty[LABELS.index("empty")] = 1 - 1e-6 * (len(LABELS) - 1)
    probabilities = {s: unsure if i < doubtful else sure_empty for i, s in enumerate(squares)}
    view = StableView(0.0, probabilities, frames, crops)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        pipeline._through_frames(view, probabilities, BOARD)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=15, help="frames in the view")
    parser.add_argument("--repeats", type=int, default=5, help="runs per case (median)")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    pipeline = LivePipeline(TileRecognizer.load(None, None, threads=1))
    look_ms(pipeline, args.frames, 1, 1)  # warm-up: first calls allocate and plan
    print(f"A view of {args.frames} frames, every picture read (the worst case).\n")
    print("| squares in doubt | look (median) |")
    print("|---|---|")
    for doubtful in DOUBTFUL:
        print(f"| {doubtful} | {look_ms(pipeline, args.frames, doubtful, args.repeats):.0f} ms |")


if __name__ == "__main__":
    main()
