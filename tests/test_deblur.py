"""Taking a round smear out of a steady view's averaged crops (vision.deblur)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from engine import Layout
from vision.deblur import round_blur, unsmeared
from vision.recognizer import TileRecognizer
from vision.synth import random_scene, render_frame
from vision.training_data import crop_labels


def smeared(crop: np.ndarray, length: float, angle: float) -> np.ndarray:
    """``crop`` dragged ``length`` px along ``angle`` degrees, as a moving camera does."""
    size = int(np.ceil(length)) | 1
    line = np.zeros((size, size), np.float32)
    line[size // 2, :] = 1
    turn = cv2.getRotationMatrix2D(((size - 1) / 2, (size - 1) / 2), angle, 1)
    kernel = cv2.warpAffine(line, turn, (size, size))
    return cv2.filter2D(crop, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REFLECT_101)


@pytest.mark.parametrize("length", [4.0, 8.0])
def test_the_round_blur_is_centred_and_the_same_every_way(length: float) -> None:
    psf = round_blur(length)
    assert psf.shape[0] == psf.shape[1] and psf.shape[0] % 2 == 1
    assert abs(psf.sum() - 1) < 1e-9
    # Laid over one another, streaks in every direction blur alike each way.
    assert np.allclose(psf, psf.T, atol=0.01) and np.allclose(psf, psf[::-1, ::-1], atol=1e-9)
    centre = psf.shape[0] // 2
    assert psf[centre, centre] == psf.max()


def test_tiles_smeared_every_frame_another_way_come_back_closest_at_the_smears_length() -> None:
    rec = TileRecognizer.load()
    layout = Layout.load()
    frame = render_frame(random_scene(np.random.default_rng(3), family="bold"), 0)
    crops = rec.crops(frame.image, frame.truth.board_corners_distorted, layout)
    tiles = np.flatnonzero(np.array(crop_labels(frame, layout)) < 50)[:4]
    assert len(tiles) == 4
    length = 9.0
    angles = np.random.default_rng(0).uniform(0, 180, 12)
    frames = [np.stack([smeared(crops[i], length, a) for i in tiles]) for a in angles]
    averaged = np.rint(np.mean(frames, axis=0)).astype(np.uint8)
    original = crops[tiles].astype(int)

    def off(image: np.ndarray) -> float:
        return float(np.abs(image.astype(int) - original).mean())

    assert off(unsmeared(averaged, length)) < off(averaged)
    # Too short a length leaves blur, too long a one rings: the pipeline tries several.
    assert off(unsmeared(averaged, length)) < off(unsmeared(averaged, length / 2))
    assert off(unsmeared(averaged, length)) < off(unsmeared(averaged, length * 2))


def test_no_crops_give_no_crops() -> None:
    assert unsmeared(np.zeros((0, 84, 84, 3), np.uint8), 6.0).shape == (0, 84, 84, 3)
