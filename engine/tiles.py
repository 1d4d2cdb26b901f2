"""Tiles: the 50 card tiles of SETUP, five suits times the values 1 to 10.

A tile is written value-then-suit-symbol (``7♥``, ``10★``); input may also use
ASCII letters for the suit (``7h``, ``10X``)::

    >>> Tile.parse("7h")
    Tile(value=7, suit=<Suit.HEART: '♥'>)
    >>> str(Tile.parse("10x"))
    '10★'
    >>> sorted([Tile.parse("4♥"), Tile.parse("4♣"), Tile.parse("3★")])[0]
    Tile(value=3, suit=<Suit.STAR: '★'>)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import total_ordering


class TileError(ValueError):
    """A piece of text that is not a tile, with the offending token in the message."""


@total_ordering
class Suit(enum.Enum):
    """The five suits. Sorting goes by English name (club, diamond, heart, spade, star)."""

    STAR = "★"
    HEART = "♥"
    DIAMOND = "♦"
    CLUB = "♣"
    SPADE = "♠"

    @property
    def symbol(self) -> str:
        """The suit's symbol, as tiles are written (the ``♥`` of ``7♥``).

        >>> Suit.HEART.symbol, Suit.STAR.symbol
        ('♥', '★')
        """
        return self.value

    @property
    def letter(self) -> str:
        """The ASCII letter of the suit (``X`` for the star, which has no card letter)."""
        return _LETTER_OF_SUIT[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Suit):
            return NotImplemented
        return self.name < other.name


_LETTER_OF_SUIT = {
    Suit.STAR: "X",
    Suit.HEART: "H",
    Suit.DIAMOND: "D",
    Suit.CLUB: "C",
    Suit.SPADE: "S",
}
_SUIT_OF_TOKEN: dict[str, Suit] = {}
for _suit in Suit:
    _SUIT_OF_TOKEN[_suit.symbol] = _suit
    _SUIT_OF_TOKEN[_suit.letter.lower()] = _suit

_SUIT_INDEX = {suit: index for index, suit in enumerate(Suit)}
_SUIT_ORDER = {suit: index for index, suit in enumerate(sorted(Suit, key=lambda s: s.name))}

MIN_VALUE = 1
MAX_VALUE = 10
_VALUE_TOKENS = {str(value): value for value in range(MIN_VALUE, MAX_VALUE + 1)}


@total_ordering
@dataclass(frozen=True, slots=True)
class Tile:
    """One card tile. Tiles sort by value, then by suit name."""

    value: int
    suit: Suit
    # Hashing a (value, Suit) tuple costs a Python-level enum hash per lookup; the
    # engine hashes tiles in its inner loops, so keep one small int instead.
    _key: int = field(init=False, repr=False, compare=False)
    sort_key: int = field(init=False, repr=False, compare=False)
    """Orders tiles by value, then suit name: ``sorted(tiles, key=attrgetter("sort_key"))``."""

    def __post_init__(self) -> None:
        if not MIN_VALUE <= self.value <= MAX_VALUE:
            raise TileError(f"tile value must be 1..10, not {self.value}")
        object.__setattr__(self, "_key", self.value * 8 + _SUIT_INDEX[self.suit])
        object.__setattr__(self, "sort_key", self.value * 8 + _SUIT_ORDER[self.suit])

    def __hash__(self) -> int:
        return self._key

    @classmethod
    def of(cls, value: int, suit: Suit) -> Tile:
        """The shared instance of a tile (cheaper to compare), built once per tile."""
        try:
            return _INTERNED[value, suit]
        except KeyError:
            raise TileError(f"tile value must be 1..10, not {value}") from None

    @classmethod
    def parse(cls, text: str) -> Tile:
        """Read ``7♥``, ``7h``, ``10X`` and the like; raise :class:`TileError` otherwise."""
        # An emoji keyboard sends "♥" followed by a presentation selector: the same symbol.
        token = text.strip().replace("\ufe0f", "")
        if len(token) < 2:
            raise TileError(f"not a tile: {text!r}")
        digits, suit_token = token[:-1], token[-1].lower()
        suit = _SUIT_OF_TOKEN.get(suit_token)
        if suit is None or not digits.isascii() or not digits.isdigit():
            raise TileError(f"not a tile: {text!r} (expected e.g. 7♥ or 7H)")
        # The contract's notation has no leading zeros: "07h" is a typing slip, not 7♥.
        value = _VALUE_TOKENS.get(digits)
        if value is None and digits.startswith("0") and digits.lstrip("0") in _VALUE_TOKENS:
            raise TileError(f"not a tile: {text!r} (write the value without a leading zero)")
        if value is None:
            raise TileError(f"not a tile: {text!r} (values run from 1 to 10)")
        return cls.of(value, suit)

    @property
    def ascii(self) -> str:
        """The ASCII notation, ``7H``."""
        return f"{self.value}{self.suit.letter}"

    def __str__(self) -> str:
        return f"{self.value}{self.suit.symbol}"

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return self.sort_key < other.sort_key


_INTERNED: dict[tuple[int, Suit], Tile] = {
    (value, suit): Tile(value, suit) for suit in Suit for value in range(MIN_VALUE, MAX_VALUE + 1)
}

ALL_TILES: tuple[Tile, ...] = tuple(_INTERNED.values())
"""All 50 tiles, suit by suit in the order ★ ♥ ♦ ♣ ♠, values ascending."""
