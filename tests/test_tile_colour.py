"""The colour summary enrolment's suit head reads (:mod:`vision.tile_colour`): its fast
paths give exactly what the plain arithmetic gives."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vision import tile_colour
from vision.tile_colour import (
    AB_BINS,
    AB_RANGE,
    BRIGHTEST,
    CENTRE,
    CHROMA_MIN,
    FEATURES,
    colour_features,
    white_balance_gains,
)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 4).flatmap(
        lambda rows: st.integers(1, 300).flatmap(
            lambda pixels: arrays(np.int32, (rows, pixels), elements=st.integers(0, 765))
        )
    )
)
def test_the_brightest_pixels_are_those_above_the_quantile(brightness):
    level = tile_colour._brightest_level(brightness)
    quantile = np.quantile(brightness.astype(np.float32), BRIGHTEST, axis=1, keepdims=True)
    np.testing.assert_array_equal(brightness >= level[:, None], brightness >= quantile)


def _plain_colour_features(crops: np.ndarray) -> np.ndarray:
    """The summary computed pixel by pixel, as the module did before session 34."""
    n, px = len(crops), crops.shape[1]
    flat = crops.reshape(n, -1, 3).astype(np.float32)
    lum = flat @ np.ones(3, np.float32)
    bright = (lum >= np.quantile(lum, BRIGHTEST, axis=1, keepdims=True)).astype(np.float32)
    ref = (bright[:, None, :] @ flat)[:, 0] / bright.sum(axis=1, keepdims=True) + 1.0
    gain = np.clip(ref.mean(axis=1, keepdims=True) / ref, 0.8, 1.25)
    gain *= 230.0 / (ref * gain).mean(axis=1, keepdims=True)
    balanced = np.clip(flat * gain[:, None, :], 0, 255).astype(np.uint8).reshape(crops.shape)
    margin = round(px * (1 - CENTRE) / 2)
    middle = np.ascontiguousarray(balanced[:, margin : px - margin, margin : px - margin])
    lab = cv2.cvtColor(middle.reshape(-1, middle.shape[2], 3), cv2.COLOR_BGR2LAB)
    lab = lab.reshape(n, -1, 3).astype(np.float32)
    lightness, a, b = lab[..., 0], lab[..., 1] - 128.0, lab[..., 2] - 128.0
    chromatic = np.hypot(a, b) > CHROMA_MIN
    scale = AB_BINS / (2 * AB_RANGE)
    ia = np.clip(((a + AB_RANGE) * scale).astype(int), 0, AB_BINS - 1)
    ib = np.clip(((b + AB_RANGE) * scale).astype(int), 0, AB_BINS - 1)
    out = np.zeros((n, FEATURES), np.float32)
    pixels = lab.shape[1]
    for i in range(n):
        bins = (ia[i] * AB_BINS + ib[i])[chromatic[i]]
        out[i, : AB_BINS * AB_BINS] = np.bincount(bins, minlength=AB_BINS * AB_BINS) / pixels
        grey = ~chromatic[i]
        out[i, -3] = (grey & (lightness[i] < 70)).sum() / pixels
        out[i, -2] = (grey & (lightness[i] >= 70) & (lightness[i] < 170)).sum() / pixels
        out[i, -1] = (grey & (lightness[i] >= 170)).sum() / pixels
    return np.sqrt(out)


def test_the_summary_is_the_plain_arithmetic(four_tile_crops):
    rng = np.random.default_rng(5)
    noise = rng.integers(0, 256, (3, 84, 84, 3)).astype(np.uint8)
    flat = np.full((2, 84, 84, 3), 200, np.uint8)  # every pixel as bright: all are the card
    cast = np.clip(four_tile_crops * np.array([0.8, 1.0, 1.2]), 0, 255).astype(np.uint8)
    for crops in (four_tile_crops, cast, noise, flat, noise[:, :31, :31]):
        np.testing.assert_array_equal(colour_features(crops), _plain_colour_features(crops))


def test_white_balance_makes_the_card_neutral(four_tile_crops):
    warm = np.clip(four_tile_crops * np.array([0.85, 1.0, 1.15]), 0, 255).astype(np.uint8)
    gains = white_balance_gains(warm)
    assert gains.shape == (4, 3)
    assert np.all(gains[:, 0] > gains[:, 2])  # blue lifted, red lowered
    balanced = np.clip(warm.reshape(4, -1, 3) * gains[:, None, :], 0, 255).astype(int).astype(float)
    brightest = balanced.sum(axis=2) >= np.quantile(balanced.sum(axis=2), 0.95, axis=1)[:, None]
    card = np.array([balanced[i][brightest[i]].mean(axis=0) for i in range(4)])
    assert np.abs(card - card.mean(axis=1, keepdims=True)).max() < 12
