"""Tell a 6 from a 9 by how the enrolled set's own 6s and 9s look, at each quarter turn.

The networks were trained on tiles turned every quarter turn, so their pooled features
hardly change when a tile turns, and a 6 upside down is most of a 9: on enrolled sets
of art never trained on, 6 against 9 was the main doubt left, about half the squares
read "?" (models/HISTORY.md, "Session 19"). What tells them apart is where the digit sits
on the tile and which way its underline faces: a matter of the picture, which pooled
features average away. So enrolment keeps its photos' 6s and 9s as small grey
templates, and a square the value head reads as 6 or 9 is matched against each of them
at the four quarter turns; the better match says which (:meth:`SixNineCheck.settle`).

Each art draws the difference somewhere else, or nowhere a template sees (the classic
art shows its value in small corner indices, away from the centre the templates
match). So the template's size and the weight its verdict gets are measured on the enrolment
photos themselves: each of their 6s and 9s is matched against the other suits' (one
suit left out at a time), and an art whose photos do not tell the two apart gets
little say or none (:meth:`SixNineCheck.fit`)::

    >>> rng = np.random.default_rng(0)
    >>> six, nine = rng.uniform(0, 255, (2, 84, 84, 3))     # two tiles' art, in 2 suits
    >>> crops, values, suits = np.stack([six, nine, six, nine]), [5, 8, 5, 8], [0, 0, 1, 1]
    >>> check = SixNineCheck.fit(crops, values, suits, crops, values, suits)
    >>> bool(check.slope > 0)
    True
    >>> odds, _ = check.evidence(np.stack([np.rot90(six), nine]))   # a 6 turned, a 9
    >>> (odds > 0).tolist()
    [True, False]
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

SIX, NINE = 5, 8
"""The two values (minus one, as :data:`vision.enrollment.VALUE_OF_LABEL`) told apart."""
SIZES = (24, 36, 48, 60)
"""Template sizes tried, in pixels of an 84-px crop (scaled to the model's crop): the
centre of the square, from the digit alone to most of the tile."""
SPREAD_FLOOR = 0.05
"""Added (squared) to the enrolment photos' spread of match margins: the photos are
steadier than game frames (no hands, less blur), so their own spread understates it."""
TRUST = 0.5
"""The share of the photos' log-likelihood ratio the verdict gets (tuning sets
60000-60031; models/HISTORY.md, "Session 19")."""
MIN_SHARE = 0.02
"""A square whose 6 and 9 together hold less of the value head's belief is not matched."""


def six_nine_matches(
    bank: TemplateBank,
    images: np.ndarray,
    values: np.ndarray,
    suits: np.ndarray,
    leave_out: np.ndarray | None = None,
) -> np.ndarray:
    """N x 2: each image's best correlation with any 6 and with any 9 of ``bank``
    (templates of these ``values`` and ``suits``; row i leaves out suit
    ``leave_out[i]``; -1 where none is left)."""
    best = best_by_value(bank.best_scores(images), values, suits, leave_out)
    return best[:, [SIX, NINE]]


