"""The colours printed on a tile's face, as a short vector (for enrolment's suit head).

In SETUP each suit has its own colour (the rulebook: the tiles "are of five
different colours"), so once a user has shown their set, colour tells the suit
even when the suit's symbol is a few pixels wide or drawn in an art the model
never saw. :func:`colour_features` summarises the middle of each square's crop
(where the tile's face is, away from the bonus squares' coloured frames):

* the crop is first white-balanced on its brightest pixels (the card), so a
  warmer lamp or another camera does not move every colour;
* then a histogram of the chromatic pixels over the CIELAB a*/b* plane (8 x 8 bins),
  plus the share of dark, mid and light grey pixels (black suits have no hue),
  each bin as the square root of the pixels' share.

>>> crops = np.full((2, 84, 84, 3), 235, np.uint8)  # two white cards
>>> crops[0, 30:54, 30:54] = (40, 40, 200)  # a red mark
>>> crops[1, 30:54, 30:54] = (200, 120, 30)  # a blue one
>>> f = colour_features(crops)
>>> f.shape
(2, 67)
>>> bool(np.abs(f[0] - f[1]).max() > 0.3)
True
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

AB_BINS = 8
"""Bins per axis of the a*/b* histogram."""
AB_RANGE = 80.0
"""a* and b* (centred on 0) are binned over [-AB_RANGE, AB_RANGE]."""
CHROMA_MIN = 18.0
"""Pixels with less chroma than this count as grey (dark, mid or light)."""
CENTRE = 0.5
"""Side of the crop's middle part that is summarised, as a fraction of the crop."""
FEATURES = AB_BINS * AB_BINS + 3


BRIGHTEST = 0.95
"""The quantile of a crop's brightness above which its pixels are taken for the card."""


def _brightest_level(brightness: np.ndarray) -> np.ndarray:
    """Per row of integer ``brightness`` (N x pixels, 0..765), the level from which a
    pixel is among the brightest: the same pixels as ``brightness >=
    np.quantile(brightness, BRIGHTEST)`` (linear interpolation) picks, found from
    each row's counts of each level, a fifth of the time of a quantile per row."""
    n, pixels = brightness.shape
    levels = 3 * 255 + 1
    counts = np.bincount(
        (brightness + (np.arange(n) * levels)[:, None]).ravel(), minlength=n * levels
    ).reshape(n, levels)
    below = np.cumsum(counts, axis=1)  # pixels at or under each level
    position = BRIGHTEST * (pixels - 1)  # as numpy places the quantile, sorted order
    k = int(np.floor(position))
    kth = (below <= k).sum(axis=1)  # the k-th smallest level (0-based)
    if position == k or k + 1 >= pixels:
        return kth
    # The quantile lies strictly between the k-th and next level when they differ, so
    # the pixels at or above it are those at or above the next.
    return (below <= k + 1).sum(axis=1)


def white_balance_gains(crops: np.ndarray) -> np.ndarray:
    """Per crop (N x px x px x 3, uint8), the gain per channel (N x 3) that makes its
    brightest 5% (the card, on most tiles) neutral and about 230 bright. The
    correction is capped (0.8-1.25): enough for a lamp's or a camera's cast, never
    enough to turn a coloured card grey."""
    crops = np.ascontiguousarray(crops, np.uint8)
    n = len(crops)
    flat = crops.reshape(n, -1, 3).astype(np.float32)
    lum = flat @ np.ones(3, np.float32)  # matrix products: numpy's sums over 3 are slow
    level = _brightest_level(lum.astype(np.int32))
    bright = (lum >= level[:, None]).astype(np.float32)
    ref = (bright[:, None, :] @ flat)[:, 0] / bright.sum(axis=1, keepdims=True) + 1.0
    gain = np.clip(ref.mean(axis=1, keepdims=True) / ref, 0.8, 1.25)
    gain *= 230.0 / (ref * gain).mean(axis=1, keepdims=True)
    return gain


def _with_gains(crops: np.ndarray, gains: np.ndarray) -> np.ndarray:
    # Per crop, a lookup table per channel: the same numbers as scaling every pixel.
    levels = np.arange(256, dtype=np.float32)
    tables = np.clip(levels[None, :, None] * gains[:, None, :], 0, 255).astype(np.uint8)
    out = np.empty_like(crops)
    for i in range(len(crops)):
        out[i] = cv2.LUT(crops[i], tables[i].reshape(256, 1, 3))
    return out


GREY_LEVELS = (70, 170)
"""Lightness (OpenCV's 8-bit L*) where dark grey ends and light grey begins."""


@functools.cache
def _pixel_classes() -> tuple[np.ndarray, np.ndarray]:
    """The histogram bin of every pixel colour: per (a*, b*) pair of OpenCV's 8-bit
    CIELAB (a 256 x 256 table), its a*/b* bin, or -1 for a grey pixel; per lightness
    (256), a grey pixel's bin (dark, mid, light). Tables, because every 8-bit pixel
    falls in the bin its levels give, and a lookup is faster than the arithmetic."""
    level = np.arange(256, dtype=np.float32) - 128.0
    a, b = level[:, None], level[None, :]
    chromatic = np.hypot(a, b) > CHROMA_MIN
    scale = AB_BINS / (2 * AB_RANGE)
    ia = np.clip(((level + AB_RANGE) * scale).astype(int), 0, AB_BINS - 1)
    ab = np.where(chromatic, ia[:, None] * AB_BINS + ia[None, :], -1)
    lightness = np.arange(256, dtype=np.float32)
    dark, light = GREY_LEVELS
    grey = AB_BINS * AB_BINS + (lightness >= dark) + (lightness >= light)
    return ab.ravel().astype(np.int32), grey.astype(np.int32)


def colour_features(crops: np.ndarray) -> np.ndarray:
    """The colour summary (N x FEATURES, float32) of N square crops (N x px x px x 3 BGR)."""
    crops = np.asarray(crops)
    n, px = len(crops), crops.shape[1]
    margin = round(px * (1 - CENTRE) / 2)
    inner = slice(margin, px - margin)
    # The whole crop sets the balance; only its middle is summarised, so only that is
    # balanced.
    gains = white_balance_gains(crops)
    middle = _with_gains(np.ascontiguousarray(crops[:, inner, inner], np.uint8), gains)
    lab = cv2.cvtColor(middle.reshape(-1, middle.shape[2], 3), cv2.COLOR_BGR2LAB)
    lab = lab.reshape(n, -1, 3)
    ab_bin, grey_bin = _pixel_classes()
    bins = ab_bin[(lab[..., 1].astype(np.int32) << 8) | lab[..., 2]]
    bins = np.where(bins < 0, grey_bin[lab[..., 0]], bins)
    bins += np.arange(n, dtype=np.int32)[:, None] * FEATURES
    counts = np.bincount(bins.ravel(), minlength=n * FEATURES).reshape(n, FEATURES)
    return np.sqrt((counts / lab.shape[1]).astype(np.float32))
