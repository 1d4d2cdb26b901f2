"""One sharper picture of each square from a steady view's frames (vision.burst)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.burst import accumulated, averaged, registered, shift_of, smeared


def moved(crops: np.ndarray, dx: float, dy: float) -> np.ndarray:
    shift = np.float32([[1, 0, dx], [0, 1, dy]])
    size = crops.shape[2], crops.shape[1]
    return np.stack([cv2.warpAffine(c, shift, size, borderMode=cv2.BORDER_REFLECT) for c in crops])


def off(crops: np.ndarray, original: np.ndarray) -> float:
    """Mean pixel difference, away from the borders a shift or a filter makes up."""
    return float(np.abs(crops.astype(int) - original.astype(int))[:, 8:-8, 8:-8].mean())


@pytest.mark.parametrize(("dx", "dy"), [(1.5, -0.5), (-2.0, 1.0), (0.0, 2.5)])
def test_a_frames_shift_is_found_to_a_fraction_of_a_pixel(
    dx: float, dy: float, four_tile_crops: np.ndarray
) -> None:
    crops = four_tile_crops
    found = shift_of(moved(crops, dx, dy), crops)
    assert abs(found[0] - dx) < 0.3 and abs(found[1] - dy) < 0.3


def test_frames_found_a_little_off_are_lined_up_on_the_last(four_tile_crops: np.ndarray) -> None:
    crops = four_tile_crops
    frames = [moved(crops, 1.5, -1.0), moved(crops, -2.0, 0.5), crops]
    lined_up = registered(frames)
    assert lined_up[-1] is crops
    for before, after in zip(frames[:-1], lined_up[:-1], strict=True):
        assert off(after, crops) < off(before, crops) / 2


def test_some_squares_are_lined_up_by_the_shift_all_of_them_give(
    four_tile_crops: np.ndarray,
) -> None:
    crops = four_tile_crops
    frames = [moved(crops, 1.5, -1.0), moved(crops, -2.0, 0.5), crops]
    some = registered(frames, only=[1, 3])
    assert all(np.array_equal(s, a[[1, 3]]) for s, a in zip(some, registered(frames), strict=True))


def test_one_frame_or_the_same_frame_again_is_kept_as_it_is(four_tile_crops: np.ndarray) -> None:
    crops = four_tile_crops
    assert np.array_equal(registered([crops])[0], crops)
    assert np.abs(accumulated([crops]).astype(int) - crops).max() <= 1
    assert np.abs(accumulated([crops, crops, crops]).astype(int) - crops).max() <= 1
    flat = np.full((2, 84, 84, 3), 77, np.uint8)
    assert np.array_equal(accumulated([flat, flat]), flat)  # nothing to weigh: no NaN


def test_frames_smeared_each_its_own_way_merge_sharper_than_their_average(
    four_tile_crops: np.ndarray,
) -> None:
    crops = four_tile_crops
    angles = np.random.default_rng(0).uniform(0, 180, 6)
    frames = [smeared(crops, 7, float(a)) for a in angles]
    merged = accumulated(frames)
    # Each frame's streak blurs only the detail across it; some frame holds each detail.
    assert off(merged, crops) < off(averaged(frames), crops)
    assert off(merged, crops) < min(off(f, crops) for f in frames)
