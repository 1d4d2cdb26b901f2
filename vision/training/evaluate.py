"""Metrics and confidence calibration for the tile classifier (numpy only).

Shared by training (final table, temperature, threshold) and the benchmark.
A square's answer is its best class, or ``?`` when the calibrated confidence is
below the threshold. A covered square (truth ``covered``) is answered right by
``covered`` or ``?``; any other square only by its true class::

    >>> probs = np.array([[0.9, 0.1], [0.4, 0.6]])
    >>> answers(probs, 0.7).tolist()
    [0, -1]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from vision.recognizer import COVERED, softmax
from vision.synth import FAMILIES

UNKNOWN_INDEX = -1
MAX_CONFIDENT_WRONG = 0.0005
"""Threshold choice: at most this fraction of all squares may be answered wrongly."""


def answers(probs: np.ndarray, threshold: float | np.ndarray) -> np.ndarray:
    """Best class per row, or -1 (``?``) where its probability is below ``threshold``
    (one for all rows, or one per row)."""
    best = probs.argmax(axis=1)
    return np.where(probs.max(axis=1) >= threshold, best, UNKNOWN_INDEX)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The softmax temperature minimising the negative log-likelihood of ``y``.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 3, 500)
    >>> logits = 20 * np.eye(3)[y] + rng.normal(0, 8, (500, 3))
    >>> 1.5 < fit_temperature(logits, y) < 20
    True
    """
    logits = np.asarray(logits, np.float64)

    def nll(log_t: float) -> float:
        p = softmax(logits, float(np.exp(log_t)))
        return float(-np.mean(np.log(p[np.arange(len(y)), y] + 1e-12)))

    res = minimize_scalar(nll, bounds=(np.log(0.05), np.log(20.0)), method="bounded")
    return float(np.exp(res.x))


def wrong_answers(ans: np.ndarray, y: np.ndarray, top: np.ndarray | None = None) -> np.ndarray:
    """Answered with another tile or ``empty``. ``covered`` on a visible square is not a
    wrong tile: the user sees "?" there, as for any hand (see :func:`unread`). A square
    under a hand accepts ``covered`` and, given ``top`` (the label each square has
    without the hand), the tile that really lies there: seen past the fingers, it is
    read right, not wrong.

    >>> y, top = np.array([COVERED, COVERED, 3]), np.array([7, 7, 3])
    >>> wrong_answers(np.array([7, 5, COVERED]), y, top).tolist()
    [False, True, False]
    >>> wrong_answers(np.array([7, 5, COVERED]), y).tolist()  # without ``top``: strict
    [True, True, False]
    """
    wrong = (ans != UNKNOWN_INDEX) & (ans != y) & ~_covered_on_visible(ans, y)
    if top is not None:
        wrong &= ~((y == COVERED) & (ans == top))
    return wrong


