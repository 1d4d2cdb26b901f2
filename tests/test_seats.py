"""Seats (contract section 4): the colour at each edge, read from ``S=red,W=green``."""

from __future__ import annotations

import pytest

from engine import Edge, Seats, SeatsError


def test_seats_are_kept_clockwise_from_the_south() -> None:
    seats = Seats.parse("N=yellow, S=red ,E=purple,W=green")
    assert seats.players == ("red", "green", "yellow", "purple")
    assert seats.edge_of("yellow") is Edge.NORTH
    assert Seats.from_json(seats.to_json()) == seats


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "2 to 4 players, not 0"),
        ("S=red", "2 to 4 players, not 1"),
        ("S=red,S=green", "edge S is given twice"),
        ("S=red,W=red", "'red' twice"),
        ("S=red,W", "bad seat 'W'"),
        ("S=red;W=green,N=blue", "bad colour 'red;W=green'"),
        ("S=red+blue,N=green", "cannot hold '+'"),
    ],
)
def test_bad_seats_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(SeatsError, match=message.replace("+", r"\+")):
        Seats.parse(text)
