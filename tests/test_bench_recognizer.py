"""The recognition benchmark's split of one frame's error by what the camera saw."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from benchmarks.bench_recognizer import BOARD_BANDS, error_sources
from vision.recognizer import COVERED, LABELS
from vision.synth import FAMILIES
from vision.training_data import CropSet


def random_crop_set(n: int, seed: int = 0) -> CropSet:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 50, n)
    y[rng.random(n) < 0.1] = COVERED
    return CropSet(
        x=np.zeros((n, 1)),
        y=y,
        family=rng.integers(0, 5, n),
        frame=np.arange(n) // 12,
        coverage=np.where(rng.random(n) < 0.2, rng.uniform(0.01, 1, n), 0.0),
        top=y,
        board_px=rng.uniform(280, 900, n),
        motion_blur=np.where(rng.random(n) < 0.1, rng.integers(3, 8, n), 0),
    )


def test_every_visible_square_is_counted_once_by_condition_family_and_board() -> None:
    data = random_crop_set(2000)
    probs = np.random.default_rng(1).dirichlet(np.full(len(LABELS), 0.05), len(data))
    rows = {r.name: r for r in error_sources(probs, np.full(len(data), 0.9), data)}
    visible = int((data.y != COVERED).sum())
    conditions = ("motion blur", "a hand over part", "still, no hand")
    assert sum(rows[name].squares for name in conditions) == visible
    still = rows["still, no hand"]
    by_board = [r for name, r in rows.items() if name.startswith("still: board")]
    by_family = [r for name, r in rows.items() if name.startswith("still: ") and r not in by_board]
    by_hidden = [r for name, r in rows.items() if name.startswith("hand: ")]
    assert len(by_hidden) == 2
    assert [r.name for r in by_family] == [f"still: {FAMILIES[i]}" for i in np.unique(data.family)]
    assert len(by_board) == len(BOARD_BANDS)
    for split, whole in (
        (by_family, still),
        (by_board, still),
        (by_hidden, rows["a hand over part"]),
    ):
        assert sum(r.squares for r in split) == whole.squares
        # The parts' errors add up to the whole's.
        errors = sum(r.error * r.squares for r in split)
        assert abs(errors - whole.error * whole.squares) < 1e-6


def test_a_group_with_no_squares_is_left_out() -> None:
    data = random_crop_set(200)
    data = replace(data, motion_blur=np.zeros(len(data), int))
    probs = np.eye(len(LABELS))[data.y]
    names = [r.name for r in error_sources(probs, np.full(len(data), 0.9), data)]
    assert "motion blur" not in names
    assert all(r.error == 0 for r in error_sources(probs, np.full(len(data), 0.9), data))
