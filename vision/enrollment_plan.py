"""Which tile goes on which square in each photo a user takes to enrol a tile set.

Enrolment (:mod:`vision.enrollment`) learns a set from photos of known positions. A
plan a person can lay out without a list: on the standard board each photo holds one
suit, its values 1 to 10 in the board's square order (b1, c1, a2, ...), and two
squares stay empty, a different two in each photo, so that the empty board is seen on
most squares too. Five photos show all 50 tiles once, as the enrolment benchmark's
photos do (``python -m benchmarks.bench_enrolment``).

    >>> plan = enrolment_plan(Layout.load())
    >>> len(plan), sum(len(photo.tiles()) for photo in plan)
    (5, 50)
    >>> [str(plan[0][square]) for square in ("b1", "c1", "a2", "b2")], str(plan[4]["c4"])
    (['None', 'None', '1★', '2★'], '10♠')
"""

from __future__ import annotations

from engine import ALL_TILES, Layout, Position, Suit, Tile

EMPTY_PER_PHOTO = 2
"""Squares each photo leaves empty (the standard board's 12 squares hold 10 tiles)."""


def enrolment_plan(layout: Layout) -> tuple[Position, ...]:
    """The positions to photograph, in order: together they show every tile once."""
    squares = list(layout.squares)
    per_photo = max(1, len(squares) - EMPTY_PER_PHOTO)
    tiles = sorted(ALL_TILES, key=lambda tile: (list(Suit).index(tile.suit), tile.value))
    plan = []
    for photo, first in enumerate(range(0, len(tiles), per_photo)):
        chunk = tiles[first : first + per_photo]
        empty = {squares[(photo * EMPTY_PER_PHOTO + k) % len(squares)] for k in range(2)}
        free = [square for square in squares if square not in empty]
        placed: dict[str, Tile | None] = dict.fromkeys(squares)
        placed.update(zip(free, chunk, strict=False))
        plan.append(Position(placed, layout))
    return tuple(plan)


def plan_text(position: Position) -> str:
    """One photo of the plan in words, for a person laying it out.

    >>> plan_text(enrolment_plan(Layout.load())[0])
    'a2 1★, b2 2★, c2 3★, d2 4★, a3 5★, b3 6★, c3 7★, d3 8★, b4 9★, c4 10★; leave b1, c1 empty'
    """
    placed = [f"{square} {tile}" for square, tile in position.squares.items() if tile]
    empty = [square for square, tile in position.squares.items() if tile is None]
    return ", ".join(placed) + (f"; leave {', '.join(empty)} empty" if empty else "")
