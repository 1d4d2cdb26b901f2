"""Batch augmentation for training crops (torch, on the CPU, whole batches at once).

Tiles may face any player and the camera may sit on any side, so every crop is
turned by a random multiple of 90° plus a small angle; light, white balance,
focus and sensor noise vary as they do between tables and webcams; a tenth of
the crops lose their colours so the network also learns suit *shapes* (an unseen
tile set may colour its suits differently): ``colour="swap"`` swaps their colour
channels (the enrolment base's recipe), ``colour="grey"`` turns them grey (the
reader's: the swap makes false pairs, a navy club from a green one; see
models/HISTORY.md, "Session 13")::

    >>> import torch
    >>> x = torch.zeros(4, 56, 56, 3)
    >>> augment(x, torch.Generator().manual_seed(0)).shape
    torch.Size([4, 56, 56, 3])
    >>> augment(x, torch.Generator().manual_seed(0), out_px=40).shape
    torch.Size([4, 40, 40, 3])
"""

from __future__ import annotations

import functools
import math
from typing import Literal

import cv2
import numpy as np
import torch
import torch.nn.functional as F


def _rand(n: int, lo: float, hi: float, gen: torch.Generator) -> torch.Tensor:
    return lo + (hi - lo) * torch.rand(n, generator=gen)


ColourAugment = Literal["swap", "grey"]
COLOUR_AUGMENTS: tuple[ColourAugment, ...] = ("swap", "grey")
# Luma weights in the crops' BGR order.
_LUMA_BGR = (0.114, 0.587, 0.299)


def augment(
    x: torch.Tensor,
    gen: torch.Generator,
    strength: float = 1.0,
    colour: ColourAugment = "swap",
    out_px: int | None = None,
) -> torch.Tensor:
    """Augmented copy of ``x`` (N x P x P x 3 float, 0..255); ``colour`` says how a
    tenth of the crops lose their colours (``"swap"`` or ``"grey"``). ``out_px``: the
    crops come out resampled to that size (the same resample that turns them)."""
    _check_colour(colour)
    n = x.shape[0]
    img = _turn(x.permute(0, 3, 1, 2), gen, strength, out_px)  # NCHW for the geometry
    img = _focus(img, gen)
    bright, balance, contrast = _light_factors(n, gen)
    mean = img.mean(dim=(1, 2, 3), keepdim=True)
    img = (img - mean) * contrast.view(n, 1, 1, 1) + mean
    img = img * bright.view(n, 1, 1, 1) * balance.view(n, 3, 1, 1)
    gamma = _rand(n, 0.8, 1.25, gen).view(n, 1, 1, 1)
    img = 255.0 * (img.clamp(0, 255) / 255.0) ** gamma
    img = _lose_colour(img, gen, colour)
    noise = _rand(n, 0, 3, gen).view(n, 1, 1, 1)
    img = img + noise * torch.randn(img.shape, generator=gen)
    return img.clamp(0, 255).permute(0, 2, 3, 1).contiguous()


class NoiseBank:
    """Sensor noise drawn once: ``size`` crops of unit normal noise (N x P x P x 3),
    one picked at random per augmented crop. Drawing 2.7 million fresh normal numbers
    a batch was a sixth of the augmentation's time (models/HISTORY.md, "Session 25").

    >>> bank = NoiseBank(8, 56, torch.Generator().manual_seed(0))
    >>> tuple(bank.pick(3, 40, torch.Generator().manual_seed(1)).shape)
    (3, 40, 40, 3)
    """

    def __init__(self, size: int, px: int, gen: torch.Generator) -> None:
        self.noise = torch.randn((size, px, px, 3), generator=gen)

    def pick(self, n: int, px: int, gen: torch.Generator) -> torch.Tensor:
        """``n`` of the bank's noise crops (a new tensor), cut to ``px`` (at most the
        bank's)."""
        which = torch.randint(0, len(self.noise), (n,), generator=gen)
        return self.noise[which, :px, :px].contiguous()


