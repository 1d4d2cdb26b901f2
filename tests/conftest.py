"""Shared test helpers: build positions from short strings."""

from __future__ import annotations

import pytest

from engine import Layout, Position, Seats


def pos(text: str = "") -> Position:
    """``pos("b2=4h c3=6h")``: a position on the standard layout."""
    squares = dict(part.split("=") for part in text.split())
    return Position.from_json({"squares": squares})


@pytest.fixture
def layout() -> Layout:
    return Layout.load()


@pytest.fixture
def four_seats() -> Seats:
    return Seats.parse("S=red,W=green,N=yellow,E=purple")