def unread(ans: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Squares the user sees as "?": below the threshold, or a visible square read as
    ``covered`` (printed as "?" too)."""
    return (ans == UNKNOWN_INDEX) | _covered_on_visible(ans, y)


def _covered_on_visible(ans: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (ans == COVERED) & (y != COVERED)


def choose_threshold(
    probs: np.ndarray,
    y: np.ndarray,
    max_wrong: float = MAX_CONFIDENT_WRONG,
    top: np.ndarray | None = None,
) -> float:
    """The lowest threshold (>= 0.5) at which at most ``max_wrong`` of the squares are
    answered wrongly (as :func:`wrong_answers` counts, ``top`` included): as few ``?``
    as possible for the allowed rate of confident errors."""
    conf = probs.max(axis=1)
    wrong = wrong_answers(probs.argmax(axis=1), y, top)
    allowed = int(np.floor(max_wrong * len(y)))
    # Sorting the wrong answers' confidences: the threshold must sit above all but
    # the ``allowed`` most confident of them.
    wrong_conf = np.sort(conf[wrong])[::-1]
    if len(wrong_conf) <= allowed:
        return 0.5
    t = float(np.nextafter(wrong_conf[allowed], 1.0))
    return float(min(max(t, 0.5), 0.999999))


@dataclass(frozen=True)
class Scores:
    """Counts for one group of squares. ``error``: wrong or ``?`` (squares that are not
    covered must be read); ``confident_wrong``: answered and wrong; ``unknown``: ``?``."""

    name: str
    squares: int
    error: float
    confident_wrong: float
    unknown: float

    def row(self) -> str:
        return (
            f"{self.name:<28} {self.squares:>7} {100 * self.error:>8.3f}% "
            f"{100 * self.confident_wrong:>9.3f}% {100 * self.unknown:>8.3f}%"
        )


HEADER = f"{'group':<28} {'squares':>7} {'error':>9} {'conf.wrong':>10} {'?':>9}"


def score(
    name: str,
    probs: np.ndarray,
    y: np.ndarray,
    threshold: float | np.ndarray,
    top: np.ndarray | None = None,
) -> Scores:
    """:class:`Scores` of ``probs`` against labels ``y`` (and ``top``, see
    :func:`wrong_answers`). For covered squares ``error`` counts only wrong answers
    (``?`` is a right answer there).

    >>> from vision.recognizer import LABELS
    >>> probs = np.eye(len(LABELS))[[0, COVERED, 1]]  # read 1★, covered, 2★
    >>> s = score("demo", probs, np.array([0, 0, 0]), 0.9)  # all three were 1★
    >>> s.confident_wrong, s.unknown
    (0.3333333333333333, 0.3333333333333333)
    """
    if len(y) == 0:
        return Scores(name, 0, float("nan"), float("nan"), float("nan"))
    ans = answers(probs, threshold)
    unknown = unread(ans, y)
    wrong = wrong_answers(ans, y, top)
    error = np.where(y == COVERED, wrong, wrong | unknown)
    return Scores(name, len(y), float(error.mean()), float(wrong.mean()), float(unknown.mean()))


def family_table(
    probs: np.ndarray,
    y: np.ndarray,
    family: np.ndarray,
    threshold: float,
    prefix: str = "",
    top: np.ndarray | None = None,
) -> list[Scores]:
    """Scores per art family (visible squares only), all of them, and covered squares."""
    top = y if top is None else top
    rows = []
    visible = y != COVERED

    def row(label: str, mask: np.ndarray) -> Scores:
        return score(f"{prefix}{label}", probs[mask], y[mask], threshold, top[mask])

    for index, name in enumerate(FAMILIES):
        mask = visible & (family == index)
        if mask.any():
            rows.append(row(name, mask))
    fams = sorted({FAMILIES[i] for i in np.unique(family)})
    if len(fams) > 1:
        rows.append(row("all visible", visible))
    if (~visible).any():
        rows.append(row("covered squares", ~visible))
    return rows


def format_table(rows: list[Scores]) -> str:
    return "\n".join([HEADER, *(r.row() for r in rows)])


def time_call(fn: Callable[[], object], repeats: int = 200, warmup: int = 20) -> dict:
    """Median and 95th percentile wall time of ``fn()`` in milliseconds."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    ms = np.array(times) * 1000
    return {"median_ms": float(np.median(ms)), "p95_ms": float(np.percentile(ms, 95))}


def calibration_error(probs: np.ndarray, y: np.ndarray, bins: int = 15) -> float:
    """Expected calibration error: the mean gap between confidence and accuracy,
    over equal-width confidence bins weighted by their share of the squares.

    >>> round(calibration_error(np.array([[0.9, 0.1], [0.9, 0.1]]), np.array([0, 1])), 3)
    0.4
    """
    conf = probs.max(axis=1)
    right = probs.argmax(axis=1) == y
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(conf, edges[1:-1]), 0, bins - 1)
    total = 0.0
    for b in range(bins):
        mask = which == b
        if mask.any():
            total += mask.mean() * abs(conf[mask].mean() - right[mask].mean())
    return float(total)
