"""Tell a 6 from a 9 by how the enrolled set's own 6s and 9s look, at each quarter turn.

The networks were trained on tiles turned every quarter turn, so their pooled features
hardly change when a tile turns, and a 6 upside down is most of a 9: on enrolled sets
of art never trained on, 6 against 9 was the main doubt left, about half the squares
read "?" (models/README.md, "Session 19"). What tells them apart is where the digit sits
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

import cv2
import numpy as np

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
60000-60031; models/README.md, "Session 19")."""
REDUCE = 2
"""Templates and squares are matched at 1 / REDUCE of the crop's resolution: at 2 a
square takes 0.8 ms instead of 2.0 at full resolution, which keeps an enrolled 720p
frame near 20 ms at the median on session 19's host, for a few squares fewer answered
on the tuning sets (3.74% against 3.60% "?" or wrong in one pass; models/README.md,
"Session 19")."""
SEARCH = 12
"""How far (px of an 84-px crop) a template may be shifted from the crop's centre: a tile
lies off its square's centre by a few pixels, not by half a square."""
MIN_SHARE = 0.02
"""A square whose 6 and 9 together hold less of the value head's belief is not matched."""

BLUR_SIGMA = 6.0
"""The templates keep what changes within a few pixels (strokes, edges), not the tile's
colour blocks and shading, which say nothing of 6 or 9."""


def grey_image(crop: np.ndarray) -> np.ndarray:
    """A crop (H x W x 3 BGR, or already grey, 0..255) in grey uint8, as enrolment keeps
    its templates."""
    image = np.clip(crop, 0, 255).astype(np.uint8)
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def template_image(crop: np.ndarray) -> np.ndarray:
    """A crop (H x W x 3 BGR, or grey, 0..255) as the templates see it: grey, less its
    blur.

    >>> bool(template_image(np.full((84, 84, 3), 200.0)).std() < 1e-3)
    True
    """
    grey = grey_image(crop).astype(np.float32)
    if REDUCE > 1:
        px = len(grey) // REDUCE
        grey = cv2.resize(grey, (px, px), interpolation=cv2.INTER_AREA)
    return grey - cv2.GaussianBlur(grey, (0, 0), BLUR_SIGMA * len(grey) / 84)


def turned_centres(template: np.ndarray, size: int) -> list[np.ndarray]:
    """The centre (``size`` px) of a template, at each of its four quarter turns."""
    offset = (len(template) - size) // 2
    centre = template[offset : offset + size, offset : offset + size]
    return [np.ascontiguousarray(np.rot90(centre, k)) for k in range(4)]


def best_match(image: np.ndarray, turned: list[np.ndarray]) -> float:
    """The best normalised correlation of a template's ``turned`` centres with
    ``image``'s centre, shifted by up to SEARCH px."""
    size = len(turned[0])
    window = min(len(image), size + 2 * round(SEARCH * len(image) / 84))
    start = (len(image) - window) // 2
    region = image[start : start + window, start : start + window]
    return max(float(cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED).max()) for t in turned)


def best_matches(
    image: np.ndarray,
    turned: list[list[np.ndarray]],
    values: np.ndarray,
    suits: np.ndarray,
    leave_out: int | None = None,
) -> tuple[float, float]:
    """The image's best correlation with any 6 and with any 9 (each template's
    :func:`turned_centres`; templates of suit ``leave_out`` not used; -1 where none is
    left)."""
    best = {SIX: -1.0, NINE: -1.0}
    for centres, value, suit in zip(turned, values, suits, strict=True):
        if suit != leave_out:
            best[int(value)] = max(best[int(value)], best_match(image, centres))
    return best[SIX], best[NINE]


def _log_normal(x: np.ndarray, mean: float, sd: float) -> np.ndarray:
    return -0.5 * ((x - mean) / sd) ** 2 - np.log(sd)


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
    def turned(self) -> list[list[np.ndarray]]:
        """The templates as they are matched: :func:`template_image`, then
        :func:`turned_centres` at ``size``."""
        return [turned_centres(template_image(t), self.size) for t in self.templates]

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
        templates = np.stack([template_image(g) for g in greys])
        probes = [template_image(c) for c in probe_crops]
        px = templates.shape[1]
        best_size, best_ratio, slope = round(SIZES[1] * px / 84), 0.0, 0.0
        own_level = np.ones(1)
        for size84 in SIZES:
            size = round(size84 * px / 84)
            turned = [turned_centres(t, size) for t in templates]
            matches = np.array(
                [
                    best_matches(p, turned, template_values, template_suits, s)
                    for p, s in zip(probes, probe_suits, strict=True)
                ]
            )
            is_six = np.asarray(probe_values) == SIX
            towards = np.where(is_six, 1, -1) * (matches[:, 0] - matches[:, 1])
            mu, sd = float(towards.mean()), float(towards.std())
            ratio = mu / np.hypot(sd, SPREAD_FLOOR)
            if mu > 0 and ratio > best_ratio:
                best_size, best_ratio = size, ratio
                slope = TRUST * 2 * mu / (sd**2 + SPREAD_FLOOR**2)
                own_level = np.where(is_six, matches[:, 0], matches[:, 1])
        others = [template_image(c) for c in (other_crops if other_crops is not None else [])]
        chosen = [turned_centres(t, best_size) for t in templates]
        other_level = np.array(
            [max(best_matches(o, chosen, template_values, template_suits)) for o in others]
        )
        return cls(
            greys,
            np.asarray(template_values, np.int64),
            np.asarray(template_suits, np.int64),
            best_size,
            float(slope),
            _spread(own_level),
            _spread(other_level) if len(other_level) > 1 else (0.0, 1.0),
        )

    def evidence(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each crop, the log-odds of 6 over 9, and the log-likelihood ratio (at
        most 0) of "a 6 or a 9" over "another value", from the templates."""
        matches = np.array(
            [best_matches(template_image(c), self.turned, self.values, self.suits) for c in crops]
        ).reshape(-1, 2)
        odds = self.slope * (matches[:, 0] - matches[:, 1])
        level = matches.max(axis=1)
        pair = TRUST * (
            _log_normal(level, *self.pair_level) - _log_normal(level, *self.other_level)
        )
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


def _spread(x: np.ndarray) -> tuple[float, float]:
    """Mean and spread (at least SPREAD_FLOOR) of ``x``."""
    return float(np.mean(x)), float(np.hypot(np.std(x), SPREAD_FLOOR))
