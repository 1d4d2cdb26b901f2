"""Procedural textures for the board and the table: wood, cloth, paper, marble.

Everything is drawn from an rng, so a style's look is reproducible::

    >>> import numpy as np
    >>> tex = texture("wood", (120, 90, 60), (90, 60, 40), (64, 48), np.random.default_rng(0))
    >>> tex.shape, tex.dtype.name
    ((48, 64, 3), 'uint8')
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synth.styles import BGR


def smooth_noise(shape: tuple[int, int], scale: float, rng: np.random.Generator) -> np.ndarray:
    """Noise with features about ``scale`` px across, float32 in roughly -1..1."""
    h, w = shape
    small = rng.standard_normal((max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)))
    big = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    return big / max(1e-6, float(np.abs(big).max()))


def texture(
    kind: str, colour: BGR, colour2: BGR, size: tuple[int, int], rng: np.random.Generator
) -> np.ndarray:
    """A ``size`` = (width, height) BGR uint8 texture of ``kind`` between two colours."""
    w, h = size
    c1 = np.array(colour, np.float32)
    c2 = np.array(colour2, np.float32)
    if kind == "wood":
        # Grain: stretched noise warped by low-frequency noise, then planks.
        y = np.arange(h, dtype=np.float32)[:, None]
        warp = smooth_noise((h, w), max(w, h) / 3, rng) * 25
        fine = smooth_noise((h, w), 3, rng)
        stretched = cv2.resize(
            rng.standard_normal((max(2, h // 3), 6)).astype(np.float32), (w, h), cv2.INTER_CUBIC
        )
        grain = 0.5 + 0.5 * np.sin((y + warp) * rng.uniform(0.15, 0.35) + stretched * 2)
        t = 0.65 * grain + 0.15 * fine + 0.2 * stretched / max(1e-6, float(np.abs(stretched).max()))
        plank = max(20, int(rng.uniform(0.12, 0.3) * h))
        seams = (np.arange(h) % plank) < 2
        t[seams] = -0.8
        if rng.random() < 0.5:
            t = t.T.copy() if h == w else cv2.resize(t.T.copy(), (w, h))
    elif kind == "cloth":
        fine = rng.standard_normal((h, w)).astype(np.float32) * 0.35
        weave = (
            0.25
            * np.sin(np.arange(w, dtype=np.float32)[None, :] * 2.2)
            * np.sin(np.arange(h, dtype=np.float32)[:, None] * 2.2)
        )
        t = 0.5 + fine + weave + 0.3 * smooth_noise((h, w), max(w, h) / 4, rng)
    elif kind == "marble":
        veins = np.abs(np.sin(smooth_noise((h, w), max(w, h) / 5, rng) * 6))
        t = 0.2 + 0.8 * veins**0.3 + 0.1 * smooth_noise((h, w), 4, rng)
    elif kind == "paper":
        t = 0.5 + 0.15 * rng.standard_normal((h, w)).astype(np.float32)
        t += 0.2 * smooth_noise((h, w), max(w, h) / 6, rng)
    elif kind == "linen":
        rows = rng.standard_normal((h, 1)).astype(np.float32)
        cols = rng.standard_normal((1, w)).astype(np.float32)
        t = 0.5 + 0.2 * rows + 0.2 * cols + 0.1 * rng.standard_normal((h, w)).astype(np.float32)
    else:  # plain: a faint, large-scale blotchiness
        t = 0.5 + 0.25 * smooth_noise((h, w), max(w, h) / 3, rng)
    t = np.clip(t, 0, 1)[..., None]
    if kind in ("paper", "linen", "plain"):
        # Board surfaces: colour2 is only a hint, keep close to the main colour.
        c2 = c1 * 0.85 + c2 * 0.15
    out = c2 + (c1 - c2) * t
    return np.clip(out, 0, 255).astype(np.uint8)
