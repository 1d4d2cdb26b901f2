"""Decide the position: the classifier's readings corrected by what the game guarantees.

The classifier reads each square on its own. The game knows more: every tile
exists once (visible or buried), a square only changes when a tile is placed on
top (from a hand: never a tile that is visible elsewhere or buried), and a play
is normally legal. :func:`decode` searches the likeliest positions under those
constraints and says whether the best one is sure enough to score, or whether
the players should be asked::

    >>> import numpy as np
    >>> from engine import Position, Seats
    >>> before = Position.from_json({"squares": {"b2": "5h"}})
    >>> probs = {s: one_hot("empty") for s in before.layout.squares}
    >>> probs["b2"], probs["c2"] = one_hot("5♥"), one_hot("6♥")
    >>> context = GameContext(before, frozenset(), Seats.parse("S=red,W=green"), "red")
    >>> decision = decode(probs, context)
    >>> decision.kind, str(decision.position["c2"])
    ('play', '6♥')
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from engine import ALL_TILES, Position, Seats, Tile, TurnResult, analyse_turn

LABELS: tuple[str, ...] = (*(str(t) for t in ALL_TILES), "empty", "covered")
"""The classifier's outputs, in order: the 50 tiles, then empty, then covered."""
EMPTY = LABELS.index("empty")
COVERED = LABELS.index("covered")
_TILE_INDEX = {tile: i for i, tile in enumerate(ALL_TILES)}

COMMIT_PROBABILITY = 0.995
"""A play is scored without asking only when the decoded position is at least this likely."""
ILLEGAL_PRIOR = 0.02
"""How much less likely an illegal play is than a legal one, before the evidence."""
UNTOUCHED_PRIOR = 1e-3
"""Odds of a new tile on a square no hand disturbed, against the readings' word."""
TAKEN_OFF_PRIOR = 0.05
"""Odds of a tile taken off its square (an illegal play, which the players are then
asked about), against the readings' word: a square read surely empty where a tile was
is asked about as emptied, not as a tile nobody put down."""
HIDDEN = 0.5
"""A square read "covered" at least this surely, in a steady view, has something over
it that is not a tile (a cup, a phone, or a hand held still): it is kept as it was, not
read as whatever tile the readings give a trace of, and a play seen meanwhile is asked
about (under a still hand, a tile may be going down)."""
_MIN_CANDIDATE = 1e-4  # per-square share below which a reading is not considered
_MAX_BRANCHING = 7  # squares explored jointly; the rest keep their best reading


def one_hot(label: str, weight: float = 1.0) -> np.ndarray:
    """A probability vector sure of ``label`` (for tests and manual input)."""
    p = np.full(len(LABELS), (1.0 - weight) / (len(LABELS) - 1))
    p[LABELS.index(str(Tile.parse(label)) if label not in ("empty", "covered") else label)] = weight
    return p


@dataclass(frozen=True)
class GameContext:
    """What the game knows when the camera looks: the board, buried tiles, whose turn."""

    position: Position
    buried: frozenset[Tile]
    seats: Seats
    player: str
    max_tiles: int = 8
    untouched: frozenset[str] = frozenset()
    """Squares nothing disturbed since the last steady view: a new tile there is
    next to impossible (the camera saw no hand put one down)."""
    game: int | None = None
    """Which game this is: another game (resumed or started on the dashboard) is not
    a move in this one."""
    turns: int = 0
    """How many turns the game has recorded: fewer than before is a turn undone."""
    foreign: Mapping[str, Tile] = field(default_factory=dict)
    """Squares where the players said a tile seen is not a play (a spare tile lying
    there), with that tile: while it is what the camera reads there, the square is kept
    as the game has it."""


@dataclass(frozen=True)
class Decision:
    """What the camera's stable view means for the game."""

    kind: Literal["unchanged", "play", "ask"]
    position: Position
    probability: float
    """Posterior probability of ``position`` among the positions considered."""
    result: TurnResult | None = None
    reasons: tuple[str, ...] = ()
    uncertain_squares: tuple[str, ...] = ()
    alternatives: Mapping[str, list[tuple[str | None, float]]] = field(default_factory=dict)


def _label_of(tile: Tile | None) -> int:
    return EMPTY if tile is None else _TILE_INDEX[tile]


def _square_candidates(
    probs: np.ndarray, current: Tile | None, placeable: frozenset[int], change_prior: float
) -> list[tuple[int, float]]:
    """Feasible labels for one square with their renormalised probabilities, best first.

    Feasible: what is there now, a tile that could come from a hand (weighted by
    ``change_prior``), or, where a tile lies, none (the tile taken off: weighted by
    ``change_prior`` and :data:`TAKEN_OFF_PRIOR`).
    """
    keep = _label_of(current)
    taken_off = [EMPTY] if current is not None else []
    indices = [keep, *sorted(placeable), *taken_off]
    weights = np.asarray(probs, np.float64)[indices] + 1e-12
    weights[1:] *= change_prior
    if taken_off:
        weights[-1] *= TAKEN_OFF_PRIOR
    weights = weights / weights.sum()
    order = np.argsort(-weights)
    return [(indices[i], float(weights[i])) for i in order if weights[i] >= _MIN_CANDIDATE] or [
        (keep, 1.0)
    ]


