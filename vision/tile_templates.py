"""Enrolled tiles as small grey pictures, matched against a square at each quarter turn.

The networks' pooled features hardly change when a tile turns, and they average away
where on the tile a mark sits. An enrolled set's own photos keep both: a square
matched against the photos' tiles, at each quarter turn and a few pixels of shift,
says which of them it looks like. Two checks use these matches: 6 against 9
(:mod:`vision.six_nine`) and every value of a doubtful square
(:mod:`vision.value_check`).

A template is what changes within a few pixels (strokes and edges: grey less its
blur), at half the crop's resolution; only its centre is matched, since a tile lies a
few pixels off its square's centre and its border says nothing of its value::

    >>> rng = np.random.default_rng(0)
    >>> art = np.stack([template_image(rng.uniform(0, 255, (84, 84, 3))) for _ in range(3)])
    >>> bank = TemplateBank.of(art, size=18)
    >>> square = template_image(np.rot90(rng.uniform(0, 255, (84, 84, 3))))
    >>> scores = bank.best_scores(np.stack([np.rot90(art[1]), square]))
    >>> scores.shape, int(scores[0].argmax()), bool(scores[0, 1] > 0.99 > scores[1].max())
    ((2, 3), 1, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from threadpoolctl import ThreadpoolController

REDUCE = 2
"""Templates and squares are matched at 1 / REDUCE of the crop's resolution: at 2 the
6-or-9 check took 0.8 ms a square instead of 2.0 at full resolution (session 19, one
template at a time), for a few squares fewer answered on the tuning sets (3.74%
against 3.60% "?" or wrong in one pass; models/HISTORY.md, "Session 19")."""
SEARCH = 12
"""How far (px of an 84-px crop) a template may be shifted from the crop's centre: a tile
lies off its square's centre by a few pixels, not by half a square."""
BLUR_SIGMA = 6.0
"""The templates keep what changes within a few pixels (strokes, edges), not the tile's
colour blocks and shading, which say nothing of its value."""


def grey_image(crop: np.ndarray) -> np.ndarray:
    """A crop (H x W x 3 BGR, or already grey, 0..255) in grey uint8, as enrolment keeps
    its templates."""
    image = np.clip(crop, 0, 255).astype(np.uint8)
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def template_image(crop: np.ndarray) -> np.ndarray:
    """A crop (H x W x 3 BGR, or grey, 0..255) as the templates see it: grey, at
    1 / REDUCE of its resolution, less its blur.

    >>> bool(template_image(np.full((84, 84, 3), 200.0)).std() < 1e-3)
    True
    """
    grey = grey_image(crop).astype(np.float32)
    if REDUCE > 1:
        px = len(grey) // REDUCE
        grey = cv2.resize(grey, (px, px), interpolation=cv2.INTER_AREA)
    return grey - cv2.GaussianBlur(grey, (0, 0), BLUR_SIGMA * len(grey) / 84)


def template_images(crops) -> np.ndarray:
    """Crops (any sequence) as :func:`template_image` s, stacked (0 x 1 x 1 if none)."""
    images = [template_image(c) for c in crops]
    return np.stack(images) if images else np.zeros((0, 1, 1), np.float32)


def log_normal(x: np.ndarray, mean: float, sd: float) -> np.ndarray:
    """The log density of a normal law at ``x``, less the constant half log 2 pi."""
    return -0.5 * ((x - mean) / sd) ** 2 - np.log(sd)


def spread(x: np.ndarray, floor: float) -> tuple[float, float]:
    """Mean and spread of ``x``, the spread widened by ``floor`` (added squared)."""
    return float(np.mean(x)), float(np.hypot(np.std(x), floor))


@cache
def _blas() -> ThreadpoolController:
    """numpy's BLAS, found once (a few ms): :meth:`TemplateBank.best_scores` keeps it to
    one thread. On a doubtful square or a few a second thread saved 0.1 ms of 0.8
    and doubled the CPU used, which the camera and the dashboard need on a 2-core
    machine (session 20)."""
    return ThreadpoolController()


def _unit_rows(rows: np.ndarray) -> np.ndarray:
    """Rows less their mean, scaled to length 1: their dot products are then the
    normalised correlation (cv2.TM_CCOEFF_NORMED)."""
    centred = rows - rows.mean(axis=-1, keepdims=True)
    return centred / (np.linalg.norm(centred, axis=-1, keepdims=True) + 1e-6)


def _window_sums(regions: np.ndarray, size: int) -> np.ndarray:
    """N x P x P: the sums of every ``size`` x ``size`` window of each region (N x W x W)."""
    padded = np.pad(regions.cumsum(axis=1).cumsum(axis=2), ((0, 0), (1, 0), (1, 0)))
    return (
        padded[:, size:, size:]
        - padded[:, :-size, size:]
        - padded[:, size:, :-size]
        + padded[:, :-size, :-size]
    )


