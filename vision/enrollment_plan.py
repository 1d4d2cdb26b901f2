"""Which tile goes on which square in each photo a user takes to enrol a tile set.

Enrolment (:mod:`vision.enrollment`) learns a set from photos of known positions. A
plan a person can lay out without a list: on the standard board each photo holds one
suit, its values 1 to 10 in the board's square order (b1, c1, a2, ...), and two
squares stay empty. Five photos show all 50 tiles once, as the enrolment benchmark's
photos do (``python -m benchmarks.bench_enrolment --plan``).

The empty squares tell the photos apart, whichever way round the board lies: no two
photos leave squares empty that a turn of the board would swap, and no photo's pair
looks the same turned. So a photo can be checked against the plan (tile or empty on
every square) without knowing which edge is south, and a photo of the wrong suit's
layout never passes for another.

    >>> plan = enrolment_plan(Layout.load())
    >>> len(plan), sum(len(photo.tiles()) for photo in plan)
    (5, 50)
    >>> [str(plan[0][square]) for square in ("b1", "c1", "a2", "b2")], str(plan[4]["c4"])
    (['None', 'None', '1★', '2★'], '10♠')
"""

from __future__ import annotations

import itertools

from engine import ALL_TILES, Layout, Position, Suit, Tile

EMPTY_PER_PHOTO = 2
"""Squares each photo leaves empty (the standard board's 12 squares hold 10 tiles)."""


def enrolment_plan(layout: Layout) -> tuple[Position, ...]:
    """The positions to photograph, in order: together they show every tile once."""
    squares = list(layout.squares)
    per_photo = max(1, len(squares) - EMPTY_PER_PHOTO)
    tiles = sorted(ALL_TILES, key=lambda tile: (list(Suit).index(tile.suit), tile.value))
    photos = -(-len(tiles) // per_photo)
    empties = _empty_squares(layout, photos)
    plan = []
    for photo, first in enumerate(range(0, len(tiles), per_photo)):
        chunk = tiles[first : first + per_photo]
        free = [square for square in squares if square not in empties[photo]]
        placed: dict[str, Tile | None] = dict.fromkeys(squares)
        placed.update(zip(free, chunk, strict=False))
        plan.append(Position(placed, layout))
    return tuple(plan)


def quarter_turns(layout: Layout) -> list[dict[str, str]]:
    """Where each square goes when the board is turned by 0, 1, 2 and 3 quarter turns
    (about its centre); only the turns that map every square onto a square.

    >>> [turn["b1"] for turn in quarter_turns(Layout.load())]
    ['b1', 'a3', 'c4', 'd2']
    """
    centres = {square: layout.rects[square].center for square in layout.squares}
    turns = []
    for k in range(4):
        mapping = {}
        for square, (x, y) in centres.items():
            for _ in range(k):
                x, y = 1 - y, x
            near = [s for s, (u, v) in centres.items() if abs(u - x) + abs(v - y) < 1e-6]
            if near:
                mapping[square] = near[0]
        if len(mapping) == len(centres):
            turns.append(mapping)
    return turns


def _empty_squares(layout: Layout, photos: int) -> list[frozenset[str]]:
    """Each photo's empty squares: pairs no turn of the board takes onto another
    photo's pair or onto themselves, each square empty in one photo at most while
    there are squares enough; else (a board no pairs fit) pairs in square order."""
    squares = list(layout.squares)
    turns = quarter_turns(layout)
    chosen: list[frozenset[str]] = []
    taken: set[frozenset[str]] = set()  # the chosen pairs, turned every way
    for a, b in itertools.combinations(squares, 2):
        if len(chosen) == photos:
            break
        pair = frozenset((a, b))
        turned = {frozenset(turn[s] for s in pair) for turn in turns}
        if len(turned) < len(turns) or turned & taken or any(pair & c for c in chosen):
            continue
        chosen.append(pair)
        taken |= turned
    if len(chosen) < photos:
        return [
            frozenset(squares[(p * EMPTY_PER_PHOTO + k) % len(squares)] for k in range(2))
            for p in range(photos)
        ]
    return chosen


def plan_text(position: Position) -> str:
    """One photo of the plan in words, for a person laying it out.

    >>> plan_text(enrolment_plan(Layout.load())[0])
    'a2 1★, b2 2★, c2 3★, d2 4★, a3 5★, b3 6★, c3 7★, d3 8★, b4 9★, c4 10★; leave b1, c1 empty'
    """
    placed = [f"{square} {tile}" for square, tile in position.squares.items() if tile]
    empty = [square for square, tile in position.squares.items() if tile is None]
    return ", ".join(placed) + (f"; leave {', '.join(empty)} empty" if empty else "")
