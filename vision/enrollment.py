"""Enrolment: teach the recognizer a physical tile set from a few photos (numpy only).

The shipped classifier was trained on simulated art; a real set looks different.
From photos of known positions (e.g. all 50 tiles over 5 photos) enrolment fits
two small linear heads, each in closed form (no torch, about a second):

* the **value** head reads 1..10 from the shipped model's ``embedding`` output
  (the 128 pooled convolutional features: :mod:`vision.training.outputs`) of every
  square, in four quarter turns and with small corner shifts: a linear discriminant
  over the ten values, so each value is learnt from all the suits' tiles that show it;
* the **suit** head reads the suit from the tile's colours
  (:func:`vision.tile_colour.colour_features`): in SETUP each suit has its own
  colour, which a user's set shows plainly even where its symbols are tiny; since
  session 18 a second linear discriminant on the same features as the value head
  adds the suit's shape to its colour.

Since session 18 the value head reads the features of both shipped networks side by
side, the enrolment base's and the reader's (:meth:`vision.recognizer.TileRecognizer.
enrollment_inputs`), and the two networks' logits are averaged: the reader, trained
on crops that lose their colours, adds shape features the base lacks, and on held-out
sets never tuned on the one-pass error halves (models/HISTORY.md, "Session 18").

Since session 19 a third check settles 6 against 9, which features blind to a quarter
turn can hardly tell apart: the photos' own 6s and 9s are kept as small grey templates,
and a square read as one of them is matched against them at each quarter turn
(:class:`vision.six_nine.SixNineCheck`; it has little say or none on an art whose
photos it cannot tell apart).

Since session 20 a fourth weighs the values of every square still in doubt: it is
matched against all the photos' tiles, and its best match with each value's tiles,
against how well the photos' tiles matched their own value and another, weighs that
value; a square answered with a tile is matched against its answer's value, and falls
back to "?" if it matches those tiles far worse than the photos' own did
(:class:`vision.value_check.ValueCheck`). On held-out sets never tuned on the error at
four turns falls from 2.6% to 1.4%, with half the confidently wrong squares
(models/HISTORY.md, "Session 20").

A tile's probability is the product of its value's and its suit's, so a tile
never shown can still be read once its value and its suit have been seen. Empty
squares and hands (``covered``) come from the networks' own logits, which know the
board and hands whatever the tiles look like; but they take some tiles of an art never
seen for half-hidden ones, so enrolment lowers the ``covered`` score as far as the
photos' own tiles (no hands on them) show is needed (:func:`covered_shift`)::

    >>> from vision.recognizer import TileRecognizer
    >>> from vision.training_data import tile_set_frames
    >>> photos = tile_set_frames(5, "classic", photos=5, tests=0).enrol
    >>> samples = [EnrollmentSample(f.image, c, f.truth.position) for f, c in photos]
    >>> enrol = build_enrollment(TileRecognizer.load(), samples)
    >>> int((enrol.counts[:50] > 0).sum())
    50

The photos must show every value and every suit at least once (one photo of 12
well-chosen tiles can); :func:`build_enrollment` says which are missing otherwise.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from calibration.atomic_file import replaced_atomically
from calibration.board_location import board_width_px
from engine import ALL_TILES, Layout, Position, Suit
from vision.board_view import square_crops
from vision.enrollment_photos import EnrollmentSample, KeptPhotos
from vision.recognizer import COVERED, EMPTY, LABELS, softmax, unit_rows
from vision.six_nine import NINE, SIX, SixNineCheck
from vision.tile_colour import colour_features
from vision.value_check import ValueCheck

VALUE_SCALE = 0.25
"""Multiplies the value head's discriminant scores before the softmax (a
temperature), chosen by likelihood on enrolled sets of the held-out family (seeds
60000-60015, never the benchmark's; 0.2-0.25 are best with the session-8 model).
Kept in session 14 for the pooled features: on 64 tuning sets (60000-60063) it answers
more squares with fewer wrong than on the old embedding layer (models/HISTORY.md,
"Session 14"). A model whose ``tiles.json`` names its own ``enrollment_value_scale``
(fitted by :mod:`vision.training.value_scale`) uses that instead: another training
needs another scale (session 16: 0.35 for a grey-recipe model, whose error at 0.25 was
4 points worse on the tuning sets for no fewer wrong answers). Both apply to an
enrolment on a base alone; one that also reads the reader takes PAIRED_VALUE_SCALE."""
SUIT_SCALE = 0.02
"""The same for the suit head (0.02-0.03 best)."""
SUIT_SHAPE_SCALE = 0.3
"""The same for the suit's second head, on the networks' features (session 18, tuning
sets 60000-60031: 0.3 answered the most squares without more confidently wrong ones;
with both networks' features 5.63% -> 3.53% error at four turns, with the base's alone
7.16% -> 5.60%; models/HISTORY.md, "Session 18")."""
THRESHOLD = 0.99
"""Confidence below which an enrolled reading is "?": the lowest of 0.9, 0.95, 0.98,
0.99, 0.995 at which at most 0.05% of the same sets' squares are answered wrongly
(session-8 model: 0.98 answers 80% with 0.06% wrong; 0.99 answers 74%, none wrong).
Session 13's tuning sets allowed 0.98 at four turns (95.7% answered, none wrong), but
on the benchmark's enrolled sets it read 3 of 2,557 squares wrong at four turns and 10
in one pass: 0.99 is kept (models/HISTORY.md, "Session 13")."""
VALUE_SHRINKAGE = 0.1
"""How far the value head's shared covariance is pulled towards a sphere (0..1):
the embedding has more dimensions than one tile set's photos fill."""
SUIT_SHRINKAGE = 0.95
"""The same for the suit head's colour features."""
COVERED_QUANTILE = 0.99
COVERED_ODDS = 0.0003
"""The base model, on art it never saw, gives many plain tiles some probability of
being covered by a hand (12% on average on the tuning sets' unanswered tiles, where it
capped the confidence below the threshold). Enrolment lowers the ``covered`` logit
until, on COVERED_QUANTILE of its own photos' tiles (no hands on them), covered
against any tile is at most COVERED_ODDS. On the tuning sets (60000-60015), session
10 with the quantile 0.9: 74% of squares answered -> 83%, and no hand read as a tile.
Sessions 11-12 kept 0.9 because larger quantiles read a few hands as a tile; session
13 found each of those was the tile really under the hand, seen past the fingers.
1.0 (the largest margin over every photo) does read hands wrongly: 0.99 is kept
(models/HISTORY.md, "Session 13"). Since the value check (session 20) weighs a doubtful
square's tiles by the photos' own, a hand gets less help from the heads' doubt: session
21 took the odds from 0.002 to 0.0003 (the shift 1.9 larger), chosen on the tuning sets
60000-60063, where squares a hand partly hides went from 13.1% to 9.2% "?" or wrong at
four turns and no square under a hand was read as another tile; at 0.00016 (2.5 larger)
two were, in one pass (models/HISTORY.md, "Session 21")."""
TURNS_SHARPEN = 1.4
"""A steady view or a photo is read at all four quarter turns
(:meth:`Enrollment.probabilities_all_turns`); the mean of four turns' embeddings is
steadier than one, so its value scores take a scale this many times VALUE_SCALE
(0.35 against 0.25, by likelihood on the tuning sets 60000-60015: 92% of their
visible squares answered at the threshold, none wrongly, where averaging the four
turns' probabilities answered 73%; models/HISTORY.md, "Session 11")."""
PAIRED_VALUE_SCALE = 0.2
PAIRED_TURNS_SHARPEN = 1.0
"""The value scale and four-turn sharpening of an enrolment that reads both networks'
features (the reader beside its base), chosen on the tuning sets 60000-60031 as the
largest one-pass and four-turn answers with no more confidently wrong squares than the
base alone (VALUE_SHRINKAGE unchanged; models/HISTORY.md, "Session 18")."""
CORNER_SHIFTS = 3
"""Extra crops per square with the board's corners moved by ~0.5% of its width."""
FORMAT = 7
READABLE_FORMATS = (2, 3, 4, 5, 6, 7)
"""Format 2 files (before ``covered_shift``) still read, with no shift: as they did;
format 3 ones (before the reader's features) read with the base alone, as they did;
format 4 ones (before the 6-or-9 templates) read without them, as they did; format 5
ones (before the value check) read without it, as they did; format 6 ones (before the
photos were kept) read as before, but must be enrolled again for another network."""

SUITS: tuple[Suit, ...] = tuple(Suit)
TILE_CLASSES = len(ALL_TILES)
"""How many classes of :data:`LABELS` are tiles: they come first, then empty and
covered (so ``labels < TILE_CLASSES`` picks the tiles)."""
VALUE_CLASSES = 10
"""The value head's classes: the values 1..10, as 0..9."""
SUIT_OF_LABEL = np.array([SUITS.index(t.suit) for t in ALL_TILES] + [-1, -1])
"""The suit (index in :class:`engine.Suit` order) of each label; -1 for empty, covered."""
VALUE_OF_LABEL = np.array([t.value - 1 for t in ALL_TILES] + [-1, -1])
"""The value minus one of each label; -1 for empty, covered."""


@dataclass(frozen=True, eq=False)
class LinearHead:
    """Scores ``x @ weight + bias`` for a few classes (a linear discriminant)."""

    weight: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)

    def scores(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, np.float64) @ self.weight + self.bias