def _still_foreign(probs: np.ndarray, context: GameContext, square: str) -> bool:
    """The tile said not to be a play is still the likeliest reading of ``square``."""
    tile = context.foreign.get(square)
    return tile is not None and int(np.argmax(probs)) == _TILE_INDEX[tile]


def decode(
    probabilities: Mapping[str, np.ndarray],
    context: GameContext,
    *,
    commit_probability: float = COMMIT_PROBABILITY,
) -> Decision:
    """The likeliest position after the view, and whether to score it or ask."""
    before = context.position
    layout = before.layout
    visible = {_label_of(t) for t in before.tiles()}
    placeable = (
        frozenset(_TILE_INDEX[t] for t in ALL_TILES)
        - visible
        - {_TILE_INDEX[t] for t in context.buried}
    )
    hidden = [s for s in layout.squares if probabilities[s][COVERED] >= HIDDEN]
    candidates = {
        s: [(_label_of(before[s]), 1.0)]
        if s in hidden or _still_foreign(probabilities[s], context, s)
        else _square_candidates(
            probabilities[s],
            before[s],
            placeable,
            UNTOUCHED_PRIOR if s in context.untouched else 1.0,
        )
        for s in layout.squares
    }
    # Explore jointly the squares where the reading is in doubt; the others are settled.
    doubtful = sorted(
        (s for s in layout.squares if len(candidates[s]) > 1),
        key=lambda s: candidates[s][0][1],
    )[:_MAX_BRANCHING]
    options = [candidates[s][:3] if s in doubtful else candidates[s][:1] for s in layout.squares]

    scored: list[tuple[float, tuple[int, ...]]] = []
    for combo in itertools.product(*options):
        labels = tuple(label for label, _ in combo)
        new_tiles = [lab for lab in labels if lab < EMPTY and lab not in visible]
        if len(new_tiles) != len(set(new_tiles)):
            continue  # a tile cannot be on two squares
        log_p = sum(math.log(p) for _, p in combo)
        scored.append((log_p, labels))
    if not scored:  # every combination repeats a tile: keep the board as it was
        return Decision("unchanged", before, 0.0, reasons=("readings contradict each other",))

    positions: list[tuple[float, Position, TurnResult | None]] = []
    for log_p, labels in sorted(scored, reverse=True)[:200]:
        position = Position(
            {
                s: None if lab == EMPTY else ALL_TILES[lab]
                for s, lab in zip(layout.squares, labels, strict=True)
            },
            layout,
        )
        if position == before:
            positions.append((log_p, position, None))
            continue
        result = analyse_turn(
            before,
            position,
            context.seats,
            context.player,
            buried=context.buried,
            max_tiles=context.max_tiles,
        )
        prior = 0.0 if result.legal else math.log(ILLEGAL_PRIOR)
        positions.append((log_p + prior, position, result))

    best_log_p = max(p for p, _, _ in positions)
    total = sum(math.exp(p - best_log_p) for p, _, _ in positions)
    log_p, position, result = max(positions, key=lambda item: item[0])
    probability = 1.0 / total
    if result is None:
        return Decision("unchanged", position, probability)

    alternatives = _alternatives(positions, best_log_p, total, layout.squares)
    uncertain = tuple(
        s for s, options in alternatives.items() if options and options[0][1] < commit_probability
    )
    reasons: list[str] = []
    if not result.legal:
        reasons.append("the camera sees an illegal play: " + "; ".join(result.errors))
    for s in uncertain:
        shown = ", ".join(f"{t or 'empty'} {p:.0%}" for t, p in alternatives[s][:3])
        reasons.append(f"not sure of {s} ({shown})")
    if hidden:
        reasons.append(f"something lies over {', '.join(hidden)}: the camera cannot see under it")
    if probability < commit_probability and not reasons:
        reasons.append(f"the position is only {probability:.0%} certain")
    kind: Literal["play", "ask"] = "play" if not reasons else "ask"
    return Decision(
        kind,
        position,
        probability,
        result,
        tuple(reasons),
        uncertain,
        {s: alternatives[s] for s in uncertain} if uncertain else {},
    )


def _alternatives(
    positions: list[tuple[float, Position, TurnResult | None]],
    best_log_p: float,
    total: float,
    squares: tuple[str, ...],
) -> dict[str, list[tuple[str | None, float]]]:
    """Per square, the marginal probability of each tile over the positions considered."""
    marginals: dict[str, dict[str | None, float]] = {s: {} for s in squares}
    for log_p, position, _ in positions:
        weight = math.exp(log_p - best_log_p) / total
        for s in squares:
            tile = position[s]
            key = None if tile is None else str(tile)
            marginals[s][key] = marginals[s].get(key, 0.0) + weight
    return {
        s: sorted(m.items(), key=lambda item: -item[1]) for s, m in marginals.items() if len(m) > 1
    } | {s: list(m.items()) for s, m in marginals.items() if len(m) == 1}
