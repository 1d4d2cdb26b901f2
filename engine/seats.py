"""Seats and teams: who sits at which edge, and who plays with whom.

A player is named by their colour. Seats are read from the contract's notation::

    >>> seats = Seats.parse("S=red,W=green,N=yellow,E=purple")
    >>> seats.players
    ('red', 'green', 'yellow', 'purple')
    >>> seats.edge_of("yellow")
    <Edge.NORTH: 'N'>
    >>> teams = Teams.parse("red+yellow,green+purple", seats)
    >>> teams.partner_of("green"), teams.turn_cycle
    ('purple', ('red', 'green', 'yellow', 'purple'))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.layout import CLOCKWISE, Edge, Layout


class SeatsError(ValueError):
    """Seats or teams that do not make a game, with the reason in the message."""


@dataclass(frozen=True)
class Seats:
    """The colour (player) at each occupied edge; 2 to 4 players."""

    by_edge: Mapping[Edge, str]

    def __post_init__(self) -> None:
        if not 2 <= len(self.by_edge) <= 4:
            raise SeatsError(f"a game needs 2 to 4 players, not {len(self.by_edge)}")
        colours = list(self.by_edge.values())
        for colour in colours:
            if not colour or colours.count(colour) > 1:
                raise SeatsError(f"each seat needs its own colour name, got {colour!r} twice")
        object.__setattr__(
            self, "by_edge", {e: self.by_edge[e] for e in CLOCKWISE if e in self.by_edge}
        )

    @classmethod
    def parse(cls, text: str) -> Seats:
        """Read ``S=red,W=green``."""
        if not text.strip():
            raise SeatsError("a game needs 2 to 4 players, not 0")
        by_edge: dict[Edge, str] = {}
        for part in text.split(","):
            edge_text, sep, colour = part.partition("=")
            if not sep or not colour.strip():
                raise SeatsError(f"bad seat {part.strip()!r}: expected EDGE=colour, e.g. S=red")
            try:
                edge = Edge.parse(edge_text)
            except ValueError as err:
                raise SeatsError(str(err)) from None
            if edge in by_edge:
                raise SeatsError(f"edge {edge.value} is given twice")
            colour = colour.strip()
            for mark in "=;,+":
                if mark in colour:
                    # "S=red;W=green" would otherwise be one player named "red;W=green".
                    raise SeatsError(
                        f"bad colour {colour!r}: a colour cannot hold {mark!r} "
                        "(separate the seats with commas, e.g. S=red,W=green)"
                    )
            by_edge[edge] = colour
        return cls(by_edge)

    @classmethod
    def from_json(cls, data: Any) -> Seats:
        """Read ``{"S": "red", "W": "green"}``."""
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise SeatsError('seats must be an object like {"S": "red", "W": "green"}')
        return cls.parse(",".join(f"{edge}={colour}" for edge, colour in data.items()))

    def to_json(self) -> dict[str, str]:
        """The contract's seats object, edge letter -> colour, clockwise from the south.

        >>> Seats.parse("N=yellow,S=red").to_json()
        {'S': 'red', 'N': 'yellow'}
        """
        return {edge.value: colour for edge, colour in self.by_edge.items()}

    @property
    def players(self) -> tuple[str, ...]:
        """Colours in clockwise seat order, starting from the south."""
        return tuple(self.by_edge.values())

    def edge_of(self, player: str) -> Edge:
        """The edge where ``player`` sits; :class:`SeatsError` if no such player plays.

        >>> seats = Seats.parse("S=red,W=green")
        >>> seats.edge_of("green")
        <Edge.WEST: 'W'>
        >>> try:
        ...     seats.edge_of("blue")
        ... except SeatsError as err:
        ...     print(err)
        no player 'blue' at the table (players: red, green)
        """
        for edge, colour in self.by_edge.items():
            if colour == player:
                return edge
        raise SeatsError(f"no player {player!r} at the table (players: {', '.join(self.players)})")

    def owner_of(self, square: str, layout: Layout) -> str | None:
        """The player whose bonus square this is, or None for a common or unowned square."""
        edge = layout.owners[square]
        return None if edge is None else self.by_edge.get(edge)

    def may_use(self, player: str, square: str, layout: Layout) -> bool:
        """Common squares, the player's own bonus squares and those of empty edges."""
        owner = self.owner_of(square, layout)
        return owner is None or owner == player


