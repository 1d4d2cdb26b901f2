"""Positions: the top tile on every square of a board.

A position knows only what a camera sees: one tile (or nothing) per square. The
tiles buried under stacks are the game record's business (:mod:`engine.game`)::

    >>> p = Position.from_json({"squares": {"b2": "5h", "c2": "4♦"}})
    >>> p["b2"], p["a3"]
    (Tile(value=5, suit=<Suit.HEART: '♥'>), None)
    >>> p.to_json()["squares"]["c2"]
    '4♦'
    >>> str(p.place({"a3": Tile.parse("6♥")})["a3"])
    '6♥'
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

from engine.layout import Layout
from engine.tiles import Tile, TileError


class PositionError(ValueError):
    """A position that cannot be read: unknown square, bad tile, a tile twice."""


@dataclass(frozen=True)
class Position:
    """The top tile of each square of ``layout`` (``None`` for an empty square)."""

    squares: Mapping[str, Tile | None]
    layout: Layout = field(default_factory=Layout.load, compare=False, repr=False)

    def __post_init__(self) -> None:
        # Every square present, in layout order, so two equal boards compare equal.
        unknown = [s for s in self.squares if s not in self.layout.rects]
        if unknown:
            raise PositionError(f"unknown square {unknown[0]!r} for layout {self.layout.name}")
        full = {s: self.squares.get(s) for s in self.layout.squares}
        seen: dict[Tile, str] = {}
        for square, tile in full.items():
            if tile is None:
                continue
            if tile in seen:
                raise PositionError(f"tile {tile} appears twice (on {seen[tile]} and {square})")
            seen[tile] = square
        object.__setattr__(self, "squares", _FrozenMap(full))

    @classmethod
    def empty(cls, layout: Layout | None = None) -> Position:
        """A board with no tiles on it (the shipped layout unless ``layout`` is given).

        >>> str(Position.empty())
        '(empty)'
        """
        layout = layout or Layout.load()
        return cls({}, layout)

    @classmethod
    def from_json(
        cls, data: Any, layout: Layout | None = None, origin: str = "position"
    ) -> Position:
        """Read the contract's position object; empty squares may be omitted."""
        layout = layout or Layout.load()
        if not isinstance(data, dict) or not isinstance(data.get("squares"), dict):
            raise PositionError(f"{origin}: expected an object with 'squares'")
        named = data.get("layout")
        if named is not None and named != layout.name:
            raise PositionError(
                f"{origin}: position is for layout {named!r}, but layout {layout.name!r} is in use"
            )
        squares: dict[str, Tile | None] = {}
        for square, text in data["squares"].items():
            if square not in layout.rects:
                raise PositionError(f"{origin}: unknown square {square!r}")
            if text is None:
                squares[square] = None
                continue
            if text == "":
                raise PositionError(
                    f"{origin}: square {square}: not a tile: '' (an empty square is null)"
                )
            if not isinstance(text, str):
                raise PositionError(f"{origin}: square {square}: not a tile: {text!r}")
            try:
                squares[square] = Tile.parse(text)
            except TileError as err:
                raise PositionError(f"{origin}: square {square}: {err}") from None
        try:
            return cls(squares, layout)
        except PositionError as err:
            raise PositionError(f"{origin}: {err}") from None

    def to_json(self) -> dict[str, Any]:
        """The contract's position object, every square named (``None`` when empty).

        :meth:`from_json` reads it back:

        >>> p = Position.from_json({"squares": {"b2": "5h"}})
        >>> data = p.to_json()
        >>> data["layout"], data["squares"]["b2"], data["squares"]["c2"]
        ('setup-standard', '5♥', None)
        >>> Position.from_json(data) == p
        True
        """
        return {
            "layout": self.layout.name,
            "squares": {s: None if t is None else str(t) for s, t in self.squares.items()},
        }

    def __getitem__(self, square: str) -> Tile | None:
        return self.squares[square]

    def tiles(self) -> Mapping[Tile, str]:
        """Every visible tile and the square it is on (read-only)."""
        return self._tiles

    @cached_property
    def _tiles(self) -> Mapping[Tile, str]:
        return MappingProxyType(
            {tile: square for square, tile in self.squares.items() if tile is not None}
        )

    def place(self, placements: Mapping[str, Tile]) -> Position:
        """A new position with ``placements`` put on top of their squares."""
        return Position({**self.squares, **placements}, self.layout)

    def __str__(self) -> str:
        return " ".join(f"{s}={t}" for s, t in self.squares.items() if t is not None) or "(empty)"


class _FrozenMap(Mapping[str, "Tile | None"]):
    """A read-only, hashable mapping, so a Position can be a dict key or set member."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[str, Tile | None]) -> None:
        self._data = dict(data)
        self._hash: int | None = None

    def __getitem__(self, key: str) -> Tile | None:
        return self._data[key]

    # The Mapping mixins go through __iter__ and __getitem__ one key at a time.
    def items(self) -> ItemsView[str, Tile | None]:
        return self._data.items()

    def values(self) -> ValuesView[Tile | None]:
        return self._data.values()

    def keys(self) -> KeysView[str]:
        return self._data.keys()

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(tuple(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Mapping):
            return dict(self._data) == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return repr(self._data)
