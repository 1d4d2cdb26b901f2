"""Take a round smear out of a steady view's crops taken together.

A camera that smears every frame (a wobbly mount, a table bumped all game long) drags
each frame's picture a few pixels in its own direction. A steady view's crops averaged
over its frames (:func:`vision.burst.averaged`) then hold those streaks laid over
one another: a round blur whose size is the smear's length, with far less noise than
any one frame. A round blur of known size can be undone (a Wiener filter), and the
averaging is what makes that stable. The length is not known, so the live pipeline
tries a few (:data:`SMEAR_PX`) on the squares its look left in doubt and keeps the one
that reads most of them (models/HISTORY.md, "Session 32"); it does the same, with shorter
lengths, on the frames merged by burst accumulation (:mod:`vision.burst`, "Session 33").

    >>> psf = round_blur(6.0)
    >>> psf.shape, round(float(psf.sum()), 6)
    ((9, 9), 1.0)
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.fft

SMEAR_PX = (3.0, 4.5, 6.0, 7.5)
"""Smear lengths tried, in the frame's pixels (the simulator's cameras smear 3-7 px)."""

LEFT_SMEAR_PX = (1.5, 2.5, 3.5)
"""Round smears tried on a burst's accumulated picture (:func:`vision.burst.accumulated`),
in the frame's pixels: it keeps the least smeared frame per detail, but not unsmeared."""

NOISE_TO_SIGNAL = 0.02
"""The Wiener filter's noise-to-signal ratio: averaged crops are quiet, but not clean."""

_MARGIN = 16
"""Pixels of mirrored border around a crop while it is filtered, against wrap-around."""


@functools.lru_cache(maxsize=64)
def round_blur(length: float) -> np.ndarray:
    """The blur of streaks ``length`` px long in every direction laid over one another,
    centred, summing to 1 (float64, odd size)."""
    size = int(np.ceil(length)) + 2 | 1
    centre = (size - 1) / 2
    kernel = np.zeros((size, size))
    steps = np.linspace(-length / 2, length / 2, 64)
    for angle in np.radians(np.arange(0.0, 180.0, 3.0)):
        xs, ys = centre + steps * np.cos(angle), centre + steps * np.sin(angle)
        x0, y0 = np.floor(xs).astype(int), np.floor(ys).astype(int)
        fx, fy = xs - x0, ys - y0
        # Each point of the streak spread over its four nearest pixels.
        for dx, dy, weight in (
            (0, 0, (1 - fx) * (1 - fy)),
            (1, 0, fx * (1 - fy)),
            (0, 1, (1 - fx) * fy),
            (1, 1, fx * fy),
        ):
            np.add.at(kernel, (y0 + dy, x0 + dx), weight)
    return kernel / kernel.sum()


@functools.lru_cache(maxsize=64)
def _wiener(length: float, shape: tuple[int, int], nsr: float) -> np.ndarray:
    psf = round_blur(length)
    padded = np.zeros(shape)
    h, w = psf.shape
    padded[:h, :w] = psf
    transfer = scipy.fft.rfft2(np.roll(padded, (-(h // 2), -(w // 2)), axis=(0, 1)))
    return np.conj(transfer) / (np.abs(transfer) ** 2 + nsr)


def unsmeared(crops: np.ndarray, length: float, nsr: float = NOISE_TO_SIGNAL) -> np.ndarray:
    """``crops`` (N x P x P x 3, uint8) with a round blur of ``length`` crop pixels
    taken out.

    >>> import cv2
    >>> crops = np.zeros((1, 32, 32, 3), np.uint8); crops[0, 12:20, 12:20] = 200
    >>> blurred = cv2.filter2D(crops[0], -1, round_blur(5.0).astype(np.float32))[None]
    >>> sharp = unsmeared(blurred, 5.0)
    >>> bool(np.abs(sharp.astype(int) - crops).mean() < np.abs(blurred.astype(int) - crops).mean())
    True
    """
    if len(crops) == 0:
        return crops.copy()
    m = _MARGIN
    n, height, width, channels = crops.shape
    # One filter for every crop and channel: the channels side by side in one batch.
    planes = np.moveaxis(crops, -1, 1).reshape(n * channels, height, width)
    padded = np.pad(planes.astype(np.float64), ((0, 0), (m, m), (m, m)), mode="reflect")
    spectrum = scipy.fft.rfft2(padded) * _wiener(length, padded.shape[1:], nsr)
    sharp = scipy.fft.irfft2(spectrum, s=padded.shape[1:])[:, m : m + height, m : m + width]
    out = np.clip(np.rint(sharp), 0, 255).astype(np.uint8)
    return np.moveaxis(out.reshape(n, channels, height, width), 1, -1)
