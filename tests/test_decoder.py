"""The constraint decoder: readings corrected by what the game guarantees."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import pos
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import ALL_TILES, Layout, Position, Seats, Tile
from vision.decoder import LABELS, GameContext, decode, one_hot

SEATS = Seats.parse("S=red,W=green,N=yellow,E=purple")


def probs_for(position: Position, weight: float = 0.999) -> dict[str, np.ndarray]:
    return {
        s: one_hot("empty" if t is None else str(t), weight) for s, t in position.squares.items()
    }


def mix(**labels: float) -> np.ndarray:
    """A probability vector from ``{"6♥": 0.6, "empty": 0.4}``-style keyword pairs."""
    p = np.full(len(LABELS), 1e-6)
    for label, weight in labels.items():
        p[LABELS.index(label)] = weight
    return p / p.sum()


def context(position: Position, player: str = "red", buried: str = "") -> GameContext:
    tiles = frozenset(Tile.parse(t) for t in buried.split())
    return GameContext(position, tiles, SEATS, player)


def test_labels_match_the_recognizer() -> None:
    from vision import recognizer

    assert recognizer.LABELS == LABELS


def test_unchanged_board() -> None:
    before = pos("b2=5h c2=9c")
    decision = decode(probs_for(before), context(before))
    assert decision.kind == "unchanged"
    assert decision.position == before


def test_clear_play_is_committed() -> None:
    before = pos("b2=5h")
    after = pos("b2=5h c2=6h")
    decision = decode(probs_for(after), context(before))
    assert decision.kind == "play"
    assert decision.position == after
    assert decision.result is not None and decision.result.points == 2
    assert decision.probability > 0.995


def test_a_tile_visible_elsewhere_cannot_appear() -> None:
    # The classifier thinks c2 shows 5♥, but 5♥ is on b2: the next best, 6♥, is taken.
    before = pos("b2=5h")
    probs = probs_for(before)
    probs["c2"] = mix(**{"5♥": 0.7, "6♥": 0.3})
    decision = decode(probs, context(before))
    assert decision.position["c2"] == Tile.parse("6h")


def test_a_buried_tile_cannot_reappear() -> None:
    before = pos("b2=5h")
    probs = probs_for(before)
    probs["c2"] = mix(**{"4♥": 0.6, "6♥": 0.4})
    decision = decode(probs, context(before, buried="4h"))
    assert decision.position["c2"] == Tile.parse("6h")


def test_a_tile_cannot_vanish() -> None:
    # A square that reads empty where a tile lay keeps its tile: tiles are never removed.
    before = pos("b2=5h c2=9c")
    probs = probs_for(before)
    probs["c2"] = mix(empty=0.9, **{"9♣": 0.1})
    decision = decode(probs, context(before))
    assert decision.kind == "unchanged"


def test_legality_breaks_a_close_call() -> None:
    # 6♥ (legal, joins 5♥) against 6♦ (no set): the legal reading wins but is asked
    # about, since the evidence alone is split.
    before = pos("b2=5h")
    probs = probs_for(before)
    probs["c2"] = mix(**{"6♦": 0.5, "6♥": 0.5})
    decision = decode(probs, context(before))
    assert decision.position["c2"] == Tile.parse("6h")
    assert decision.kind == "ask"
    assert "c2" in decision.uncertain_squares
    options = dict(decision.alternatives["c2"])
    assert options["6♥"] > options["6♦"]


def test_uncertain_reading_is_asked_not_scored() -> None:
    before = pos("b2=5h")
    probs = probs_for(before)
    probs["c2"] = mix(**{"6♥": 0.9, "6♠": 0.1})
    probs["c3"] = mix(**{"4♥": 0.8, "7♥": 0.2})  # 4♥ 5♥ 6♥ or 5♥ 6♥ 7♥: both legal
    decision = decode(probs, context(before))
    assert decision.kind == "ask"
    assert decision.reasons


def test_illegal_play_is_asked() -> None:
    before = pos("b2=5h")
    after = pos("b2=5h c2=9c")
    decision = decode(probs_for(after), context(before))
    assert decision.kind == "ask"
    assert any("illegal" in r for r in decision.reasons)


def test_duplicate_readings_resolved_by_uniqueness() -> None:
    before = pos("b2=5h")
    probs = probs_for(before)
    probs["c2"] = mix(**{"6♥": 0.95, "7♥": 0.05})
    probs["c3"] = mix(**{"6♥": 0.6, "7♥": 0.4})
    decision = decode(probs, context(before))
    assert decision.position["c2"] == Tile.parse("6h")
    assert decision.position["c3"] == Tile.parse("7h")


@pytest.mark.parametrize("seed", range(5))
def test_noisy_but_clear_readings_decode_exactly(seed: int) -> None:
    rng = np.random.default_rng(seed)
    before = pos("b2=5h b3=2c c2=9d c3=1s")
    after = pos("b2=5h b3=2c c2=9d c3=1s c1=6h")  # red's own bonus square, joins 5♥
    probs = {}
    for square, tile in after.squares.items():
        noise = rng.dirichlet(np.full(len(LABELS), 0.1)) * 0.01
        probs[square] = one_hot("empty" if tile is None else str(tile), 0.99) + noise
    decision = decode(probs, context(before))
    assert decision.kind == "play"
    assert decision.position == after


@st.composite
def noisy_views(draw: st.DrawFn) -> tuple[GameContext, dict[str, np.ndarray]]:
    """A board, some buried tiles, and random (often contradictory) readings."""
    tiles = draw(st.permutations(ALL_TILES))
    layout = Layout.load()
    squares = list(layout.squares)
    occupied = draw(st.lists(st.sampled_from(squares), unique=True, max_size=12))
    before = Position({s: tiles[i] for i, s in enumerate(occupied)}, layout)
    buried = frozenset(tiles[20 : 20 + draw(st.integers(0, 10))])
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    probs = {
        s: rng.dirichlet(np.full(len(LABELS), draw(st.sampled_from([0.05, 0.3, 1.0]))))
        for s in squares
    }
    return GameContext(before, buried, SEATS, "red"), probs


@given(noisy_views())
@settings(max_examples=150, deadline=None)
def test_decoded_boards_respect_the_game(view: tuple[GameContext, dict[str, np.ndarray]]) -> None:
    ctx, probs = view
    decision = decode(probs, ctx)
    after = decision.position
    visible_before = ctx.position.tiles()
    for square, tile in after.squares.items():
        before = ctx.position[square]
        if tile == before:
            continue
        if tile is None:
            # A tile taken off is an illegal play: never scored, always asked about.
            assert decision.kind == "ask", "a tile vanished"
            assert any(f"{square} was emptied" in reason for reason in decision.reasons)
            continue
        assert tile not in visible_before, "a visible tile moved"
        assert tile not in ctx.buried, "a buried tile came back"
    assert len(after.tiles()) == sum(t is not None for t in after.squares.values())  # unique
    assert 0.0 <= decision.probability <= 1.0
    if decision.kind == "play":
        assert decision.result is not None and decision.result.legal


def test_untouched_squares_keep_their_tile() -> None:
    # The classifier is torn on b2 between the 6♥ that lay there and a 6♦ (both would
    # make a legal play with the 6♣ placed on c2), but no hand went near b2 this
    # turn: it cannot have changed, and the play is scored.
    before = pos("b2=6h c3=5s")
    probs = probs_for(before.place({"c2": Tile.parse("6c")}))
    probs["b2"] = mix(**{"6♥": 0.8, "6♦": 0.2})
    touched_anywhere = decode(probs, context(before))
    assert touched_anywhere.kind == "ask" and "b2" in touched_anywhere.uncertain_squares
    untouched = frozenset(s for s in before.layout.squares if s != "c2")
    ctx = GameContext(before, frozenset(), SEATS, "red", untouched=untouched)
    decision = decode(probs, ctx)
    assert decision.kind == "play"
    assert decision.position["b2"] == Tile.parse("6h")
    assert decision.result is not None and decision.result.placed == {"c2": Tile.parse("6c")}


def test_a_tile_taken_off_is_asked_about_as_emptied_not_read_as_a_tile_nobody_put_down() -> None:
    from dataclasses import replace

    before = pos("b2=1d c2=10s b3=6d")
    probs = probs_for(pos("c2=10s b3=6d"))  # b2 read surely empty...
    probs["b2"] = mix(empty=0.9995, **{"10♣": 4e-4, "9♦": 1e-4})  # ...a stray tile or two
    decision = decode(probs, context(before))
    assert decision.kind == "ask"
    assert decision.position["b2"] is None
    assert any("b2 was emptied" in reason for reason in decision.reasons)
    # No hand went near b2: a tile cannot have left it; the reading is wrong.
    still = decode(probs, replace(context(before), untouched=frozenset({"b2"})))
    assert still.kind == "unchanged"


def test_a_square_with_something_over_it_is_kept_as_it_was_and_its_play_asked() -> None:
    # A cup on b2 in a steady view: not read as whatever tile the readings trace.
    before = pos("b2=5h c2=6h")
    probs = probs_for(before)
    probs["b2"] = mix(covered=0.9, **{"9♣": 0.06, "5♥": 0.04})
    assert decode(probs, context(before)).kind == "unchanged"  # nothing to ask about
    # Red puts 7♥ on b3 meanwhile: asked, since something (a still hand?) hides b2.
    probs["b3"] = one_hot("7♥", 0.999)
    decision = decode(probs, context(before))
    assert decision.kind == "ask" and "something lies over b2" in decision.reasons[-1]
    assert decision.position["b2"] == Tile.parse("5h") and decision.position["b3"] == Tile.parse(
        "7h"
    )


def test_a_tile_said_not_to_be_a_play_is_left_out_while_it_is_read_there() -> None:
    from dataclasses import replace

    before = pos("b2=5h c2=6h")
    spare = {"b1": Tile.parse("7x")}  # a spare 7★ lies on b1: "not a play"
    probs = probs_for(pos("b2=5h c2=6h b1=7x b3=7h"))  # red plays 7♥ on b3
    decision = decode(probs, replace(context(before), foreign=spare))
    assert decision.kind == "play" and decision.position["b1"] is None
    assert decision.position["b3"] == Tile.parse("7h")
    # The spare tile gone, a tile played on b1 is read as any other.
    probs = probs_for(pos("b2=5h c2=6h b1=4h"))
    decision = decode(probs, replace(context(before), foreign=spare))
    assert decision.position["b1"] == Tile.parse("4h")
