"""Batch augmentation for training crops (torch, on the CPU, whole batches at once).

Tiles may face any player and the camera may sit on any side, so every crop is
turned by a random multiple of 90° plus a small angle; light, white balance,
focus and sensor noise vary as they do between tables and webcams; a tenth of
the crops lose their colours so the network also learns suit *shapes* (an unseen
tile set may colour its suits differently): ``colour="swap"`` swaps their colour
channels (the enrolment base's recipe), ``colour="grey"`` turns them grey (the
reader's: the swap makes false pairs, a navy club from a green one; see
models/README.md, "Session 13")::

    >>> import torch
    >>> x = torch.zeros(4, 56, 56, 3)
    >>> augment(x, torch.Generator().manual_seed(0)).shape
    torch.Size([4, 56, 56, 3])
    >>> augment(x, torch.Generator().manual_seed(0), out_px=40).shape
    torch.Size([4, 40, 40, 3])
"""

from __future__ import annotations

import math
from typing import Literal

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
    if colour not in COLOUR_AUGMENTS:
        raise ValueError(f"colour must be one of {COLOUR_AUGMENTS}, not {colour!r}")
    n = x.shape[0]
    img = x.permute(0, 3, 1, 2)  # NCHW for the geometric ops
    # Geometry: quarter turn + small angle + slight scale and shift, one resample.
    quarter = torch.randint(0, 4, (n,), generator=gen).float() * (math.pi / 2)
    angle = quarter + _rand(n, -4, 4, gen) * (math.pi / 180) * strength
    scale = _rand(n, 0.97, 1.03, gen) ** strength
    shift = _rand(2 * n, -0.03, 0.03, gen).view(n, 2) * strength
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack(
        [torch.stack([cos, -sin, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)], 1
    )
    size = list(img.shape) if out_px is None else [n, img.shape[1], out_px, out_px]
    grid = F.affine_grid(theta, size, align_corners=False)
    img = F.grid_sample(img, grid, mode="bilinear", padding_mode="border", align_corners=False)
    # Focus: a light blur on some crops. The simulator already blurs; more than
    # this makes small corner digits (5/6, 3/9) unreadable, i.e. label noise.
    sigma = _rand(n, 0.3, 0.7, gen) * (torch.rand(n, generator=gen) < 0.15)
    blurred = sigma > 0  # only those (the others would get an identity kernel)
    if blurred.any():
        img = img.clone()
        img[blurred] = _blur(img[blurred], sigma[blurred])
    # Light: brightness, contrast, white balance, gamma.
    bright = _rand(n, 0.65, 1.35, gen).view(n, 1, 1, 1)
    balance = _rand(3 * n, 0.85, 1.15, gen).view(n, 3, 1, 1)
    contrast = _rand(n, 0.7, 1.3, gen).view(n, 1, 1, 1)
    mean = img.mean(dim=(1, 2, 3), keepdim=True)
    img = (img - mean) * contrast + mean
    img = img * bright * balance
    gamma = _rand(n, 0.8, 1.25, gen).view(n, 1, 1, 1)
    img = 255.0 * (img.clamp(0, 255) / 255.0) ** gamma
    # Some crops lose their colours: suit shape must count, not only colour.
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
    # Sensor noise.
    noise = _rand(n, 0, 3, gen).view(n, 1, 1, 1)
    img = img + noise * torch.randn(img.shape, generator=gen)
    return img.clamp(0, 255).permute(0, 2, 3, 1).contiguous()


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
