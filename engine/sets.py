"""Sets: groups of top tiles that score, joined along the board's lines.

A set is at least two tiles, either

* **same value**: tiles of one value forming one connected group over the lines, or
* **run**: consecutive values of one suit, each tile joined to the next value's tile.

Only the top tile of each square counts. Because every tile is unique, the
largest set through a tile is unique too, so :func:`find_sets` returns the
*maximal* sets; any smaller set lies inside one of them::

    >>> from engine.position import Position
    >>> p = Position.from_json({"squares": {"b2": "4h", "b3": "5h", "c3": "6h", "a2": "4d"}})
    >>> [str(s) for s in find_sets(p)]
    ['run 4♥ 5♥ 6♥', 'same value 4♦ 4♥']
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from engine.position import Position
from engine.tiles import Tile


class SetKind(enum.Enum):
    RUN = "run"
    SAME_VALUE = "same value"


@dataclass(frozen=True, slots=True)
class TileSet:
    """One maximal set: its kind and its tiles (sorted), with the square of each tile."""

    kind: SetKind
    tiles: tuple[Tile, ...]
    squares: tuple[str, ...]

    def __contains__(self, tile: object) -> bool:
        return tile in self.tiles

    def __len__(self) -> int:
        return len(self.tiles)

    def __str__(self) -> str:
        return f"{self.kind.value} " + " ".join(str(t) for t in self.tiles)

    def to_json(self) -> list[str]:
        """The set as the contract writes it: its tiles in order, without kind or squares.

        >>> from engine.position import Position
        >>> p = Position.from_json({"squares": {"b2": "4h", "b3": "5h"}})
        >>> find_sets(p)[0].to_json()
        ['4♥', '5♥']
        """
        return [str(t) for t in self.tiles]


def find_sets(position: Position) -> tuple[TileSet, ...]:
    """Every maximal set on the board: runs first, then same-value groups, each sorted."""
    runs = sorted(_runs(position), key=_set_order)
    groups = sorted(_same_value_groups(position), key=_set_order)
    return (*runs, *groups)


def _set_order(tile_set: TileSet) -> tuple[int, ...]:
    return tuple(t.sort_key for t in tile_set.tiles)


def sets_through(position: Position, squares: Iterable[str]) -> tuple[TileSet, ...]:
    """The maximal sets that contain the top tile of at least one of ``squares``.

    Same answer as filtering :func:`find_sets`, but grows the sets from the given
    squares only, since scoring a turn needs just those.
    """
    runs: dict[tuple[str, ...], TileSet] = {}
    groups: dict[tuple[str, ...], TileSet] = {}
    for square in squares:
        tile = position[square]
        if tile is None:
            continue
        run = _run_through(position, tile, square)
        if run is not None:
            runs.setdefault(run.squares, run)
        group = _group_through(position, tile, square)
        if group is not None:
            groups.setdefault(group.squares, group)
    return (*sorted(runs.values(), key=_set_order), *sorted(groups.values(), key=_set_order))


def _run_through(position: Position, tile: Tile, square: str) -> TileSet | None:
    on_board = position.tiles()
    layout = position.layout
    bottom, bottom_square = tile, square
    while (below := _next_in_suit(bottom, -1)) is not None and layout.is_joined(
        on_board.get(below, ""), bottom_square
    ):
        bottom, bottom_square = below, on_board[below]
    return _run_from(position, bottom, bottom_square)


def _run_from(position: Position, tile: Tile, square: str) -> TileSet | None:
    """The run that starts at ``tile`` and climbs while each next value is joined."""
    on_board = position.tiles()
    layout = position.layout
    members = [(tile, square)]
    current, current_square = tile, square
    while (above := _next_in_suit(current, +1)) is not None and (
        above_square := on_board.get(above)
    ) is not None:
        if not layout.is_joined(current_square, above_square):
            break
        current, current_square = above, above_square
        members.append((current, current_square))
    return _make_set(SetKind.RUN, members) if len(members) >= 2 else None


def _group_through(position: Position, tile: Tile, square: str) -> TileSet | None:
    """The connected group of tiles of ``tile``'s value that holds ``square``."""
    layout = position.layout
    component = {square: tile}
    frontier = [square]
    while frontier:
        current = frontier.pop()
        for other in layout.neighbour_set(current):
            other_tile = position[other]
            if other_tile is not None and other not in component and other_tile.value == tile.value:
                component[other] = other_tile
                frontier.append(other)
    if len(component) < 2:
        return None
    return _make_set(SetKind.SAME_VALUE, ((t, s) for s, t in component.items()))


def _make_set(kind: SetKind, members: Iterable[tuple[Tile, str]]) -> TileSet:
    ordered = sorted(members, key=lambda member: member[0].sort_key)
    return TileSet(kind, tuple(t for t, _ in ordered), tuple(s for _, s in ordered))


def _runs(position: Position) -> list[TileSet]:
    on_board = position.tiles()
    layout = position.layout
    runs = []
    for tile, square in on_board.items():
        below = _next_in_suit(tile, -1)
        if below is not None and layout.is_joined(on_board.get(below, ""), square):
            continue  # not the bottom of its run
        run = _run_from(position, tile, square)
        if run is not None:
            runs.append(run)
    return runs


def _next_in_suit(tile: Tile, step: int) -> Tile | None:
    value = tile.value + step
    return Tile.of(value, tile.suit) if 1 <= value <= 10 else None


def _same_value_groups(position: Position) -> list[TileSet]:
    groups: dict[tuple[str, ...], TileSet] = {}
    for square, tile in position.squares.items():
        if tile is not None and not any(square in g for g in groups):
            group = _group_through(position, tile, square)
            if group is not None:
                groups[group.squares] = group
    return list(groups.values())