def fit_linear_discriminant(
    x: np.ndarray, y: np.ndarray, classes: int, shrinkage: float
) -> LinearHead:
    """Linear discriminant analysis with one shared, shrunk covariance and equal
    priors: class ``c`` scores ``x . S^-1 m_c - m_c . S^-1 m_c / 2``.

    >>> x = np.array([[0.0, 0], [0.2, 0], [1, 1], [1.2, 1]])
    >>> head = fit_linear_discriminant(x, np.array([0, 0, 1, 1]), 2, 0.1)
    >>> head.scores(np.array([[0.1, 0.1], [0.9, 1.0]])).argmax(axis=1).tolist()
    [0, 1]
    """
    x = np.asarray(x, np.float64)
    if np.bincount(y, minlength=classes).min() == 0:
        raise ValueError("every class needs at least one example")
    means = np.stack([x[y == c].mean(axis=0) for c in range(classes)])
    residual = x - means[y]
    cov = residual.T @ residual / len(x)
    sphere = np.trace(cov) / len(cov) + 1e-9
    cov = (1 - shrinkage) * cov + shrinkage * sphere * np.eye(len(cov))
    weight = np.linalg.solve(cov, means.T)
    bias = -0.5 * np.sum(means * weight.T, axis=1)
    return LinearHead(weight, bias)


