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


def white_balanced(crops: np.ndarray) -> np.ndarray:
    """Each crop with its brightest 5% (the card, on most tiles) made neutral and
    about 230 bright. The per-channel correction is capped (0.8-1.25): enough for a
    lamp's or a camera's cast, never enough to turn a coloured card grey."""
    crops = np.ascontiguousarray(crops, np.uint8)
    n = len(crops)
    flat = crops.reshape(n, -1, 3).astype(np.float32)
    lum = flat @ np.ones(3, np.float32)  # matrix products: numpy's sums over 3 are slow
    bright = (lum >= np.quantile(lum, 0.95, axis=1, keepdims=True)).astype(np.float32)
    ref = (bright[:, None, :] @ flat)[:, 0] / bright.sum(axis=1, keepdims=True) + 1.0
    gain = np.clip(ref.mean(axis=1, keepdims=True) / ref, 0.8, 1.25)
    gain *= 230.0 / (ref * gain).mean(axis=1, keepdims=True)
    # Per crop, a lookup table per channel: the same numbers as scaling every pixel.
    levels = np.arange(256, dtype=np.float32)
    out = np.empty_like(crops)
    for i in range(n):
        table = np.clip(levels[:, None] * gain[i][None, :], 0, 255).astype(np.uint8)
        out[i] = cv2.LUT(crops[i], table.reshape(256, 1, 3))
    return out


def colour_features(crops: np.ndarray) -> np.ndarray:
    """The colour summary (N x FEATURES, float32) of N square crops (N x px x px x 3 BGR)."""
    crops = np.asarray(crops)
    n, px = len(crops), crops.shape[1]
    margin = round(px * (1 - CENTRE) / 2)
    inner = slice(margin, px - margin)
    middle = np.ascontiguousarray(white_balanced(crops)[:, inner, inner])
    lab = cv2.cvtColor(middle.reshape(-1, middle.shape[2], 3), cv2.COLOR_BGR2LAB)
    lab = lab.reshape(n, -1, 3).astype(np.float32)
    lightness, a, b = lab[..., 0], lab[..., 1] - 128.0, lab[..., 2] - 128.0
    chromatic = np.hypot(a, b) > CHROMA_MIN
    scale = AB_BINS / (2 * AB_RANGE)
    ia = np.clip(((a + AB_RANGE) * scale).astype(int), 0, AB_BINS - 1)
    ib = np.clip(((b + AB_RANGE) * scale).astype(int), 0, AB_BINS - 1)
    bins = np.where(chromatic, ia * AB_BINS + ib, AB_BINS * AB_BINS)  # grey: a spare bin
    bins += np.arange(n)[:, None] * (AB_BINS * AB_BINS + 1)
    counts = np.bincount(bins.ravel(), minlength=n * (AB_BINS * AB_BINS + 1))
    hist = counts.reshape(n, -1)[:, : AB_BINS * AB_BINS]
    pixels = lab.shape[1]
    grey = ~chromatic
    out = np.empty((n, FEATURES), np.float32)
    out[:, : AB_BINS * AB_BINS] = hist / pixels
    out[:, -3] = (grey & (lightness < 70)).sum(axis=1) / pixels
    out[:, -2] = (grey & (lightness >= 70) & (lightness < 170)).sum(axis=1) / pixels
    out[:, -1] = (grey & (lightness >= 170)).sum(axis=1) / pixels
    return np.sqrt(out)
