"""Turn analysis: what a play placed, whether it was legal, and what it scores.

Given the board before and after a player's turn, :func:`analyse_turn` finds the
placed tiles, checks them against the rules, and scores them: every tile in any
set that contains a placed tile scores 1 point (once), and every other player
gets 1 bonus point per bonus square of theirs whose top tile scored::

    >>> from engine.position import Position
    >>> from engine.seats import Seats
    >>> before = Position.from_json({"squares": {"b3": "5h", "b1": "4d", "a2": "4c"}})
    >>> after = Position.from_json(
    ...     {"squares": {"b3": "5h", "b1": "4d", "a2": "4c", "b2": "4h", "c3": "6h"}})
    >>> result = analyse_turn(before, after, Seats.parse("S=red,W=green"), "red")
    >>> result.legal, result.points, dict(result.bonus)
    (True, 5, {'green': 1})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from engine.position import Position
from engine.seats import Seats
from engine.sets import TileSet, sets_through
from engine.tiles import Tile

MAX_TILES_PER_TURN = 8
"""The online edition's cap on the tiles one play may place."""

MAX_BONUS_PER_PLAYER = 2


@dataclass(frozen=True)
class TurnResult:
    """Everything a play did: placed tiles, legality, the sets, points and bonus points."""

    player: str
    legal: bool
    errors: tuple[str, ...]
    placed: Mapping[str, Tile]
    points: int
    scoring_tiles: tuple[Tile, ...]
    sets: tuple[TileSet, ...]
    bonus: Mapping[str, int]
    bonus_squares: Mapping[str, tuple[str, ...]]
    """For each player in ``bonus``, their bonus squares whose top tile scored."""

    def to_json(self) -> dict[str, Any]:
        """The contract's turn object (section 5, ``setupcam score``)."""
        return {
            "legal": self.legal,
            "errors": list(self.errors),
            "placed": {square: str(tile) for square, tile in self.placed.items()},
            "points": self.points,
            "scoring_tiles": [str(t) for t in self.scoring_tiles],
            "sets": [s.to_json() for s in self.sets],
            "bonus": dict(self.bonus),
        }

    def explain(self) -> str:
        """A human-readable account, e.g. ``4♥ joins 5♥ 6♥ (run) ...: 5 points``.

        An illegal play scores nothing and is taken back; the account says so first,
        then what the tiles would make as placed, set by set."""
        if not self.placed:
            others = [e for e in self.errors if e != "nothing was placed"]
            if not others:
                return f"{self.player} placed nothing: that is no play, and it scores nothing."
            return (
                f"{self.player} placed nothing: illegal, so it scores nothing and is taken "
                f"back: {'; '.join(others)}."
            )
        placed = " ".join(str(t) for t in sorted(self.placed.values()))
        points = f"{self.points} point{'s' if self.points != 1 else ''}"
        if self.errors:
            account = f"{placed}: illegal, so it scores nothing and is taken back: "
            account += "; ".join(self.errors) + "."
            if self.sets:
                account += f" As placed, the tiles would make {points}: "
                account += "; ".join(self._set_by_set()) + "."
            return account
        joined, formed = [], []
        for tile_set in self.sets:
            others = [str(t) for t in tile_set.tiles if t not in self.placed.values()]
            if others:
                joined.append(f"{' '.join(others)} ({tile_set.kind.value})")
            elif len(tile_set.tiles) == len(self.placed):
                formed.append(f"a set ({tile_set.kind.value})")
            else:  # some of the placed tiles only: name them
                formed.append(f"{' '.join(map(str, tile_set.tiles))} ({tile_set.kind.value})")
        single = len(self.placed) == 1
        what = []
        if joined:
            what.append(("joins " if single else "join ") + " and ".join(joined))
        if formed:
            what.append("form " + " and ".join(formed))
        account = f"{placed} " + " and ".join(what) if what else f"{placed} forms no set"
        account += f": {points}"
        for player, bonus in self.bonus.items():
            squares = " and ".join(self.bonus_squares[player])
            verb = "scores" if len(self.bonus_squares[player]) == 1 else "score"
            account += f"; {player}'s {squares} {verb}: +{bonus} bonus for {player}"
        return account + "."

    def _set_by_set(self) -> list[str]:
        """Each set in words: the tiles placed in it, and the tiles they join."""
        words = []
        for tile_set in self.sets:
            mine = [str(t) for t in tile_set.tiles if t in self.placed.values()]
            others = [str(t) for t in tile_set.tiles if t not in self.placed.values()]
            kind = tile_set.kind.value
            if not others:
                words.append(f"{' '.join(mine)} form a set ({kind})")
            else:
                verb = "joins" if len(mine) == 1 else "join"
                words.append(f"{' '.join(mine)} {verb} {' '.join(others)} ({kind})")
        return words