@dataclass(frozen=True)
class Teams:
    """The 2-against-2 game: two pairs of partners, in the order given."""

    pairs: tuple[tuple[str, str], tuple[str, str]]

    @classmethod
    def parse(cls, text: str, seats: Seats) -> Teams:
        """Read ``red+yellow,green+purple``.

        >>> seats = Seats.parse("S=red,W=green,N=yellow,E=purple")
        >>> Teams.parse("red+yellow, green+purple", seats).turn_cycle
        ('red', 'green', 'yellow', 'purple')
        """
        parts = [p.strip() for p in text.split(",")]
        pairs = [tuple(c.strip() for c in p.split("+")) for p in parts]
        if len(pairs) != 2 or not all(len(p) == 2 and all(p) for p in pairs):
            # Said in the form the user typed, not the JSON form from_pairs reads.
            raise SeatsError(
                f"teams must be two pairs of colours, e.g. red+yellow,green+purple (got {text!r})"
            )
        return cls.from_pairs(pairs, seats)

    @classmethod
    def from_pairs(cls, pairs: Any, seats: Seats) -> Teams:
        """Read the game file's ``teams``: two pairs that use each of the 4 players once.

        >>> seats = Seats.parse("S=red,W=green,N=yellow,E=purple")
        >>> Teams.from_pairs([["red", "yellow"], ["green", "purple"]], seats).pairs
        (('red', 'yellow'), ('green', 'purple'))
        """
        if (
            not isinstance(pairs, list | tuple)
            or len(pairs) != 2
            or not all(
                isinstance(p, list | tuple) and len(p) == 2 and all(isinstance(c, str) for c in p)
                for p in pairs
            )
        ):
            raise SeatsError('teams must be two pairs of colours, e.g. [["red", "yellow"], ...]')
        flat = [c for pair in pairs for c in pair]
        if len(seats.players) != 4:
            raise SeatsError("the team game needs 4 players")
        if sorted(flat) != sorted(seats.players):
            raise SeatsError(
                f"teams {'+'.join(pairs[0])},{'+'.join(pairs[1])} must use each player "
                f"exactly once (players: {', '.join(seats.players)})"
            )
        (a1, a2), (b1, b2) = pairs
        return cls(((str(a1), str(a2)), (str(b1), str(b2))))

    def to_json(self) -> list[list[str]]:
        """The game file's ``teams`` list, which :meth:`from_pairs` reads back.

        >>> seats = Seats.parse("S=red,W=green,N=yellow,E=purple")
        >>> Teams.parse("red+yellow,green+purple", seats).to_json()
        [['red', 'yellow'], ['green', 'purple']]
        """
        return [list(pair) for pair in self.pairs]

    @property
    def turn_cycle(self) -> tuple[str, str, str, str]:
        """The alternating order A1, B1, A2, B2."""
        (a1, a2), (b1, b2) = self.pairs
        return (a1, b1, a2, b2)

    def team_of(self, player: str) -> tuple[str, str]:
        """The pair ``player`` belongs to; :class:`SeatsError` if in neither.

        >>> Teams((("red", "yellow"), ("green", "purple"))).team_of("purple")
        ('green', 'purple')
        """
        for pair in self.pairs:
            if player in pair:
                return pair
        raise SeatsError(f"{player!r} is in no team")

    def partner_of(self, player: str) -> str:
        """The other player of ``player``'s team.

        >>> Teams((("red", "yellow"), ("green", "purple"))).partner_of("yellow")
        'red'
        """
        first, second = self.team_of(player)
        return second if player == first else first

    @staticmethod
    def name(pair: tuple[str, str]) -> str:
        """``team red+yellow``, as the contract writes a team winner."""
        return "team " + "+".join(pair)
