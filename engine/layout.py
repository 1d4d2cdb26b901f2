"""Layouts: the squares of a board, the white lines that join them, and who owns which.

The default board is ``setup-standard`` (contract section 2), shipped as data in
``engine/layouts/``. A user whose board's lines differ supplies their own file in
the same format; it is checked square by square with clear errors::

    >>> layout = Layout.load()
    >>> layout.name, len(layout.squares)
    ('setup-standard', 12)
    >>> layout.is_joined("b2", "c3"), layout.is_joined("b1", "b4")
    (True, False)
    >>> layout.bonus_squares(Edge.SOUTH)
    ('b1', 'c1')
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

DEFAULT_LAYOUT = "setup-standard"


class LayoutError(ValueError):
    """A layout file that cannot be used, with the reason in the message."""


class Edge(enum.Enum):
    """A side of the board, where a player sits. Clockwise order is S, W, N, E."""

    SOUTH = "S"
    WEST = "W"
    NORTH = "N"
    EAST = "E"

    @classmethod
    def parse(cls, text: str) -> Edge:
        """Read ``S`` or ``south`` (any case)."""
        token = text.strip().upper()
        for edge in cls:
            if token in (edge.value, edge.name):
                return edge
        raise LayoutError(f"not a board edge: {text!r} (use S, W, N or E)")

    def clockwise_next(self) -> Edge:
        """The next edge clockwise: S, W, N, E, then round to S again.

        >>> Edge.SOUTH.clockwise_next(), Edge.EAST.clockwise_next()
        (<Edge.WEST: 'W'>, <Edge.SOUTH: 'S'>)
        """
        order = list(Edge)
        return order[(order.index(self) + 1) % 4]


CLOCKWISE: tuple[Edge, ...] = tuple(Edge)

_SHIPPED: dict[str, Layout] = {}


@dataclass(frozen=True, slots=True)
class Rect:
    """An axis-aligned rectangle in board coordinates (unit square, origin north-west, y south)."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def center(self) -> tuple[float, float]:
        """The middle of the rectangle, ``(x, y)``.

        >>> Rect(0.25, 0.5, 0.75, 1.0).center
        (0.5, 0.75)
        """
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    @property
    def corners(self) -> tuple[tuple[float, float], ...]:
        """North-west, north-east, south-east, south-west."""
        return ((self.x0, self.y0), (self.x1, self.y0), (self.x1, self.y1), (self.x0, self.y1))


