"""What a cheap webcam does to a picture: uneven light, shadows, glare, noise, blur, JPEG.

A :class:`PhotoEffects` is drawn once per scene; :func:`light_field` turns it into
per-pixel gain and glare images (cached), so each frame pays only a multiply, an
add and the noise::

    >>> import numpy as np
    >>> effects = sample_photo_effects(np.random.default_rng(0))
    >>> image = np.full((72, 128, 3), 128, np.uint8)
    >>> apply_photo_effects(image, effects, np.random.default_rng(1)).shape
    (72, 128, 3)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

from vision.synth.textures import smooth_noise

GAIN_ONE = 128  # a gain image stores gain * 128 in uint8


@dataclass(frozen=True)
class PhotoEffects:
    """Photometric look of one scene. Positions are fractions of the image size."""

    seed: int  # for the smooth light variations
    brightness: float  # overall gain
    colour_gain: tuple[float, float, float]  # white balance (B, G, R)
    gradient: tuple[float, float, float]  # (dx, dy, strength): light falls off across the frame
    vignette: float
    shadow: tuple[float, float, float, float] | None  # (x, y, angle, darkness): a cast shadow
    glare: tuple[float, float, float, float] | None  # (x, y, radius, strength)
    noise_sigma: float
    blur_sigma: float
    motion_blur_px: int
    jpeg_quality: int | None


def sample_photo_effects(rng: np.random.Generator, *, strength: float = 1.0) -> PhotoEffects:
    """A random, plausible webcam look; ``strength`` 0 gives an almost clean image."""
    s = strength
    angle = rng.uniform(0, 2 * np.pi)
    return PhotoEffects(
        seed=int(rng.integers(1 << 30)),
        brightness=float(1 + s * rng.uniform(-0.3, 0.15)),
        colour_gain=tuple(float(1 + s * g) for g in rng.uniform(-0.1, 0.1, 3)),  # type: ignore[arg-type]
        gradient=(float(np.cos(angle)), float(np.sin(angle)), float(s * rng.uniform(0, 0.35))),
        vignette=float(s * rng.uniform(0, 0.35)),
        shadow=(
            (
                float(rng.uniform(0.1, 0.9)),
                float(rng.uniform(0.1, 0.9)),
                float(rng.uniform(0, np.pi)),
                float(s * rng.uniform(0.15, 0.45)),
            )
            if rng.random() < 0.4 * s
            else None
        ),
        glare=(
            (
                float(rng.uniform(0.2, 0.8)),
                float(rng.uniform(0.2, 0.8)),
                float(rng.uniform(0.04, 0.15)),
                float(s * rng.uniform(40, 140)),
            )
            if rng.random() < 0.35 * s
            else None
        ),
        noise_sigma=float(s * rng.uniform(1, 7)),
        blur_sigma=float(s * rng.uniform(0, 1.3)),
        motion_blur_px=int(rng.integers(3, 8)) if rng.random() < 0.1 * s else 0,
        jpeg_quality=int(rng.integers(55, 96)) if rng.random() < 0.8 * s else None,
    )


CLEAN = PhotoEffects(
    seed=0,
    brightness=1.0,
    colour_gain=(1.0, 1.0, 1.0),
    gradient=(1.0, 0.0, 0.0),
    vignette=0.0,
    shadow=None,
    glare=None,
    noise_sigma=0.0,
    blur_sigma=0.0,
    motion_blur_px=0,
    jpeg_quality=None,
)
"""No effects at all: the image is exactly the composited render."""


@functools.lru_cache(maxsize=8)
def light_field(effects: PhotoEffects, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(gain, glare) images for ``size`` = (width, height): gain is 128 x gain, uint8."""
    width, height = size
    # Light varies slowly: compute at 1/8 scale, then enlarge.
    w, h = max(2, width // 8), max(2, height // 8)
    rng = np.random.default_rng(effects.seed)
    xs = np.linspace(-1, 1, w, dtype=np.float32)[None, :]
    ys = np.linspace(-1, 1, h, dtype=np.float32)[:, None] * (height / width)
    dx, dy, strength = effects.gradient
    gain = 1 + strength * (dx * xs + dy * ys) / 2
    gain = gain - effects.vignette * (xs**2 + ys**2) / 2
    gain = gain + 0.06 * smooth_noise((h, w), max(w, h) / 3, rng)
    if effects.shadow is not None:
        sx, sy, angle, darkness = effects.shadow
        # A soft-edged half-plane through (sx, sy): the shadow of a person or a lamp arm.
        px, py = (xs + 1) / 2, (ys * width / height + 1) / 2
        side = (px - sx) * np.cos(angle) + (py - sy) * np.sin(angle)
        gain = gain * (1 - darkness / (1 + np.exp(-side * 25)))
    gain = np.clip(gain * effects.brightness, 0.05, 1.9)
    gain3 = gain[..., None] * np.array(effects.colour_gain, np.float32)
    gain_img = cv2.resize(np.clip(gain3 * GAIN_ONE, 0, 255), (width, height), cv2.INTER_LINEAR)
    glare = np.zeros((height, width, 3), np.uint8)
    if effects.glare is not None:
        gx, gy, radius, peak = effects.glare
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        dist2 = ((xx / w - gx) ** 2 + ((yy / h - gy) * height / width) ** 2) / radius**2
        spot = (peak * np.exp(-dist2)).astype(np.float32)
        glare = cv2.resize(np.repeat(spot[..., None], 3, axis=2), (width, height))
        glare = np.clip(glare, 0, 255).astype(np.uint8)
    gain_u8 = gain_img.astype(np.uint8)
    gain_u8.flags.writeable = False
    glare.flags.writeable = False
    return gain_u8, glare


# Room for every (resolution, sigma) pair a training run draws (2 x 7, ~140 MB): with 4,
# a third of the frames drew their noise image again, 18% of the rendering time.
@functools.lru_cache(maxsize=16)
def _noise_pattern(size: tuple[int, int], sigma_key: int) -> tuple[np.ndarray, np.ndarray]:
    """Positive and negative parts of a fixed Gaussian noise image, with spare margin."""
    width, height = size
    rng = np.random.default_rng(1234 + sigma_key)
    noise = rng.normal(0, sigma_key, (height + 64, width + 64, 3)).astype(np.float32)
    return np.clip(noise, 0, 255).astype(np.uint8), np.clip(-noise, 0, 255).astype(np.uint8)


def apply_photo_effects(
    image: np.ndarray, effects: PhotoEffects, rng: np.random.Generator, *, flicker: float = 1.0
) -> np.ndarray:
    """Light, glare, blur and noise on a BGR uint8 image (JPEG is separate: :func:`jpeg`)."""
    height, width = image.shape[:2]
    gain, glare = light_field(effects, (width, height))
    out = cv2.multiply(image, gain, scale=flicker / GAIN_ONE)
    if effects.glare is not None:
        out = cv2.add(out, glare)
    if effects.motion_blur_px > 1:
        k = effects.motion_blur_px
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rotation = cv2.getRotationMatrix2D(
            (k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1
        )
        kernel = cv2.warpAffine(kernel, rotation, (k, k))
        out = cv2.filter2D(out, -1, kernel / max(1e-6, kernel.sum()))
    if effects.blur_sigma > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), effects.blur_sigma)
    sigma_key = round(effects.noise_sigma)
    if sigma_key >= 1:
        # A fixed noise image at a random offset per frame: as good as fresh noise, far cheaper.
        positive, negative = _noise_pattern((width, height), sigma_key)
        ox, oy = (int(v) for v in rng.integers(0, 64, 2))
        out = cv2.add(out, positive[oy : oy + height, ox : ox + width])
        out = cv2.subtract(out, negative[oy : oy + height, ox : ox + width])
    return out


def jpeg(image: np.ndarray, quality: int | None) -> np.ndarray:
    """The image after a round trip through JPEG at ``quality`` (unchanged for None)."""
    if quality is None:
        return image
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        return image
    return cv2.imdecode(data, cv2.IMREAD_COLOR)