@dataclass(frozen=True, eq=False)
class Enrollment:
    """A user's tile set: the value head (on the networks' features), the suit heads
    (on the tiles' colours, and on the same features), squares seen per class of
    :data:`LABELS`, and the reading's scales and threshold."""

    value: LinearHead
    suit: LinearHead
    counts: np.ndarray  # squares seen per class
    value_scale: float = VALUE_SCALE
    suit_scale: float = SUIT_SCALE
    threshold: float = THRESHOLD
    covered_shift: float = 0.0
    """Subtracted from the base model's ``covered`` logit (after its temperature)."""
    model_digest: str | None = None
    """The :attr:`~vision.recognizer.TileRecognizer.model_digest` of the network it was
    fitted on (None in files made before session 16): the heads read that network's
    features only, so another network, even of the same size, must enrol again."""
    reader_digest: str | None = None
    """The digest of the reader whose features the value head reads beside the base's
    (None: the base's alone, as in every file made before session 18)."""
    turns_sharpen: float = TURNS_SHARPEN
    """The value scale's factor at four turns (TURNS_SHARPEN for the base alone,
    PAIRED_TURNS_SHARPEN with the reader)."""
    suit_by_shape: LinearHead | None = None
    """The suit's second head, on the value head's features (None in files made before
    session 18: the suit from colours alone)."""
    suit_shape_scale: float = SUIT_SHAPE_SCALE
    six_nine: SixNineCheck | None = None
    """The photos' 6s and 9s as templates (None in files made before session 19)."""
    value_check: ValueCheck | None = None
    """The photos' tiles as templates, to weigh a doubtful square's values (None in
    files made before session 20)."""
    photos: KeptPhotos | None = None
    """The photos' boards it was learnt from, for another network to learn the set again
    (:func:`enrolled_again`; None in files made before session 34)."""

    @property
    def embedding_dim(self) -> int:
        return int(self.value.weight.shape[0])

    def probabilities(
        self,
        base_logits: np.ndarray,
        embedding: np.ndarray,
        colours: np.ndarray,
        temperature: float,
    ) -> np.ndarray:
        """Class probabilities over :data:`LABELS` for a batch, from the networks'
        logits (for empty and covered), their features (value, suit by shape), both
        as :meth:`vision.recognizer.TileRecognizer.enrollment_inputs` gives them
        (tempered already: ``temperature`` 1), and the
        :func:`~vision.tile_colour.colour_features` of the same crops (suit).

        >>> head = LinearHead(np.eye(2, 10), np.zeros(10))
        >>> suit = LinearHead(np.eye(2, 5), np.zeros(5))
        >>> e = Enrollment(head, suit, np.ones(len(LABELS), int))
        >>> base = np.zeros((1, len(LABELS)))
        >>> p = e.probabilities(base, np.array([[9.0, 0]]), np.array([[0, 9.0]]), 1.0)
        >>> LABELS[int(p.argmax())], round(float(p.sum()), 6)
        ('1♥', 1.0)
        """
        return self._combined(base_logits, embedding, colours, temperature, self.value_scale)

    def probabilities_all_turns(
        self,
        base_logits: np.ndarray,
        embedding: np.ndarray,
        colours: np.ndarray,
        temperature: float,
    ) -> np.ndarray:
        """Like :meth:`probabilities`, for crops read at their four quarter turns:
        ``base_logits`` and ``embedding`` are stacked turn by turn (4 x N rows, as
        :meth:`vision.recognizer.TileRecognizer.probabilities_all_turns` runs them),
        ``colours`` has one row per crop. The turns' logits and unit embeddings are
        averaged before the heads read them: averaging the four readings'
        probabilities instead would keep each turn's doubt (see TURNS_SHARPEN).

        >>> head = LinearHead(np.eye(2, 10), np.zeros(10))
        >>> suit = LinearHead(np.eye(2, 5), np.zeros(5))
        >>> e = Enrollment(head, suit, np.ones(len(LABELS), int))
        >>> base, turns = np.zeros((4, len(LABELS))), np.tile([[9.0, 0]], (4, 1))
        >>> p = e.probabilities_all_turns(base, turns, np.array([[0, 9.0]]), 1.0)
        >>> LABELS[int(p.argmax())], p.shape
        ('1♥', (1, 52))
        """
        n = len(colours)
        logits = np.asarray(base_logits, np.float64).reshape(4, n, -1).mean(axis=0)
        mean_embedding = unit_rows(embedding).reshape(4, n, -1).mean(axis=0)
        scale = self.value_scale * self.turns_sharpen
        return self._combined(logits, mean_embedding, colours, temperature, scale)

    def settle_by_templates(self, probabilities: np.ndarray, crops: np.ndarray) -> np.ndarray:
        """``probabilities`` (of :meth:`probabilities` or :meth:`probabilities_all_turns`)
        settled by matching ``crops`` (unturned) against the photos' tiles, as far as
        this enrolment has them: first 6 against 9
        (:meth:`vision.six_nine.SixNineCheck.settle`), then the values of the squares
        still below the threshold and the answers of the others
        (:meth:`vision.value_check.ValueCheck.settle`)."""
        if self.six_nine is not None:
            probabilities = self.six_nine.settle(probabilities, crops)
        if self.value_check is not None:
            probabilities = self.value_check.settle(probabilities, crops, self.threshold)
        return probabilities

    def _combined(
        self,
        base_logits: np.ndarray,
        embedding: np.ndarray,
        colours: np.ndarray,
        temperature: float,
        value_scale: float,
    ) -> np.ndarray:
        scaled = np.array(base_logits, np.float64) / temperature
        scaled[:, COVERED] -= self.covered_shift
        base = softmax(scaled)
        features = unit_rows(embedding)
        values = softmax(value_scale * self.value.scores(features))
        suit_scores = self.suit_scale * self.suit.scores(colours)
        if self.suit_by_shape is not None:
            suit_scores += self.suit_shape_scale * self.suit_by_shape.scores(features)
        suits = softmax(suit_scores)
        tile_share = 1.0 - base[:, EMPTY] - base[:, COVERED]
        out = np.empty_like(base)
        tiles = slice(TILE_CLASSES)
        out[:, tiles] = suits[:, SUIT_OF_LABEL[tiles]] * values[:, VALUE_OF_LABEL[tiles]]
        out[:, tiles] *= tile_share[:, None]
        out[:, EMPTY] = base[:, EMPTY]
        out[:, COVERED] = base[:, COVERED]
        return out

    def save(self, path: str | Path) -> None:
        """Write the enrolment as a small ``.npz`` (about 300 kB, most of it the
        photos' tiles as grey templates)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)  # the default place, at first use
        meta = {
            "format": FORMAT,
            "labels": list(LABELS),
            "value_scale": self.value_scale,
            "suit_scale": self.suit_scale,
            "threshold": self.threshold,
            "covered_shift": self.covered_shift,
            "model": self.model_digest,
            "reader": self.reader_digest,
            "turns_sharpen": self.turns_sharpen,
            "suit_shape_scale": self.suit_shape_scale,
        }
        extra = {}
        if self.suit_by_shape is not None:
            extra = {
                "suit_shape_weight": self.suit_by_shape.weight,
                "suit_shape_bias": self.suit_by_shape.bias,
            }
        kept = {}
        if self.six_nine is not None:
            check = self.six_nine
            meta["six_nine"] = {
                "size": check.size,
                "slope": check.slope,
                "pair_level": list(check.pair_level),
                "other_level": list(check.other_level),
            }
            kept = {
                "six_nine_templates": check.templates.astype(np.uint8),
                "six_nine_values": check.values.astype(np.int32),
                "six_nine_suits": check.suits.astype(np.int32),
            }
        if self.value_check is not None:
            values = self.value_check
            meta["value_check"] = {
                "size": values.size,
                "own_level": list(values.own_level),
                "other_level": list(values.other_level),
            }
            kept |= {
                "value_templates": values.templates.astype(np.uint8),
                "value_template_values": values.values.astype(np.int32),
                "value_template_suits": values.suits.astype(np.int32),
            }
        if self.photos is not None:
            meta["kept_photos"] = self.photos.description()
            kept |= self.photos.arrays()
        # Written beside it, then put in its place: a crash or a full disk never
        # leaves half a file where recognize and the live app read it.
        with replaced_atomically(path) as handle:  # np.savez would append .npz to other names
            np.savez_compressed(
                handle,
                value_weight=self.value.weight.astype(np.float32),
                value_bias=self.value.bias.astype(np.float32),
                suit_weight=self.suit.weight.astype(np.float32),
                suit_bias=self.suit.bias.astype(np.float32),
                counts=self.counts.astype(np.int32),
                meta=np.array(json.dumps(meta, ensure_ascii=False)),
                **{name: array.astype(np.float32) for name, array in extra.items()},
                **kept,
            )

    @classmethod
    def load(cls, path: str | Path) -> Enrollment:
        """Read an enrolment file; ``ValueError`` naming the file if it is not one."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {name: data[name] for name in data.files}
            meta = json.loads(str(arrays["meta"]))
        except FileNotFoundError:
            raise
        except IsADirectoryError:
            raise ValueError(f"{path}: is a folder, not an enrolment file") from None
        except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile):
            # numpy's own reasons would advise loading a stranger's pickle: never.
            raise ValueError(
                f"{path}: not a setupcam enrolment file (setupcam enroll writes them)"
            ) from None
        if meta.get("format") not in READABLE_FORMATS or tuple(meta.get("labels", ())) != LABELS:
            raise ValueError(f"{path}: enrolment file of another setupcam version; enrol again")
        try:
            value = LinearHead(arrays["value_weight"], arrays["value_bias"])
            suit = LinearHead(arrays["suit_weight"], arrays["suit_bias"])
            counts = arrays["counts"]
            shape = None
            if "suit_shape_weight" in arrays:
                shape = LinearHead(arrays["suit_shape_weight"], arrays["suit_shape_bias"])
            six_nine = None
            if "six_nine" in meta:
                fitted = meta["six_nine"]
                six_nine = SixNineCheck(
                    arrays["six_nine_templates"],
                    arrays["six_nine_values"].astype(np.int64),
                    arrays["six_nine_suits"].astype(np.int64),
                    int(fitted["size"]),
                    float(fitted["slope"]),
                    tuple(fitted["pair_level"]),
                    tuple(fitted["other_level"]),
                )
            value_check = None
            if "value_check" in meta:
                fitted = meta["value_check"]
                value_check = ValueCheck(
                    arrays["value_templates"],
                    arrays["value_template_values"].astype(np.int64),
                    arrays["value_template_suits"].astype(np.int64),
                    int(fitted["size"]),
                    tuple(fitted["own_level"]),
                    tuple(fitted["other_level"]),
                )
            photos = None
            if "kept_photos" in meta:
                photos = KeptPhotos.from_file(arrays, meta["kept_photos"])
        except KeyError as err:
            raise ValueError(f"{path}: not a setupcam enrolment file ({err})") from None
        except ValueError as err:
            raise ValueError(f"{path}: damaged enrolment file ({err})") from None
        return cls(
            value,
            suit,
            counts,
            value_scale=float(meta["value_scale"]),
            suit_scale=float(meta["suit_scale"]),
            threshold=float(meta["threshold"]),
            covered_shift=float(meta.get("covered_shift", 0.0)),
            model_digest=meta.get("model"),
            reader_digest=meta.get("reader"),
            turns_sharpen=float(meta.get("turns_sharpen", TURNS_SHARPEN)),
            suit_by_shape=shape,
            suit_shape_scale=float(meta.get("suit_shape_scale", SUIT_SHAPE_SCALE)),
            six_nine=six_nine,
            value_check=value_check,
            photos=photos,
        )