def augment_levels(
    x: torch.Tensor,
    gen: torch.Generator,
    noise: NoiseBank,
    colour: ColourAugment = "swap",
    out_px: int | None = None,
    motion_blur: float = 0.0,
) -> torch.Tensor:
    """The changes of :func:`augment`, with the same ranges, made on the 8-bit crops
    ``x`` (N x P x P x 3 uint8) by OpenCV, a crop at a time: the light (contrast about
    the crop's mean, brightness, white balance, gamma) as one 256-entry lookup table
    per channel, the turn as one affine warp, the focus as a Gaussian blur; then the
    sensor noise from ``noise`` on the float crops. A step's augmentation takes a
    fraction of the float form's passes over whole batches. Returns N x P x P x 3
    float, 0..255 (``out_px`` as in :func:`augment`). ``motion_blur``: the share of the
    crops also smeared as a moving camera smears them (:func:`motion_kernel`); none
    in the shipped recipe, whose draws this leaves as they were.

    >>> bank = NoiseBank(4, 56, torch.Generator().manual_seed(0))
    >>> x = torch.zeros(4, 56, 56, 3, dtype=torch.uint8)
    >>> augment_levels(x, torch.Generator().manual_seed(0), bank, out_px=40).shape
    torch.Size([4, 40, 40, 3])
    """
    _check_colour(colour)
    n, px = x.shape[0], x.shape[1]
    out_px = px if out_px is None else out_px
    levels = x.numpy()
    tables = _light_tables(levels, gen)
    warps = turn_warps(n, px, out_px, gen)
    sigma = (_rand(n, 0.3, 0.7, gen) * (torch.rand(n, generator=gen) < 0.15)).tolist()
    smears = _motion_draws(n, gen, motion_blur) if motion_blur > 0 else [None] * n
    out = np.empty((n, out_px, out_px, 3), np.uint8)
    for i in range(n):
        lit = cv2.LUT(levels[i], tables[i])
        cv2.warpAffine(
            lit,
            warps[i],
            (out_px, out_px),
            dst=out[i],
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
        if sigma[i] > 0:
            cv2.GaussianBlur(out[i], (5, 5), sigma[i], dst=out[i], borderType=cv2.BORDER_REPLICATE)
        if smears[i] is not None:
            kernel = motion_kernel(*smears[i])
            cv2.filter2D(out[i], -1, kernel, dst=out[i], borderType=cv2.BORDER_REPLICATE)
    img = _lose_colour(torch.from_numpy(out).permute(0, 3, 1, 2).float(), gen, colour)
    level = _rand(n, 0, 3, gen).view(n, 1, 1, 1)
    crops = noise.pick(n, out_px, gen).mul_(level).add_(img.permute(0, 2, 3, 1))
    return crops.clamp_(0, 255)


MOTION_PX = (3.0, 10.0)
"""Lengths of the smear in crop pixels: the simulator's 3-7 px of motion in the frame
(vision.synth.photo) over the boards it draws (300-800 px wide), at 84-px crops."""


def _motion_draws(n: int, gen: torch.Generator, share: float) -> list[tuple[float, float] | None]:
    """(length, angle) of the smear of each crop that gets one, else None."""
    smeared = (torch.rand(n, generator=gen) < share).tolist()
    lengths = _rand(n, *MOTION_PX, gen).tolist()
    angles = _rand(n, 0.0, math.pi, gen).tolist()
    return [(lengths[i], angles[i]) if smeared[i] else None for i in range(n)]


# Not the simulator's kernel (vision.synth.photo): that one is inline, takes whole
# pixels only, and its file is part of the rendered crops' cache key, so sharing it
# would render every cache again.
@functools.lru_cache(maxsize=4096)
def _motion_kernel_cached(length: float, angle: float) -> np.ndarray:
    size = 2 * math.ceil(length / 2) + 3
    kernel = np.zeros((size, size), np.float32)
    centre = size // 2
    # Bilinear splats along the segment: a smear of any length and angle, not only
    # whole pixels along the axes.
    for t in np.linspace(-(length - 1) / 2, (length - 1) / 2, max(2, int(length * 8))):
        x, y = centre + t * math.cos(angle), centre + t * math.sin(angle)
        x0, y0 = math.floor(x), math.floor(y)
        fx, fy = x - x0, y - y0
        kernel[y0, x0] += (1 - fx) * (1 - fy)
        kernel[y0, x0 + 1] += fx * (1 - fy)
        kernel[y0 + 1, x0] += (1 - fx) * fy
        kernel[y0 + 1, x0 + 1] += fx * fy
    kernel /= kernel.sum()
    kernel.flags.writeable = False
    return kernel


def motion_kernel(length: float, angle: float) -> np.ndarray:
    """The smear of a camera moving ``length`` px at ``angle`` (radians) during the
    exposure: a normalised line of that length through the kernel's centre.

    >>> k = motion_kernel(3.0, 0.0)
    >>> round(float(k.sum()), 6), k.shape, round(float(k[k.shape[0] // 2].sum()), 6)
    (1.0, (7, 7), 1.0)
    """
    # Quantised so that a run's few thousand distinct kernels are each built once.
    return _motion_kernel_cached(round(length * 4) / 4, round(angle * 24 / math.pi) * math.pi / 24)


def _light_tables(levels: np.ndarray, gen: torch.Generator) -> np.ndarray:
    """One lookup table per crop and channel (N x 1 x 256 x 3 uint8, as ``cv2.LUT``
    takes them) for the light of :func:`augment`, about each crop's mean level."""
    n = len(levels)
    mean = torch.from_numpy(levels.reshape(n, -1).mean(axis=1, dtype=np.float64)).float()
    bright, balance, contrast = _light_factors(n, gen)
    gamma = _rand(n, 0.8, 1.25, gen).view(n, 1, 1)
    v = torch.arange(256, dtype=torch.float32).view(1, 256, 1)
    mean = mean.view(n, 1, 1)
    light = ((v - mean) * contrast.view(n, 1, 1) + mean) * (
        bright.view(n, 1, 1) * balance.view(n, 1, 3)
    )
    light = 255.0 * (light.clamp(0, 255) / 255.0) ** gamma
    return light.round().to(torch.uint8).view(n, 1, 256, 3).numpy()


def turn_warps(
    n: int, px: int, out_px: int, gen: torch.Generator, strength: float = 1.0
) -> np.ndarray:
    """The turns of :func:`augment` (quarter turn, small angle, scale, shift) as N
    matrices taking an output pixel to where it is sampled in the input, for
    ``cv2.warpAffine`` with ``WARP_INVERSE_MAP``: ``grid_sample``'s normalised
    coordinates (``align_corners=False``) written in pixels."""
    theta = _turn_theta(n, gen, strength).numpy().astype(np.float64)
    a, b, c = theta[:, 0, 0], theta[:, 0, 1], theta[:, 0, 2]
    d, e, f = theta[:, 1, 0], theta[:, 1, 1], theta[:, 1, 2]
    ratio, edge = px / out_px, 1.0 / out_px - 1.0
    warps = np.empty((n, 2, 3))
    warps[:, 0] = np.stack([a * ratio, b * ratio, px / 2 * ((a + b) * edge + c) + (px - 1) / 2], 1)
    warps[:, 1] = np.stack([d * ratio, e * ratio, px / 2 * ((d + e) * edge + f) + (px - 1) / 2], 1)
    return warps


def _check_colour(colour: str) -> None:
    if colour not in COLOUR_AUGMENTS:
        raise ValueError(f"colour must be one of {COLOUR_AUGMENTS}, not {colour!r}")


def _turn_theta(n: int, gen: torch.Generator, strength: float) -> torch.Tensor:
    """Quarter turn + small angle + slight scale and shift: N x 2 x 3 affine matrices in
    ``affine_grid``'s normalised coordinates."""
    quarter = torch.randint(0, 4, (n,), generator=gen).float() * (math.pi / 2)
    angle = quarter + _rand(n, -4, 4, gen) * (math.pi / 180) * strength
    scale = _rand(n, 0.97, 1.03, gen) ** strength
    shift = _rand(2 * n, -0.03, 0.03, gen).view(n, 2) * strength
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    return torch.stack(
        [torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1
    )


def _turn(
    img: torch.Tensor, gen: torch.Generator, strength: float, out_px: int | None
) -> torch.Tensor:
    """The turn of :func:`_turn_theta`, one bilinear resample (NCHW)."""
    n = img.shape[0]
    theta = _turn_theta(n, gen, strength)
    size = list(img.shape) if out_px is None else [n, img.shape[1], out_px, out_px]
    grid = F.affine_grid(theta, size, align_corners=False)
    return F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=False)


def _focus(img: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """A light blur on some crops. The simulator already blurs; more than this makes
    small corner digits (5/6, 3/9) unreadable, i.e. label noise."""
    n = img.shape[0]
    sigma = _rand(n, 0.3, 0.7, gen) * (torch.rand(n, generator=gen) < 0.15)
    blurred = sigma > 0  # only those (the others would get an identity kernel)
    if blurred.any():
        img = img.clone()
        img[blurred] = _blur(img[blurred], sigma[blurred])
    return img


def _light_factors(n: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Brightness (N), white balance (N x 3) and contrast (N) of each crop."""
    bright = _rand(n, 0.65, 1.35, gen)
    balance = _rand(3 * n, 0.85, 1.15, gen).view(n, 3)
    contrast = _rand(n, 0.7, 1.3, gen)
    return bright, balance, contrast


def _lose_colour(img: torch.Tensor, gen: torch.Generator, colour: ColourAugment) -> torch.Tensor:
    """Some crops lose their colours: suit shape must count, not only colour."""
    n = img.shape[0]
    if colour == "grey":
        grey = torch.rand(n, generator=gen) < 0.1
        if grey.any():
            luma = torch.tensor(_LUMA_BGR).view(1, 3, 1, 1)
            img[grey] = (img[grey] * luma).sum(1, keepdim=True).expand(-1, 3, -1, -1)
    else:
        swap = torch.rand(n, generator=gen) < 0.1
        if swap.any():
            perm = torch.randperm(3, generator=gen)
            if perm.tolist() == [0, 1, 2]:
                perm = torch.tensor([2, 0, 1])
            img[swap] = img[swap][:, perm]
    return img


def _blur(img: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """Per-crop Gaussian blur (5x5) with standard deviation ``sigma`` (0 = none)."""
    n, c, _, _ = img.shape
    r = torch.arange(-2, 3, dtype=img.dtype)
    s = sigma.clamp(min=1e-3).view(n, 1)
    k1 = torch.exp(-(r.view(1, 5) ** 2) / (2 * s**2))
    k1 = k1 / k1.sum(1, keepdim=True)
    k2 = (k1.view(n, 5, 1) * k1.view(n, 1, 5)).repeat_interleave(c, 0).unsqueeze(1)
    out = F.conv2d(
        F.pad(img.reshape(1, n * c, *img.shape[2:]), (2, 2, 2, 2), mode="replicate"),
        k2,
        groups=n * c,
    )
    return out.view_as(img)
