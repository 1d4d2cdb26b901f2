"""The Coloretto round tracker: rows, taking, golden joker, last round, 2 players."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.coloretto import ColorettoError, Table, Tableau
from engine.coloretto_game import LAST_ROUND, GameState, Row

SIX = ("blue", "brown", "green", "grey", "orange", "red")
SEVEN = (*SIX, "yellow")
FIVE = SIX[:5]


def three_players() -> GameState:
    return GameState.new(
        ["anna", "ben", "carla"], SIX, {"anna": ["green"], "ben": ["red"], "carla": ["blue"]}
    )


def two_players() -> GameState:
    return GameState.new(
        ["anna", "ben"], FIVE, {"anna": ["blue", "brown"], "ben": ["green", "grey"]}
    )


def test_new_game_3_players() -> None:
    g = three_players()
    assert g.rows == (Row(3), Row(3), Row(3))
    assert (g.current, g.starter, g.round) == ("anna", "anna", 1)
    assert g.cards_of("ben") == ("red",)
    assert not g.finished and not g.last_round


def test_new_game_2_players_uses_the_green_rows() -> None:
    g = two_players()
    assert [row.capacity for row in g.rows] == [1, 2, 3]


def test_new_game_5_players_first_player() -> None:
    names = ["a", "b", "c", "d", "e"]
    g = GameState.new(names, SEVEN, {n: [c] for n, c in zip(names, SEVEN, strict=False)}, first="c")
    assert len(g.rows) == 5
    assert (g.current, g.starter) == ("c", "c")


@pytest.mark.parametrize(
    ("players", "colours", "starting", "message"),
    [
        (["a"], SEVEN, {"a": ["blue"]}, "2 to 5 players"),
        (["a", "b", "c", "d", "e", "f"], SEVEN, {}, "2 to 5 players"),
        (["a", "a", "b"], SIX, {}, "named twice"),
        (["a", "b", "c"], SEVEN, {}, "3 players play with 6 different colours, not 7"),
        (["a", "b"], SIX, {}, "2 players play with 5"),
        (["a", "b", "c"], (*SIX[:5], "blue"), {}, "6 different colours"),
        (
            ["a", "b", "c"],
            SIX,
            {"a": ["blue"], "b": ["red"]},
            "c must start with 1 colour card, not none",
        ),
        (["a", "b", "c"], SIX, {"a": ["blue"], "b": ["red"], "c": ["red"]}, "all be different"),
        (["a", "b", "c"], SIX, {"a": ["blue"], "b": ["red"], "c": ["pink"]}, "'pink'"),
        (["a", "b", "c"], SIX, {"a": ["blue"], "b": ["red"], "c": ["joker"]}, "not a colour"),
        (["a", "b", "c"], SIX, {"a": ["blue"], "b": ["red"], "c": ["grey"], "d": []}, "'d'"),
        (["a", "b"], FIVE, {"a": ["blue", "blue"], "b": ["green", "grey"]}, "different colours"),
        (
            ["a", "b"],
            FIVE,
            {"a": ["blue"], "b": ["green", "grey"]},
            "a must start with 2 cards of different colours, not blue",
        ),
    ],
)
def test_new_game_validation(
    players: list[str], colours: tuple[str, ...], starting: dict[str, list[str]], message: str
) -> None:
    with pytest.raises(ColorettoError, match=message):
        GameState.new(players, colours, starting)


def test_two_players_may_start_with_the_same_colours_as_each_other() -> None:
    g = GameState.new(["a", "b"], FIVE, {"a": ["blue", "brown"], "b": ["blue", "brown"]})
    assert g.cards_of("b") == ("blue", "brown")


def test_unknown_first_player() -> None:
    with pytest.raises(ColorettoError, match="'zoe' is not playing"):
        GameState.new(["a", "b"], FIVE, {"a": ["blue", "brown"], "b": ["green", "grey"]}, "zoe")


def test_draw_places_and_passes_the_turn() -> None:
    g = three_players().draw("anna", "grey", 1)
    assert g.rows[1].cards == ("grey",)
    assert g.current == "ben"
    g = g.draw("ben", "joker", 1).draw("carla", "+2", 1)
    assert g.rows[1].cards == ("grey", "joker", "+2")
    assert g.current == "anna"


def test_a_row_holds_at_most_three() -> None:
    g = three_players().draw("anna", "grey", 0).draw("ben", "grey", 0).draw("carla", "grey", 0)
    with pytest.raises(ColorettoError, match="row 0 is full"):
        g.draw("anna", "grey", 0)


def test_when_every_row_is_full_only_taking_is_left() -> None:
    g = three_players()
    players = ["anna", "ben", "carla"]
    for i in range(9):
        g = g.draw(players[i % 3], SIX[i % 6], i // 3)
    for row in range(3):
        with pytest.raises(ColorettoError, match="is full"):
            g.draw("anna", "grey", row)
    g = g.take_row("anna", 2)
    assert g.cards_of("anna") == ("green", "blue", "brown", "green")


def test_bad_rows_and_turns() -> None:
    g = three_players()
    with pytest.raises(ColorettoError, match="it is anna's turn, not ben's"):
        g.draw("ben", "grey", 0)
    with pytest.raises(ColorettoError, match="'zoe' is not playing"):
        g.draw("zoe", "grey", 0)
    with pytest.raises(ColorettoError, match="no row 3"):
        g.draw("anna", "grey", 3)
    with pytest.raises(ColorettoError, match="no row -1"):
        g.take_row("anna", -1)
    with pytest.raises(ColorettoError, match="say which row"):
        g.draw("anna", "grey")
    with pytest.raises(ColorettoError, match="row 0 is empty"):
        g.take_row("anna", 0)
    with pytest.raises(ColorettoError, match="no extra card"):
        g.take_extra("anna", "grey")


def test_taking_a_row_sits_the_player_out() -> None:
    g = three_players().draw("anna", "grey", 0).take_row("ben", 0)
    assert g.sitting_out == ("ben",)
    assert g.cards_of("ben") == ("red", "grey")
    assert g.current == "carla"
    g = g.draw("carla", "orange", 1)
    assert g.current == "anna"  # ben is skipped
    with pytest.raises(ColorettoError, match="already taken this round by ben"):
        g.draw("anna", "grey", 0)
    with pytest.raises(ColorettoError, match="ben has taken a row and sits out"):
        g.draw("ben", "grey", 1)


def test_the_last_player_may_keep_drawing_then_starts_the_next_round() -> None:
    g = three_players().draw("anna", "grey", 0).take_row("ben", 0)
    g = g.draw("carla", "orange", 1).take_row("anna", 1)
    assert g.current == "carla"
    g = g.draw("carla", "grey", 2).draw("carla", "grey", 2)
    assert g.current == "carla"
    g = g.take_row("carla", 2)
    assert g.round == 2
    assert (g.current, g.starter) == ("carla", "carla")
    assert g.rows == (Row(3), Row(3), Row(3))
    assert g.sitting_out == ()
    assert g.cards_of("carla") == ("blue", "grey", "grey")
    assert g.out_of_game == ()


def test_golden_joker_takes_one_more_card() -> None:
    g = three_players().draw("anna", "golden_joker", 0).take_row("ben", 0)
    assert g.awaiting_extra and g.current == "ben"
    with pytest.raises(ColorettoError, match="must first turn up the extra card"):
        g.draw("ben", "grey", 1)
    with pytest.raises(ColorettoError, match="it is ben's turn"):
        g.take_extra("carla", "grey")
    g = g.take_extra("ben", "orange")
    assert not g.awaiting_extra
    assert g.cards_of("ben") == ("red", "golden_joker", "orange")
    assert g.current == "carla"
    assert g.tableau("ben") == Tableau.of({"red": 1, "orange": 1}, golden_joker=1)


def test_golden_joker_extra_card_can_be_the_last_round_card() -> None:
    g = three_players().draw("anna", "golden_joker", 0).take_row("ben", 0)
    g = g.take_extra("ben", LAST_ROUND)
    assert g.last_round and g.awaiting_extra
    g = g.take_extra("ben", "grey")
    assert g.cards_of("ben") == ("red", "golden_joker", "grey")


def test_golden_joker_on_the_last_row_ends_the_round_after_the_extra_card() -> None:
    g = three_players().draw("anna", "grey", 0).take_row("ben", 0)
    g = g.draw("carla", "grey", 1).take_row("anna", 1)
    g = g.draw("carla", "golden_joker", 2).take_row("carla", 2)
    assert g.round == 1 and g.awaiting_extra
    g = g.take_extra("carla", "joker")
    assert g.round == 2 and g.current == "carla"


def test_last_round_card() -> None:
    g = three_players()
    with pytest.raises(ColorettoError, match="set aside, not placed"):
        g.draw("anna", LAST_ROUND, 0)
    g = g.draw("anna", LAST_ROUND)
    assert g.last_round and g.current == "anna"  # she draws again
    with pytest.raises(ColorettoError, match="already come up"):
        g.draw("anna", LAST_ROUND)
    g = g.draw("anna", "grey", 0).take_row("ben", 0)
    g = g.draw("carla", "grey", 1).take_row("anna", 1)
    assert not g.finished
    g = g.draw("carla", "grey", 2).take_row("carla", 2)
    assert g.finished and g.current is None
    with pytest.raises(ColorettoError, match="the game is over"):
        g.draw("anna", "grey", 0)
    scores = g.scoresheet(Table.BROWN).best_scores()
    assert {name: s.total for name, s in scores.items()} == {"anna": 2, "ben": 2, "carla": 2}


def test_two_players_third_row_leaves_the_game() -> None:
    g = two_players()
    g = g.draw("anna", "orange", 0)
    with pytest.raises(ColorettoError, match="row 0 is full \\(1 of 1\\)"):
        g.draw("ben", "orange", 0)
    g = g.draw("ben", "orange", 1).draw("anna", "joker", 2).draw("ben", "orange", 1)
    with pytest.raises(ColorettoError, match="row 1 is full"):
        g.draw("anna", "grey", 1)
    g = g.take_row("anna", 1).take_row("ben", 0)
    assert g.round == 2 and g.current == "ben"
    assert g.out_of_game == ("joker",)
    assert [row.cards for row in g.rows] == [(), (), ()]
    # The joker that left the game still counts as out: only one more exists.
    g = g.draw("ben", "joker", 2)
    with pytest.raises(ColorettoError, match="all 2 'joker' cards are already out"):
        g.draw("anna", "joker", 2)


def test_cards_must_still_exist() -> None:
    g = three_players()
    with pytest.raises(ColorettoError, match="'yellow' is not a card of this game"):
        g.draw("anna", "yellow", 0)
    with pytest.raises(ColorettoError, match="'Grey' is not a card"):
        g.draw("anna", "Grey", 0)
    # anna starts with green: 8 more greens exist.
    players = ["anna", "ben", "carla"]
    turn = 0
    for row in range(3):
        for _ in range(3 if row < 2 else 2):
            g = g.draw(players[turn % 3], "green", row)
            turn += 1
    assert sum(hand.count("green") for hand in g.taken) == 1
    with pytest.raises(ColorettoError, match="all 9 'green' cards are already out"):
        g.draw(players[turn % 3], "green", 2)


def test_actions_do_not_change_the_old_state() -> None:
    g = three_players()
    g2 = g.draw("anna", "grey", 0)
    assert g.rows[0].cards == () and g.current == "anna"
    assert g2 != g


# --- a random walk through whole games --------------------------------------------


def remaining(g: GameState) -> Counter[str]:
    """The cards still in the deck, by kind."""
    left: Counter[str] = Counter({c: 9 for c in g.colours})
    left.update({"joker": 2, "golden_joker": 1, "+2": 10})
    seen = [c for hand in g.taken for c in hand]
    seen += [c for row in g.rows for c in row.cards] + list(g.out_of_game)
    left.subtract(seen)
    if not g.last_round:
        left[LAST_ROUND] = 1
    return +left


@given(st.integers(2, 5), st.data())
@settings(max_examples=60, deadline=None)
def test_random_games_keep_the_rules(players: int, data: st.DataObject) -> None:
    names = [f"p{i}" for i in range(players)]
    colours = SEVEN[: {2: 5, 3: 6}.get(players, 7)]
    if players == 2:
        starting = {"p0": [colours[0], colours[1]], "p1": [colours[2], colours[3]]}
    else:
        starting = {name: [colours[i]] for i, name in enumerate(names)}
    g = GameState.new(names, colours, starting)
    total_cards = sum(remaining(g).values()) + sum(len(h) for h in g.taken)
    assert total_cards == 9 * len(colours) + 2 + 1 + 10 + 1
    rounds_taken: dict[int, list[str]] = {}
    for _ in range(400):
        if g.finished:
            break
        player = g.current
        assert player is not None
        assert player not in g.sitting_out or g.awaiting_extra
        deck = sorted(remaining(g).elements())  # each card as likely as at a real table
        if not deck:
            break  # a real deck keeps 16 cards under the last round card; ours may run dry
        if g.awaiting_extra:
            card = data.draw(st.sampled_from(deck))
            g = g.take_extra(player, card)
            continue
        open_rows = [i for i, row in enumerate(g.rows) if row.is_open]
        assert open_rows
        can_draw = [i for i in open_rows if not g.rows[i].is_full]
        can_take = [i for i in open_rows if g.rows[i].cards]
        assert can_draw or can_take  # a player is never stuck
        if can_draw and (not can_take or data.draw(st.booleans())):
            card = data.draw(st.sampled_from(deck))
            row = None if card == LAST_ROUND else data.draw(st.sampled_from(can_draw))
            g = g.draw(player, card, row)
        else:
            round_before = g.round
            g = g.take_row(player, data.draw(st.sampled_from(can_take)))
            rounds_taken.setdefault(round_before, []).append(player)
            if g.round > round_before:
                assert g.starter == player and g.current == player
        # No card is created or lost.
        in_play = sum(len(h) for h in g.taken) + sum(len(r.cards) for r in g.rows)
        in_play += len(g.out_of_game) + sum(remaining(g).values()) + g.last_round
        assert in_play == total_cards
        assert all(len(row.cards) <= row.capacity for row in g.rows)
    for taken_by in rounds_taken.values():
        assert len(taken_by) == len(set(taken_by))  # one row per player per round
    if g.finished:
        assert sorted(rounds_taken[g.round]) == sorted(names)
        g.scoresheet(Table.PURPLE).best_scores()  # every end position scores