def position_labels(position: Position, layout: Layout) -> np.ndarray:
    """The class index of each square of ``position`` (layout order)."""
    out = []
    for square in layout.squares:
        tile = position.squares.get(square)
        out.append(EMPTY if tile is None else LABELS.index(str(tile)))
    return np.array(out)


CONTRADICTION = 0.99
"""How sure the model alone must be that a photo's square is empty, or holds a tile, to
say the photo's position file is wrong there. Bare board against a tile is what it
reads best, even on art it never saw: on the photos of 140 held-out sets and 16 of the
training art (8,400 tiles, 1,560 empty squares) no tile was read empty above 0.054 and
no empty square as a tile above 0.0014 (session 21). A hand is not used: on art it
never saw the model gives some plain tiles up to 0.97 of being covered."""


def contradicted_squares(probabilities: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Which squares of a photo (bool per row) contradict its position file's
    ``labels``: the file says empty where the model is CONTRADICTION sure of a tile, or
    a tile where it is that sure of empty.

    >>> sure_tile, sure_empty = np.eye(len(LABELS))[[3, EMPTY]]
    >>> contradicted_squares(np.stack([sure_tile, sure_empty]), np.array([EMPTY, 7])).tolist()
    [True, True]
    >>> contradicted_squares(np.stack([sure_tile, sure_empty]), np.array([9, EMPTY])).tolist()
    [False, False]
    """
    probabilities = np.asarray(probabilities, np.float64)
    labels = np.asarray(labels)
    tile = probabilities[:, :EMPTY].sum(axis=1)
    empty = probabilities[:, EMPTY]
    said_empty = labels == EMPTY
    said_tile = labels < EMPTY
    return (said_empty & (tile >= CONTRADICTION)) | (said_tile & (empty >= CONTRADICTION))


def enrollment_views(
    sample: EnrollmentSample, layout: Layout, crop_px: int, crop_span: float, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Crops of every square of one photo in 4 quarter turns x (1 + CORNER_SHIFTS)
    corner placements, and the class of each crop."""
    rng = np.random.default_rng(seed)
    corners = np.asarray(sample.corners, np.float64)
    width = board_width_px(corners)
    placements = [corners] + [
        corners + rng.normal(0, 0.005 * width, (4, 2)) for _ in range(CORNER_SHIFTS)
    ]
    labels = position_labels(sample.position, layout)
    crops, ys = [], []
    for quad in placements:
        base = square_crops(sample.image, quad, layout, crop_px, crop_span)
        for k in range(4):
            crops.append(np.rot90(base, k, axes=(1, 2)))
            ys.append(labels)
    return np.concatenate(crops), np.concatenate(ys)


def missing_classes(counts: np.ndarray) -> list[str]:
    """The values and suits no enrolled square showed, as text (``['7', '♠']``)."""
    shown = np.flatnonzero(np.asarray(counts)[:TILE_CLASSES] > 0)
    values = sorted(set(range(VALUE_CLASSES)) - set(VALUE_OF_LABEL[shown].tolist()))
    suits = sorted(set(range(len(SUITS))) - set(SUIT_OF_LABEL[shown].tolist()))
    return [str(v + 1) for v in values] + [SUITS[s].symbol for s in suits]


def _unturned(views: np.ndarray, squares: int) -> np.ndarray:
    """Of one photo's :func:`enrollment_views` (crops or their classes, placement by
    placement, each in 4 quarter turns of ``squares`` squares), the unturned ones:
    placements x squares (x crop)."""
    return views.reshape(-1, 4, squares, *views.shape[1:])[:, 0]


def _or_list(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def build_enrollment(
    recognizer, samples: Sequence[EnrollmentSample], layout: Layout | None = None
) -> Enrollment:
    """Fit the value and suit heads on ``samples`` (see module docs) on the features
    of ``recognizer`` and its enrolment base (of the base alone when ``recognizer`` is
    one); ``ValueError`` if there are no photos or they miss a value or a suit."""
    layout = layout or Layout.load()
    if not samples:
        raise ValueError("enrolment needs at least one photo")
    counts = np.zeros(len(LABELS), np.int64)
    for sample in samples:
        np.add.at(counts, position_labels(sample.position, layout), 1)
    missing = missing_classes(counts)
    if missing:
        raise ValueError(
            "the photos must show every value (1-10) and every suit at least once, "
            f"and they show no {_or_list(missing)}"
        )
    base = recognizer.enrollment_base
    logits, features, colours, labels = [], [], [], []
    plain, plain_labels = [], []
    for i, sample in enumerate(samples):
        crops, ys = enrollment_views(sample, layout, base.crop_px, base.info.crop_span, seed=i)
        plain.append(_unturned(crops, len(layout.squares)))
        plain_labels.append(_unturned(ys, len(layout.squares)))
        tiles = ys < TILE_CLASSES
        tile_logits, tile_features = recognizer.enrollment_inputs(crops[tiles])
        logits.append(tile_logits)
        features.append(unit_rows(tile_features))
        colours.append(colour_features(crops[tiles]))
        labels.append(ys[tiles])
    y = np.concatenate(labels)
    x = np.concatenate(features)
    values, suits = VALUE_OF_LABEL[y], SUIT_OF_LABEL[y]
    value = fit_linear_discriminant(x, values, VALUE_CLASSES, VALUE_SHRINKAGE)
    suit = fit_linear_discriminant(np.concatenate(colours), suits, len(SUITS), SUIT_SHRINKAGE)
    suit_by_shape = fit_linear_discriminant(x, suits, len(SUITS), VALUE_SHRINKAGE)
    shift = covered_shift(np.concatenate(logits), 1.0)  # the logits come tempered
    six_nine = fit_six_nine(plain, plain_labels)
    value_check = fit_value_check(plain, plain_labels)
    paired = recognizer is not base
    base_scale = base.info.enrollment_value_scale or VALUE_SCALE
    return Enrollment(
        value,
        suit,
        counts,
        value_scale=PAIRED_VALUE_SCALE if paired else base_scale,
        covered_shift=shift,
        model_digest=base.model_digest,
        reader_digest=recognizer.model_digest if paired else None,
        turns_sharpen=PAIRED_TURNS_SHARPEN if paired else TURNS_SHARPEN,
        suit_by_shape=suit_by_shape,
        six_nine=six_nine,
        value_check=value_check,
        photos=KeptPhotos.of(samples, layout),
    )


KEPT_ENROLMENTS = 3
"""How many enrolments replaced are kept: a bad one, then the one made again, still
leave the last good one."""


def previous_enrollment_path(path: str | Path, back: int = 1) -> Path:
    """Where the enrolment file at ``path`` is kept once another takes its place, and,
    ``back`` replacements ago, the older ones.

    >>> previous_enrollment_path("enrollment.npz").name
    'enrollment.previous.npz'
    >>> previous_enrollment_path("enrollment.npz", back=2).name
    'enrollment.previous-2.npz'
    """
    path = Path(path)
    older = "" if back == 1 else f"-{back}"
    return path.with_name(f"{path.stem}.previous{older}{path.suffix}")


def save_keeping_previous(enrollment: Enrollment, path: str | Path) -> Path | None:
    """Write ``enrollment`` at ``path``, keeping the file it replaces (if any) at
    :func:`previous_enrollment_path`, which is returned, and the ones kept before it one
    place further back, up to :data:`KEPT_ENROLMENTS` (``enrollment.previous-2.npz``...):
    an enrolment gone wrong, and the next made to mend it, do not push out the last good
    one. ``OSError`` if it cannot be written; the file at ``path`` is then as it was."""
    path = Path(path)
    if not path.is_file():
        enrollment.save(path)
        return None
    # The old file is copied aside first and named as the previous one only once the
    # new one is in place (in one step): whatever fails, no enrolment is lost.
    kept = path.with_name(path.name + ".kept")
    shutil.copy2(path, kept)
    try:
        enrollment.save(path)
    except BaseException:
        kept.unlink(missing_ok=True)
        raise
    previous = previous_enrollment_path(path)
    # The earlier ones move back one place; the oldest of KEPT_ENROLMENTS goes.
    for back in range(KEPT_ENROLMENTS, 1, -1):
        newer = previous_enrollment_path(path, back - 1)
        if newer.is_file():
            newer.replace(previous_enrollment_path(path, back))
    kept.replace(previous)
    return previous


def enrolled_again(recognizer, enrollment: Enrollment) -> Enrollment:
    """The tile set of ``enrollment`` learnt again on ``recognizer``'s networks from the
    photos it keeps, as :func:`build_enrollment` learnt it (``ValueError`` for a file
    made before session 34, which keeps none: the set must be photographed again)."""
    if enrollment.photos is None:
        raise ValueError("the enrolment keeps no photos (made before session 34)")
    return build_enrollment(recognizer, enrollment.photos.samples, enrollment.photos.layout)


def fit_six_nine(views: Sequence[np.ndarray], labels: Sequence[np.ndarray]) -> SixNineCheck | None:
    """The 6-or-9 check of a tile set, from each photo's unturned views (placements x
    squares x crop) and their classes: the first placement's 6s and 9s are the
    templates, every placement's are the probes, the first placement's other tiles
    show how well another value matches (None if a 6 or a 9 is missing)."""
    first = np.concatenate([v[0] for v in views])
    first_labels = np.concatenate([y[0] for y in labels])
    every = np.concatenate([v.reshape(-1, *v.shape[2:]) for v in views])
    every_labels = np.concatenate([y.reshape(-1) for y in labels])
    # VALUE_OF_LABEL is -1 for empty and covered, so they are never in the pair.
    templates = np.isin(VALUE_OF_LABEL[first_labels], [SIX, NINE])
    probes = np.isin(VALUE_OF_LABEL[every_labels], [SIX, NINE])
    if not {SIX, NINE} <= set(VALUE_OF_LABEL[first_labels[templates]].tolist()):
        return None
    others = (first_labels < TILE_CLASSES) & ~templates
    return SixNineCheck.fit(
        first[templates],
        VALUE_OF_LABEL[first_labels[templates]],
        SUIT_OF_LABEL[first_labels[templates]],
        every[probes],
        VALUE_OF_LABEL[every_labels[probes]],
        SUIT_OF_LABEL[every_labels[probes]],
        first[others],
    )


def fit_value_check(views: Sequence[np.ndarray], labels: Sequence[np.ndarray]) -> ValueCheck | None:
    """The value check of a tile set, from each photo's unturned views (placements x
    squares x crop) and their classes: the first placement's tiles are its templates
    (:meth:`vision.value_check.ValueCheck.fit`)."""
    first = np.concatenate([v[0] for v in views])
    first_labels = np.concatenate([y[0] for y in labels])
    tiles = first_labels < TILE_CLASSES
    return ValueCheck.fit(
        first[tiles], VALUE_OF_LABEL[first_labels[tiles]], SUIT_OF_LABEL[first_labels[tiles]]
    )


def covered_shift(tile_logits: np.ndarray, temperature: float) -> float:
    """How far to lower the ``covered`` logit so that, on COVERED_QUANTILE of these
    crops of plain tiles, covered against any tile is at most COVERED_ODDS (0 if it
    already is).

    >>> logits = np.zeros((4, len(LABELS)))
    >>> logits[:, 0] = 10.0  # sure of a tile ...
    >>> logits[:, COVERED] = 9.0  # ... yet a hand is nearly as likely
    >>> round(covered_shift(logits, 1.0), 2)
    7.11
    """
    from scipy.special import logsumexp  # only when enrolling: 0.1 s to import

    scaled = np.asarray(tile_logits, np.float64) / temperature
    any_tile = logsumexp(scaled[:, :TILE_CLASSES], axis=1)
    margin = np.quantile(scaled[:, COVERED] - any_tile, COVERED_QUANTILE)
    return float(max(0.0, margin + np.log(1.0 / COVERED_ODDS)))
