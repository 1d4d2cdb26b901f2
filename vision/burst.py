"""One sharper picture of each square from a steady view's frames.

A camera that smears every frame (a wobbly mount, a table bumped all game long) drags
each frame's picture a few pixels in a direction of its own. A streak only blurs
detail running across it: the detail along it comes through sharp. So, frequency by
frequency, some frame of a burst holds that detail almost untouched, and it is the
frame where that frequency is strongest. Fourier burst accumulation (Delbracio and
Sapiro, "Burst deblurring", CVPR 2015) keeps, per frequency, mostly the strongest
frames: no blur has to be known or estimated. The frames must line up first, so each
one is shifted onto the last (:func:`registered`): the board is found anew in every
frame, and a smeared frame's corners are found a pixel or two off.

The live pipeline reads the squares a steady view leaves in doubt through this picture
(models/HISTORY.md, "Session 33").

    >>> rng = np.random.default_rng(0)
    >>> sharp = rng.integers(0, 256, (1, 48, 48, 3)).astype(np.uint8)
    >>> frames = [smeared(sharp, 7, angle) for angle in (0, 45, 90, 135)]
    >>> def error(crops):
    ...     return float(np.abs(crops.astype(int) - sharp)[:, 8:-8, 8:-8].mean())
    >>> error(accumulated(frames)) < min(error(f) for f in frames)
    True
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import cv2
import numpy as np
import scipy.fft

POWER = 11.0
"""How strongly the strongest frame wins a frequency (the paper's p; 0 is the average)."""

SMOOTHING = 2.0
"""Gaussian smoothing of the frames' spectra before they are weighed, in frequency bins:
one frame's noise must not win a frequency by chance."""

MAX_FRAMES = 15
"""Frames taken together at most (a second of a 15 fps camera): a faster camera's frames
are thinned, so that a steady view's look stays a fraction of a second."""

_MARGIN = 16
"""Pixels of mirrored border at least, around a crop while it is transformed, against
wrap-around."""


def smeared(crops: np.ndarray, length: int, angle: float) -> np.ndarray:
    """``crops`` (N x P x P x 3, uint8) smeared by a straight streak of ``length`` px at
    ``angle`` degrees: what a camera moving during the exposure does (for tests)."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    centre = (length / 2 - 0.5, length / 2 - 0.5)
    kernel = cv2.warpAffine(kernel, cv2.getRotationMatrix2D(centre, angle, 1), (length, length))
    kernel /= kernel.sum()
    return np.stack([cv2.filter2D(c, -1, kernel, borderType=cv2.BORDER_REFLECT) for c in crops])


def _mosaic(crops: np.ndarray) -> np.ndarray:
    """The crops' grey levels tiled in a near-square grid, each less its own mean: one
    picture to line up, as all squares of a frame are off by the same shift. (A grid,
    not a row: the phase correlation's window would leave a row's ends out.)"""
    grey = np.stack([cv2.cvtColor(c, cv2.COLOR_BGR2GRAY) for c in crops]).astype(np.float32)
    grey -= grey.mean(axis=(1, 2), keepdims=True)
    n, height, width = grey.shape
    columns = int(np.ceil(np.sqrt(n)))
    rows = -(-n // columns)
    grid = np.zeros((rows * columns, height, width), np.float32)
    grid[:n] = grey
    return (
        grid.reshape(rows, columns, height, width)
        .swapaxes(1, 2)
        .reshape(rows * height, columns * width)
    )


def _moved(crops: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """``crops`` moved by (dx, dy) crop pixels, their edges mirrored in."""
    shift = np.float32([[1, 0, dx], [0, 1, dy]])
    size = crops.shape[2], crops.shape[1]
    return np.stack([cv2.warpAffine(c, shift, size, borderMode=cv2.BORDER_REFLECT) for c in crops])


@functools.lru_cache(maxsize=8)
def _window(shape: tuple[int, int]) -> np.ndarray:
    return cv2.createHanningWindow(shape[::-1], cv2.CV_32F)


def shift_of(crops: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """How far (x, y, in crop pixels) ``crops`` lie from ``reference``, all squares
    together, by phase correlation. Its peak is placed a little short of a shift
    between two whole pixels, so the shift is measured again once the crops are moved
    back by the first estimate.

    >>> rng = np.random.default_rng(1)
    >>> noise = rng.integers(0, 256, (40, 40, 3)).astype(np.uint8)
    >>> a = cv2.GaussianBlur(noise, (0, 0), 2)[None]
    >>> b = np.roll(a, (1, 2), axis=(1, 2))  # 2 px right, 1 px down
    >>> [round(v) for v in shift_of(b, a)]
    [2, 1]
    """
    return _shift_from(_mosaic(reference), crops)


def _shift_from(reference: np.ndarray, crops: np.ndarray) -> tuple[float, float]:
    """:func:`shift_of`, against the reference's mosaic made once for all frames."""
    window = _window(reference.shape)
    (dx, dy), _ = cv2.phaseCorrelate(reference, _mosaic(crops), window)
    (rx, ry), _ = cv2.phaseCorrelate(reference, _mosaic(_moved(crops, -dx, -dy)), window)
    return dx + rx, dy + ry


def burst_of(frames: Sequence[np.ndarray], most: int = MAX_FRAMES) -> list[np.ndarray]:
    """At most ``most`` of ``frames``, evenly spread, the last among them.

    >>> [int(f[0]) for f in burst_of([np.array([i]) for i in range(30)], 4)]
    [0, 10, 19, 29]
    """
    if len(frames) <= most:
        return list(frames)
    return [frames[int(i)] for i in np.linspace(0, len(frames) - 1, most).round()]


def registered(frames: list[np.ndarray], only: list[int] | None = None) -> list[np.ndarray]:
    """Each frame's crops (N x P x P x 3, uint8) shifted onto the last frame's; of the
    squares ``only``, if given (the shift is still found from all of them)."""
    last = frames[-1]
    reference = _mosaic(last)
    out = []
    for crops in frames[:-1]:
        dx, dy = _shift_from(reference, crops)
        out.append(_moved(crops if only is None else crops[only], -dx, -dy))
    return [*out, last if only is None else last[only]]


def averaged(frames: list[np.ndarray]) -> np.ndarray:
    """The frames' crops (lined up) averaged pixel by pixel (rounded, ``uint8``): their
    noise averages out, and a camera that smears every frame a different way leaves a
    round blur (:func:`vision.deblur.unsmeared` takes it out) rather than one streak.

    >>> a, b = np.zeros((1, 2, 2, 3), np.uint8), np.full((1, 2, 2, 3), 255, np.uint8)
    >>> int(averaged([a, b, b])[0, 0, 0, 0])
    170
    """
    total = np.sum(frames, axis=0, dtype=np.float32)
    return np.rint(total / len(frames)).astype(np.uint8)


def accumulated(
    frames: list[np.ndarray], power: float = POWER, smoothing: float = SMOOTHING
) -> np.ndarray:
    """The frames' crops (each N x P x P x 3, uint8, lined up) merged by Fourier burst
    accumulation: per frequency, a weighted average of the frames, each weighed by
    its strength there to the ``power``."""
    stack = np.moveaxis(np.stack(frames), -1, 2).astype(np.float32)  # F x N x C x P x P
    height, width = stack.shape[-2:]
    # A power-of-two side at least _MARGIN px beyond the crop: fast to transform.
    side = 1 << int(np.ceil(np.log2(max(height, width) + 2 * _MARGIN)))
    top, left = (side - height) // 2, (side - width) // 2
    pads = ((0, 0), (0, 0), (0, 0), (top, side - height - top), (left, side - width - left))
    spectra = scipy.fft.rfft2(np.pad(stack, pads, mode="reflect"))
    strength = np.abs(spectra).mean(axis=2)  # F x N x side x side/2+1, float32
    if smoothing:
        flat = strength.reshape(-1, *strength.shape[2:])
        strength = np.stack([cv2.GaussianBlur(s, (0, 0), smoothing) for s in flat]).reshape(
            strength.shape
        )
    # Scaled by the strongest frame first, so that the power cannot overflow; where no
    # frame has anything (a flat crop), all weigh the same.
    strength += 1e-6
    relative = strength / strength.max(axis=0, keepdims=True)
    weights = relative**power
    weights /= weights.sum(axis=0, keepdims=True)
    merged = np.einsum("fnchw,fnhw->nchw", spectra, weights)
    picture = scipy.fft.irfft2(merged, s=(side, side))[..., top : top + height, left : left + width]
    return np.moveaxis(np.clip(np.rint(picture), 0, 255).astype(np.uint8), 1, -1)