def analyse_turn(
    before: Position,
    after: Position,
    seats: Seats,
    player: str,
    *,
    buried: frozenset[Tile] = frozenset(),
    max_tiles: int = MAX_TILES_PER_TURN,
) -> TurnResult:
    """Compare two positions and score the play ``player`` made between them.

    ``buried`` are the tiles known to lie under stacks; one of them appearing on
    top is reported, since it cannot have come from a hand.
    """
    seats.edge_of(player)  # raises for a player not at the table
    layout = after.layout
    errors: list[str] = []
    placed = _placed_tiles(before, after, errors)
    for square, tile in placed.items():
        if tile in buried:
            errors.append(f"{tile} on {square} is buried under a stack, so it cannot be played")

    if not placed and not errors:
        errors.append("nothing was placed")
    if len(placed) > max_tiles:
        errors.append(f"{len(placed)} tiles placed; at most {max_tiles} per turn")
    for square in placed:
        if not seats.may_use(player, square, layout):
            owner = seats.owner_of(square, layout)
            errors.append(f"{square} is {owner}'s bonus square; {player} may not place there")

    sets = sets_through(after, placed)
    for square, tile in placed.items():
        if not any(tile in s for s in sets):
            errors.append(f"{tile} on {square} is in no set")
    every_tile_in_a_set = all(any(t in s for s in sets) for t in placed.values())
    one_set_holds_all = any(all(t in s for t in placed.values()) for s in sets)
    if placed and every_tile_in_a_set and not one_set_holds_all:
        tiles = " ".join(str(t) for t in sorted(placed.values()))
        errors.append(f"the placed tiles {tiles} are not all in one set")

    scoring = sorted({t for tile_set in sets for t in tile_set.tiles}, key=attrgetter("sort_key"))
    bonus_squares = _scoring_bonus_squares(after, seats, player, frozenset(scoring))
    return TurnResult(
        player=player,
        legal=not errors,
        errors=tuple(errors),
        placed=placed,
        points=len(scoring),
        scoring_tiles=tuple(scoring),
        sets=sets,
        bonus={owner: min(len(sq), MAX_BONUS_PER_PLAYER) for owner, sq in bonus_squares.items()},
        bonus_squares=bonus_squares,
    )


def _placed_tiles(before: Position, after: Position, errors: list[str]) -> dict[str, Tile]:
    """Squares whose top tile changed, with the new tile; moves and emptied squares are errors."""
    was_on = before.tiles()
    now_on = after.tiles()
    placed: dict[str, Tile] = {}
    for square in after.layout.squares:
        old, new = before[square], after[square]
        if new == old:
            continue
        if new is None:
            if old is not None and old not in now_on:
                errors.append(f"{square} was emptied ({old} vanished)")
            continue
        placed[square] = new
        if new in was_on:
            errors.append(f"{new} moved from {was_on[new]} to {square}")
    return placed


def _scoring_bonus_squares(
    after: Position, seats: Seats, player: str, scoring: frozenset[Tile]
) -> dict[str, tuple[str, ...]]:
    """Other players' bonus squares whose top tile scored, by owner."""
    found: dict[str, tuple[str, ...]] = {}
    for edge, owner in seats.by_edge.items():
        if owner == player:
            continue
        squares = tuple(s for s in after.layout.bonus_squares(edge) if after[s] in scoring)
        if squares:
            found[owner] = squares
    return found
