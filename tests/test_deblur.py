"""Taking a round smear out of a steady view's averaged crops (vision.deblur)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.burst import smeared
from vision.deblur import round_blur, unsmeared


@pytest.mark.parametrize("length", [4.0, 8.0])
def test_the_round_blur_is_centred_and_the_same_every_way(length: float) -> None:
    psf = round_blur(length)
    assert psf.shape[0] == psf.shape[1] and psf.shape[0] % 2 == 1
    assert abs(psf.sum() - 1) < 1e-9
    # Laid over one another, streaks in every direction blur alike each way.
    assert np.allclose(psf, psf.T, atol=0.01) and np.allclose(psf, psf[::-1, ::-1], atol=1e-9)
    centre = psf.shape[0] // 2
    assert psf[centre, centre] == psf.max()


def test_tiles_smeared_every_frame_another_way_come_back_closest_at_the_smears_length(
    four_tile_crops: np.ndarray,
) -> None:
    length = 9
    angles = np.random.default_rng(0).uniform(0, 180, 12)
    frames = [smeared(four_tile_crops, length, float(a)) for a in angles]
    averaged = np.rint(np.mean(frames, axis=0)).astype(np.uint8)
    original = four_tile_crops.astype(int)

    def off(image: np.ndarray) -> float:
        return float(np.abs(image.astype(int) - original).mean())

    assert off(unsmeared(averaged, length)) < off(averaged)
    # Too short a length leaves blur, too long a one rings: the pipeline tries several.
    assert off(unsmeared(averaged, length)) < off(unsmeared(averaged, length / 2))
    assert off(unsmeared(averaged, length)) < off(unsmeared(averaged, length * 2))


def test_no_crops_give_no_crops() -> None:
    assert unsmeared(np.zeros((0, 84, 84, 3), np.uint8), 6.0).shape == (0, 84, 84, 3)