@dataclass(frozen=True, eq=False)
class SixNineCheck:
    """The enrolled 6s and 9s as templates (N x px x px grey, uint8), their
    value (:data:`SIX` or :data:`NINE`) and suit index, and what the photos showed of
    them at the template ``size`` that told them apart best:

    * ``slope``: log-odds of 6 over 9 per unit of the margin between the best 6 and
      the best 9 (0: this art's templates do not tell them apart, and the check has
      no say);
    * ``pair_level``, ``other_level``: mean and spread of the best correlation with a
      6 or 9 template, for a 6 or 9 and for a tile of another value. A 5 read as a 6
      by the heads matches the 6s less well than a 6 does, and that lowers the pair's
      share, never raises it."""

    templates: np.ndarray
    values: np.ndarray
    suits: np.ndarray
    size: int
    slope: float
    pair_level: tuple[float, float] = (1.0, 1.0)
    other_level: tuple[float, float] = (0.0, 1.0)

    @cached_property
    def bank(self) -> TemplateBank:
        """The templates as they are matched: grey less blur
        (:func:`~vision.tile_templates.template_image`), centres at ``size``."""
        return TemplateBank.of_crops(self.templates, self.size)

    @classmethod
    def fit(
        cls,
        template_crops: np.ndarray,
        template_values: np.ndarray,
        template_suits: np.ndarray,
        probe_crops: np.ndarray,
        probe_values: np.ndarray,
        probe_suits: np.ndarray,
        other_crops: np.ndarray | None = None,
    ) -> SixNineCheck:
        """Templates from ``template_crops`` (the photos' 6s and 9s, one view each);
        size and slope from how each of ``probe_crops`` (more views of the same tiles)
        matches its own value and the other when its own suit is left out; the levels
        from those and from ``other_crops`` (the photos' tiles of other values).

        Per size, the margins m (taken towards the true value) are modelled as normal,
        m ~ N(mu, sd), on both sides: the log-likelihood ratio of 6 over 9 is then
        2 mu m / sd^2. The size with the largest mu / sd is kept; the slope is TRUST
        times 2 mu / (sd^2 + SPREAD_FLOOR^2), and 0 when mu is not above 0."""
        greys = np.stack([grey_image(c) for c in template_crops])
        templates = template_images(greys)
        probes = template_images(probe_crops)
        px = templates.shape[1]
        best_size, best_ratio, slope = round(SIZES[1] * px / 84), 0.0, 0.0
        own_level = np.ones(1)
        for size84 in SIZES:
            size = round(size84 * px / 84)
            bank = TemplateBank.of(templates, size)
            matches = six_nine_matches(
                bank, probes, template_values, template_suits, np.asarray(probe_suits)
            )
            is_six = np.asarray(probe_values) == SIX
            towards = np.where(is_six, 1, -1) * (matches[:, 0] - matches[:, 1])
            mu, sd = float(towards.mean()), float(towards.std())
            ratio = mu / np.hypot(sd, SPREAD_FLOOR)
            if mu > 0 and ratio > best_ratio:
                best_size, best_ratio = size, ratio
                slope = TRUST * 2 * mu / (sd**2 + SPREAD_FLOOR**2)
                own_level = np.where(is_six, matches[:, 0], matches[:, 1])
        others = template_images(other_crops if other_crops is not None else [])
        chosen = TemplateBank.of(templates, best_size)
        other_level = six_nine_matches(chosen, others, template_values, template_suits).max(axis=1)
        return cls(
            greys,
            np.asarray(template_values, np.int64),
            np.asarray(template_suits, np.int64),
            best_size,
            float(slope),
            spread(own_level, SPREAD_FLOOR),
            spread(other_level, SPREAD_FLOOR) if len(other_level) > 1 else (0.0, 1.0),
        )

    def evidence(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each crop, the log-odds of 6 over 9, and the log-likelihood ratio (at
        most 0) of "a 6 or a 9" over "another value", from the templates."""
        matches = six_nine_matches(self.bank, template_images(crops), self.values, self.suits)
        odds = self.slope * (matches[:, 0] - matches[:, 1])
        level = matches.max(axis=1)
        pair = TRUST * (log_normal(level, *self.pair_level) - log_normal(level, *self.other_level))
        return odds, np.minimum(pair, 0.0)

    def settle(self, probabilities: np.ndarray, crops: np.ndarray) -> np.ndarray:
        """``probabilities`` over :data:`vision.recognizer.LABELS` (N x 52, from the
        enrolled heads) updated with the templates' evidence (Bayes' rule: the heads'
        belief times the likelihoods): the log-odds of 6 over 9 are added to the heads'
        own (which hardly know one from the other, but are not ignored), and the
        pair's share is lowered where the square matches a 6 or 9 less well than the
        photos' 6s and 9s did. Only squares where 6 and 9 hold at least MIN_SHARE are
        matched."""
        from vision.enrollment import VALUE_OF_LABEL

        out = np.array(probabilities, np.float64)
        if self.slope <= 0:
            return out
        six = np.flatnonzero(VALUE_OF_LABEL == SIX)
        nine = np.flatnonzero(VALUE_OF_LABEL == NINE)  # suit by suit, as ``six``
        rows = np.flatnonzero(out[:, six].sum(axis=1) + out[:, nine].sum(axis=1) >= MIN_SHARE)
        if not len(rows):
            return out
        odds, pair = self.evidence(np.asarray(crops)[rows])
        p6, p9 = out[np.ix_(rows, six)], out[np.ix_(rows, nine)]  # suit by suit
        prior = np.log(p6 + 1e-300) - np.log(p9 + 1e-300)
        share_six = 1.0 / (1.0 + np.exp(-(prior + odds[:, None])))
        kept = (p6 + p9) * np.exp(pair)[:, None]
        updated = out[rows]
        updated[:, six] = kept * share_six
        updated[:, nine] = kept * (1.0 - share_six)
        out[rows] = updated / updated.sum(axis=1, keepdims=True)
        return out