@dataclass(frozen=True, eq=False)
class TemplateBank:
    """The centres (``size`` px) of some :func:`template_image` s at their four quarter
    turns, as rows ready to correlate (4 rows per template, turn by turn)."""

    rows: np.ndarray
    size: int

    @classmethod
    def of(cls, templates: np.ndarray, size: int) -> TemplateBank:
        """The bank of ``templates`` (N x px x px, :func:`template_image` s)."""
        offset = (templates.shape[1] - size) // 2
        centres = templates[:, offset : offset + size, offset : offset + size]
        turned = np.stack([np.rot90(centres, k, axes=(1, 2)) for k in range(4)], axis=1)
        return cls(_unit_rows(turned.reshape(-1, size * size).astype(np.float32)), size)

    @classmethod
    def of_crops(cls, crops, size: int) -> TemplateBank:
        """The bank of crops (BGR or grey, 0..255) as :func:`template_image` s."""
        return cls.of(template_images(crops), size)

    def __len__(self) -> int:
        return len(self.rows) // 4

    def best_scores(self, images: np.ndarray, wanted: np.ndarray | None = None) -> np.ndarray:
        """N x len(self): for each image (:func:`template_image`) and template, the best
        normalised correlation of the template's turned centres with the image's
        centre shifted by up to SEARCH px. ``wanted`` (N x len(self), bool) limits
        each image to some templates (the others are NaN); images wanting as many
        templates share one stacked matrix product."""
        n = len(images)
        wanted = np.ones((n, len(self)), bool) if wanted is None else np.asarray(wanted, bool)
        out = np.full((n, len(self)), np.nan, np.float32)
        if not n:
            return out
        px = images.shape[1]
        window = min(px, self.size + 2 * round(SEARCH * px / 84))
        start = (px - window) // 2
        regions = np.asarray(images, np.float32)[:, start : start + window, start : start + window]
        patches = sliding_window_view(regions, (self.size, self.size), axis=(1, 2))
        places = patches.shape[1] * patches.shape[2]
        flat = patches.reshape(n, places, self.size * self.size)
        # The template rows sum to 0, so a patch need not be centred: its dot product
        # with one equals the centred patch's, and only its spread is left to divide
        # by, from the window sums of the region and of its square.
        spread = np.sqrt(
            np.maximum(
                _window_sums(regions.astype(np.float64) ** 2, self.size)
                - _window_sums(regions.astype(np.float64), self.size) ** 2 / self.size**2,
                0.0,
            )
        ).reshape(n, places, 1)
        inverse = (1.0 / (spread + 1e-6)).astype(np.float32)
        rows = self.rows.reshape(len(self), 4, -1)
        counts = wanted.sum(axis=1)
        with _blas().limit(limits=1, user_api="blas"):
            # Images wanting as many templates share one stacked matrix product, each
            # against its own templates' rows.
            for count in np.unique(counts[counts > 0]):
                members = np.flatnonzero(counts == count)
                chosen = np.nonzero(wanted[members])[1].reshape(len(members), count)
                if count == len(self):  # all of them: one plain matrix product
                    products = (flat[members].reshape(-1, flat.shape[2]) @ self.rows.T).reshape(
                        len(members), places, -1
                    )
                else:
                    own = rows[chosen].reshape(len(members), count * 4, -1)
                    products = np.matmul(flat[members], own.transpose(0, 2, 1))
                products *= inverse[members]
                # One axis at a time: numpy reduces over two strided axes far more slowly.
                best = products.max(axis=1).reshape(len(members), count, 4).max(axis=2)
                out[members[:, None], chosen] = best
        return out


def best_by_value(
    scores: np.ndarray,
    values: np.ndarray,
    suits: np.ndarray,
    leave_out: np.ndarray | None = None,
) -> np.ndarray:
    """N x 10: from :meth:`TemplateBank.best_scores` (N x T) of templates of these
    ``values`` (0..9) and ``suits``, each row's best score with a template of each
    value, -1 where there is none (or none was matched: NaN); row i leaves out the templates of suit
    ``leave_out[i]`` (how well a tile matches the rest of its set, not itself).

    >>> scores = np.array([[0.9, 0.5, 0.7]])
    >>> best_by_value(scores, np.array([2, 2, 4]), np.array([0, 1, 0]))[0, [2, 4, 5]].tolist()
    [0.9, 0.7, -1.0]
    >>> float(best_by_value(scores, np.array([2, 2, 4]), np.array([0, 1, 0]), np.array([0]))[0, 2])
    0.5
    """
    scores = np.nan_to_num(np.asarray(scores, np.float64), nan=-1.0)  # NaN: not matched
    if leave_out is not None:
        kept = np.asarray(suits)[None, :] != np.asarray(leave_out)[:, None]
        scores = np.where(kept, scores, -1.0)
    out = np.full((len(scores), 10), -1.0)
    for value in np.unique(values):
        out[:, value] = scores[:, np.asarray(values) == value].max(axis=1)
    return out