@dataclass(frozen=True)
class Layout:
    """A board: named squares with their rectangles and owners, and the lines joining them."""

    name: str
    squares: tuple[str, ...]
    rects: Mapping[str, Rect]
    owners: Mapping[str, Edge | None]
    lines: frozenset[frozenset[str]]
    _joined: Mapping[str, frozenset[str]] = field(
        init=False, repr=False, compare=False, default_factory=dict
    )

    @classmethod
    def load(cls, name: str = DEFAULT_LAYOUT) -> Layout:
        """A layout shipped with setupcam, by name. A user's layout file is read at the
        edge (``setupcam.inputs.read_layout``) and given to :meth:`from_dict`.

        >>> try:
        ...     Layout.load("no-such-board")
        ... except LayoutError as err:
        ...     print(err)
        unknown layout 'no-such-board': not shipped (give a layout file)
        """
        if name in _SHIPPED:
            return _SHIPPED[name]
        shipped = resources.files("engine").joinpath("layouts", f"{name}.json")
        if not shipped.is_file():
            raise LayoutError(f"unknown layout {name!r}: not shipped (give a layout file)")
        layout = cls.from_dict(json.loads(shipped.read_text(encoding="utf-8")), origin=name)
        _SHIPPED[name] = layout  # shipped layouts never change: load each once
        return layout

    @property
    def is_shipped(self) -> bool:
        """This is a layout shipped with setupcam, square for square and line for line,
        not a user's board that shares its name.

        >>> Layout.load().is_shipped
        True
        """
        try:
            return Layout.load(self.name) == self
        except LayoutError:
            return False

    def to_dict(self) -> dict[str, Any]:
        """The layout file's JSON form, which :meth:`from_dict` reads back.

        >>> Layout.from_dict(Layout.load().to_dict()) == Layout.load()
        True
        """
        return {
            "name": self.name,
            "squares": {
                square: {
                    "rect": [rect.x0, rect.y0, rect.x1, rect.y1],
                    "owner": None if owner is None else owner.value,
                }
                for square, rect, owner in (
                    (s, self.rects[s], self.owners[s]) for s in self.squares
                )
            },
            "lines": sorted(sorted(line) for line in self.lines),
        }

    @classmethod
    def from_dict(cls, data: Any, origin: str = "layout") -> Layout:
        """Read a layout file's JSON object (the form :meth:`to_dict` writes), checking it.

        A bad file raises :class:`LayoutError`, its message starting with ``origin``.

        >>> squares = {"x": {"rect": [0, 0, 0.5, 1], "owner": "S"},
        ...            "y": {"rect": [0.5, 0, 1, 1], "owner": None}}
        >>> Layout.from_dict({"name": "tiny", "squares": squares, "lines": [["x", "y"]]}).squares
        ('x', 'y')
        >>> try:
        ...     Layout.from_dict({"name": "tiny", "squares": {}}, origin="my-board.json")
        ... except LayoutError as err:
        ...     print(err)
        my-board.json: 'squares' must be an object of square name -> details
        """
        if not isinstance(data, dict):
            raise LayoutError(f"{origin}: a layout must be a JSON object")
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise LayoutError(f"{origin}: 'name' must be a non-empty string")
        raw_squares = data.get("squares")
        if not isinstance(raw_squares, dict) or not raw_squares:
            raise LayoutError(f"{origin}: 'squares' must be an object of square name -> details")
        rects: dict[str, Rect] = {}
        owners: dict[str, Edge | None] = {}
        for square, details in raw_squares.items():
            rects[square], owners[square] = _parse_square(origin, square, details)
        lines = _parse_lines(origin, data.get("lines"), rects)
        for edge in Edge:
            count = sum(1 for owner in owners.values() if owner is edge)
            if count > 2:
                raise LayoutError(f"{origin}: edge {edge.value} owns {count} bonus squares (max 2)")
        return cls(name, tuple(raw_squares), rects, owners, lines)

    def __post_init__(self) -> None:
        # Set lookups on a frozenset pair are the engine's inner loop: index them once.
        joined = {
            s: frozenset(o for line in self.lines if s in line for o in line if o != s)
            for s in self.squares
        }
        object.__setattr__(self, "_joined", joined)

    def is_joined(self, a: str, b: str) -> bool:
        """Whether a line joins squares ``a`` and ``b``; False for a square not on the board.

        >>> layout = Layout.load()
        >>> layout.is_joined("b1", "c2"), layout.is_joined("b1", "c4"), layout.is_joined("", "b1")
        (True, False, False)
        """
        joined = self._joined.get(a)
        return joined is not None and b in joined

    def neighbour_set(self, square: str) -> frozenset[str]:
        """The squares joined to ``square``, as a set (fast membership)."""
        return self._joined[square]

    def neighbours(self, square: str) -> tuple[str, ...]:
        """The squares joined to ``square`` by a line, in layout order.

        >>> Layout.load().neighbours("b1")
        ('c1', 'a2', 'b2', 'c2')
        """
        return tuple(s for s in self.squares if s in self._joined[square])

    def bonus_squares(self, edge: Edge) -> tuple[str, ...]:
        """The bonus squares of the player seated at ``edge``, in layout order.

        >>> Layout.load().bonus_squares(Edge.WEST)
        ('a2', 'a3')
        """
        return tuple(s for s in self.squares if self.owners[s] is edge)

    def is_common(self, square: str) -> bool:
        """Whether ``square`` belongs to no edge: a common square, open to every player.

        >>> Layout.load().is_common("b2"), Layout.load().is_common("b1")
        (True, False)
        """
        return self.owners[square] is None


def _parse_square(origin: str, square: str, details: Any) -> tuple[Rect, Edge | None]:
    where = f"{origin}: square {square!r}"
    if not isinstance(details, dict):
        raise LayoutError(f"{where}: expected an object with 'rect' and 'owner'")
    rect = details.get("rect")
    if (
        not isinstance(rect, list)
        or len(rect) != 4
        or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in rect)
    ):
        raise LayoutError(f"{where}: 'rect' must be [x0, y0, x1, y1] in board units")
    x0, y0, x1, y1 = (float(v) for v in rect)
    if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
        raise LayoutError(f"{where}: 'rect' must lie inside the unit square with x0<x1, y0<y1")
    owner = details.get("owner")
    if owner is not None and not isinstance(owner, str):
        raise LayoutError(f"{where}: 'owner' must be null or one of S, W, N, E")
    try:
        edge = None if owner is None else Edge(owner)
    except ValueError:
        raise LayoutError(f"{where}: 'owner' must be null or one of S, W, N, E") from None
    return Rect(x0, y0, x1, y1), edge


def _parse_lines(origin: str, raw: Any, rects: Mapping[str, Rect]) -> frozenset[frozenset[str]]:
    if not isinstance(raw, list):
        raise LayoutError(f"{origin}: 'lines' must be a list of [square, square] pairs")
    lines = set()
    for pair in raw:
        if not (
            isinstance(pair, list) and len(pair) == 2 and all(isinstance(s, str) for s in pair)
        ):
            raise LayoutError(f"{origin}: line {pair!r} must be a pair of square names")
        for square in pair:
            if square not in rects:
                raise LayoutError(f"{origin}: line {pair!r} names unknown square {square!r}")
        if pair[0] == pair[1]:
            raise LayoutError(f"{origin}: line {pair!r} joins a square to itself")
        lines.add(frozenset(pair))
    return frozenset(lines)
