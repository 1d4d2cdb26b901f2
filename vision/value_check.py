"""Weigh an enrolled square's values by how well it matches the photos' tiles of each.

On an enrolled set of art never trained on, most squares left "?" are in doubt between
two values, or between a tile and a hand: the heads read pooled features, which blur
where on the tile a digit sits and what shape it has. The photos' own tiles still
show both. So a square the heads leave in doubt is matched against every enrolled tile
(:mod:`vision.tile_templates`: grey, at each quarter turn), and its best correlation
with each value's tiles weighs that value: a square that matches the 7s as well as the
photos' 7s matched each other is likely a 7; one that matches them no better than a
tile of another value did is not.

How well a tile matches its own value, and how well another value, is measured on the
photos themselves, one suit left out at a time (a tile never matches itself), at the
template size that tells them apart best (:meth:`ValueCheck.fit`)::

    >>> rng = np.random.default_rng(0)
    >>> art = rng.uniform(0, 255, (10, 84, 84, 3))       # ten values' art ...
    >>> crops = np.concatenate([art, art[:, ::-1, ::-1]])  # ... in two suits
    >>> values, suits = np.tile(np.arange(10), 2), np.repeat([0, 1], 10)
    >>> check = ValueCheck.fit(crops, values, suits)
    >>> doubt = np.zeros((1, 52))
    >>> doubt[0, [2, 3]] = 0.5                           # a 3 or a 4 (suit ★)
    >>> settled = check.settle(doubt, np.rot90(art[3:4], axes=(1, 2)), threshold=0.99)
    >>> round(float(settled[0, 3]), 3)                    # the art of the 4s, turned
    1.0

Only values the heads already hold possible gain, so the check settles doubts and
never brings in a tile the heads ruled out. Empty and covered get no evidence (a hand
or the bare board matches a value's tiles no better than a tile of another value
does), so a square that matches some value's tiles well becomes that value's rather
than a hand. A hand over part of a square (a square counts as covered from a fifth
hidden) that leaves the tile's centre in view then reads as that tile, which is truly
there, and which the benchmarks count as right
(:func:`vision.training.evaluate.wrong_answers`).

A square the heads answer with a tile is matched too, against that tile's value only
(five templates, not fifty): on an art never trained on the heads are now and then sure
of the wrong value, and a square that matches its answer's tiles far worse than the
photos' tiles matched their own falls back to "?". At four turns (a steady view, a
photo, a doubtful square) that took the confidently wrong squares of the 64 tuning
sets from 16 to 6, for 0.03 points more "?" (models/HISTORY.md, "Session 20"); since
session 22 a frame's quick reading checks its answers too (31 -> 19 wrong in one pass
on the tuning sets, about 1.7 ms more a frame timed by hand)::

    >>> sure = np.zeros((1, 52))
    >>> sure[0, 2] = 0.995                               # a 3★, says the heads ...
    >>> sure[0, 3] = 0.005
    >>> settled = check.settle(sure, art[3:4], threshold=0.99)   # ... of a 4's art
    >>> bool(settled[0, 2] < 0.99)
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from vision.tile_templates import (
    TemplateBank,
    best_by_value,
    grey_image,
    log_normal,
    spread,
    template_images,
)

SIZES = (24, 36, 48)
"""Template sizes tried, in pixels of an 84-px crop (scaled to the model's crop)."""
TRUST = 1.0
"""The share of the photos' log-likelihood ratio the check gets: of 0.5, 0.75, 1, 1.25,
1.5 and 2, the largest that answers no square more wrongly on the tuning sets
60000-60031 (on 60032-60063, replayed after the choice, even 0.5 answers one or two
more wrongly; models/HISTORY.md, "Session 20")."""
SPREAD_FLOOR = 0.05
"""Added (squared) to the photos' spread of match levels: game frames (blur, hands
near) are less steady than photos."""
MIN_VALUE_SHARE = 1e-4
"""A value holding less of a doubtful square's belief is not matched: it could hardly
win the square (its likelihood ratio would need to be ten thousand times the leading
value's), and leaving it out saves a third of the matching (0.56 ms a doubtful square
against 0.85), with the same readings on the 64 tuning sets."""
MIN_PROBES = 10
"""Fewer photo tiles whose value shows in another suit than this, and there is too
little to measure how well a tile matches its own value: no check."""


@dataclass(frozen=True, eq=False)
class ValueCheck:
    """The enrolled tiles as templates (N x px x px grey, uint8), their value (0..9)
    and suit index, the template ``size`` kept, and the mean and spread of a photo
    tile's best correlation with its own value's tiles (``own_level``) and with another
    value's (``other_level``)."""

    templates: np.ndarray
    values: np.ndarray
    suits: np.ndarray
    size: int
    own_level: tuple[float, float]
    other_level: tuple[float, float]

    @cached_property
    def bank(self) -> TemplateBank:
        """The templates as they are matched: grey less blur
        (:func:`~vision.tile_templates.template_image`), centres at ``size``."""
        return TemplateBank.of_crops(self.templates, self.size)

    @classmethod
    def fit(cls, crops: np.ndarray, values: np.ndarray, suits: np.ndarray) -> ValueCheck | None:
        """The check of a tile set from its photos' tiles (``crops``, one view each,
        of these ``values`` 0..9 and ``suits``): each is matched against the others of
        other suits; per size, its best correlation with its own value and with each
        other value are modelled as normal, and the size that separates them most
        (difference of means over their spreads) is kept. None if fewer than
        MIN_PROBES tiles have their value shown in another suit."""
        values, suits = np.asarray(values, np.int64), np.asarray(suits, np.int64)
        greys = np.stack([grey_image(c) for c in crops])
        images = template_images(greys)
        px = images.shape[1]
        rows = np.arange(len(values))
        best: tuple[float, int, tuple[float, float], tuple[float, float]] | None = None
        for size84 in SIZES:
            size = round(size84 * px / 84)
            levels = best_by_value(
                TemplateBank.of(images, size).best_scores(images), values, suits, suits
            )
            own = levels[rows, values]
            shown = levels > -1
            other = np.ones_like(shown)
            other[rows, values] = False
            own, other_levels = own[own > -1], levels[shown & other]
            if len(own) < MIN_PROBES or len(other_levels) < 2:
                return None
            own_level = spread(own, SPREAD_FLOOR)
            other_level = spread(other_levels, SPREAD_FLOOR)
            separation = (own_level[0] - other_level[0]) / np.hypot(own_level[1], other_level[1])
            if best is None or separation > best[0]:
                best = (separation, size, own_level, other_level)
        assert best is not None
        _, size, own_level, other_level = best
        return cls(greys, values, suits, size, own_level, other_level)

    def evidence(self, crops: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
        """N x 10: for each crop and value, the log-likelihood ratio (times TRUST) of
        its best correlation with that value's tiles, under "a tile of this value"
        against "not"; 0 (no evidence) for a value not matched. ``values`` (N x 10,
        bool) says which values to match for each crop (all by default)."""
        wanted = None if values is None else np.asarray(values, bool)[:, self.values]
        scores = self.bank.best_scores(template_images(crops), wanted)
        levels = best_by_value(scores, self.values, self.suits)
        ratio = log_normal(levels, *self.own_level) - log_normal(levels, *self.other_level)
        return np.where(levels > -1, TRUST * ratio, 0.0)

    def settle(
        self,
        probabilities: np.ndarray,
        crops: np.ndarray,
        threshold: float,
    ) -> np.ndarray:
        """``probabilities`` over :data:`vision.recognizer.LABELS` (N x 52) weighed by
        :meth:`evidence` (Bayes' rule: each tile's probability times its value's
        likelihood ratio, empty and covered times 1, renormalised). A row below
        ``threshold`` is matched against every value holding at least MIN_VALUE_SHARE
        of it (the rest could not win it); a row answered with a tile, against that
        tile's value alone, which lets a square that matches its answer's tiles far
        worse than the photos' tiles matched their own fall back to "?"."""
        from vision.enrollment import TILE_CLASSES, VALUE_CLASSES, VALUE_OF_LABEL

        tiles, values = TILE_CLASSES, np.arange(VALUE_CLASSES)
        out = np.array(probabilities, np.float64)
        best = out.argmax(axis=1)
        doubtful = out.max(axis=1) < threshold
        rows = np.flatnonzero(doubtful | (best < tiles))
        if not len(rows):
            return out
        by_value = VALUE_OF_LABEL[:tiles, None] == values  # tiles x values, one-hot
        wanted = np.where(
            doubtful[rows, None],
            out[rows, :tiles] @ by_value >= MIN_VALUE_SHARE,
            values == VALUE_OF_LABEL[np.minimum(best[rows], tiles - 1), None],
        )
        ratio = self.evidence(np.asarray(crops)[rows], wanted)
        weights = np.ones((len(rows), out.shape[1]))
        weights[:, :tiles] = np.exp(ratio[:, VALUE_OF_LABEL[:tiles]])
        weighed = out[rows] * weights
        out[rows] = weighed / weighed.sum(axis=1, keepdims=True)
        return out
