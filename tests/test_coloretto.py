"""Coloretto scoring: the tables, the best choice, ties, validation, properties."""

from __future__ import annotations

import doctest
from itertools import combinations, combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.coloretto
import engine.coloretto_game
from engine.coloretto import (
    Choice,
    ColorettoError,
    Scoresheet,
    Table,
    Tableau,
    best_score,
    colours_in_play,
    explain,
    row_capacities,
    score_choice,
)


@pytest.mark.parametrize("module", [engine.coloretto, engine.coloretto_game])
def test_docstring_examples(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]


RULEBOOK = Tableau.of({"green": 6, "yellow": 4, "red": 3, "blue": 2}, jokers=1, plus_two=1)


def test_rulebook_example_gives_41_with_the_joker_on_yellow() -> None:
    best = best_score(RULEBOOK, Table.BROWN)
    assert best.total == 41
    assert best.choice == Choice(("green", "red", "yellow"), ("yellow",))
    assert best.joker_counts == {"yellow": 1}
    assert dict(best.by_colour) == {"green": 21, "yellow": 15, "red": 6, "blue": -3}
    assert best.plus_two_points == 2
    assert best.ties == 0
    assert best.as_dict() == {
        "total": 41,
        "positive": ["green", "red", "yellow"],
        "jokers": {"yellow": 1},
        "by_colour": {"blue": -3, "green": 21, "red": 6, "yellow": 15},
    }


def test_rulebook_example_joker_on_green_is_worth_less() -> None:
    # Green is already at the 6-card maximum: the joker there is wasted.
    on_green = score_choice(RULEBOOK, Table.BROWN, Choice(("green", "red", "yellow"), ("green",)))
    assert on_green.total == 21 + 10 + 6 - 3 + 2


BROWN = {0: 0, 1: 1, 2: 3, 3: 6, 4: 10, 5: 15, 6: 21, 7: 21, 8: 21, 9: 21}
PURPLE = {0: 0, 1: 1, 2: 4, 3: 8, 4: 7, 5: 6, 6: 5, 7: 5, 8: 5, 9: 5}


@pytest.mark.parametrize(
    ("table", "cards", "points"),
    [(Table.BROWN, n, p) for n, p in BROWN.items()]
    + [(Table.PURPLE, n, p) for n, p in PURPLE.items()],
)
def test_every_table_entry(table: Table, cards: int, points: int) -> None:
    assert table.points(cards) == points
    if cards:
        # A lone colour scores positive; the same colour as a 4th colour scores negative.
        assert best_score(Tableau.of({"x": cards}), table).total == points
        four = Tableau.of({"a": 9, "b": 9, "c": 9, "x": cards})
        chosen = score_choice(four, table, Choice(("a", "b", "c")))
        assert dict(chosen.by_colour)["x"] == -points
        assert chosen.total == 3 * table.points(9) - points


def test_table_parse() -> None:
    assert Table.parse("brown") is Table.BROWN
    assert Table.parse(" PURPLE ") is Table.PURPLE
    with pytest.raises(ColorettoError, match="unknown table 'red'"):
        Table.parse("red")
    with pytest.raises(ColorettoError, match="unknown table"):
        Table.parse(None)


def test_player_count_variants() -> None:
    assert [colours_in_play(n) for n in (2, 3, 4, 5)] == [5, 6, 7, 7]
    assert row_capacities(2) == (1, 2, 3)
    assert row_capacities(3) == (3, 3, 3)
    assert row_capacities(5) == (3,) * 5
    for bad in (1, 6, True, "4"):
        with pytest.raises(ColorettoError, match="2 to 5 players"):
            row_capacities(bad)  # type: ignore[arg-type]


def test_fewer_than_three_colours_all_score_positive() -> None:
    best = best_score(Tableau.of({"red": 4, "blue": 1}), Table.BROWN)
    assert best.choice.positive == ("blue", "red")
    assert best.total == 11
    assert best_score(Tableau(), Table.BROWN).total == 0


def test_purple_table_a_joker_can_help_a_negative_colour() -> None:
    # Four colours of 3: one must be negative (-8); a joker makes it 4 cards (-7).
    tableau = Tableau.of({"a": 3, "b": 3, "c": 3, "d": 3}, jokers=1)
    best = best_score(tableau, Table.PURPLE)
    assert best.total == 8 * 3 - 7
    assert best.choice == Choice(("a", "b", "c"), ("d",))
    assert best.ties == 3  # the joker on a, b or c (with d positive instead) ties


def test_purple_table_a_joker_can_go_to_a_colour_the_player_lacks() -> None:
    # Purple: 3 green is the sweet spot; the joker is better as 1 red than as a 4th green.
    tableau = Tableau.of({"green": 3}, jokers=1)
    assert best_score(tableau, Table.PURPLE).total == 7  # no other colour known: a 4th green
    best = best_score(tableau, Table.PURPLE, palette=["red"])
    assert best.total == 9
    assert best.joker_counts == {"red": 1}
    assert dict(best.by_colour) == {"green": 8, "red": 1}


def test_golden_joker_is_a_joker() -> None:
    tableau = Tableau.of({"green": 4, "red": 4, "blue": 4}, jokers=2, golden_joker=1)
    best = best_score(tableau, Table.BROWN)
    assert tableau.all_jokers == 3
    assert best.total == 21 + 15 + 10  # 6 + 5 + 4 beats three 5s (45)
    assert best.joker_counts == {"blue": 2, "green": 1}
    only_golden = Tableau.of({"green": 5}, golden_joker=1)
    assert best_score(only_golden, Table.BROWN).total == 21


def test_seven_cards_score_as_six() -> None:
    best = best_score(Tableau.of({"green": 6}, jokers=1), Table.BROWN)
    assert best.total == 21
    assert dict(best.counts) == {"green": 7}


def test_ties_resolve_alphabetically_and_are_counted() -> None:
    tableau = Tableau.of({"red": 6, "green": 6, "blue": 6}, jokers=1)
    best = best_score(tableau, Table.BROWN)
    assert best.total == 63
    assert best.choice == Choice(("blue", "green", "red"), ("blue",))
    assert best.ties == 2
    # The same cards given in any order give the same answer.
    again = best_score(Tableau.of({"blue": 6, "green": 6, "red": 6}, jokers=1), Table.BROWN)
    assert again == best


def test_positive_colours_may_be_fewer_than_three_in_a_manual_choice() -> None:
    score = score_choice(Tableau.of({"a": 2, "b": 2}), Table.BROWN, Choice(("a",)))
    assert score.total == 0


def test_choice_validation() -> None:
    with pytest.raises(ColorettoError, match="at most 3"):
        Choice(("a", "b", "c", "d"))
    with pytest.raises(ColorettoError, match="twice"):
        Choice(("a", "a"))
    with pytest.raises(ColorettoError, match="1 joker"):
        score_choice(RULEBOOK, Table.BROWN, Choice(("green",)))
    with pytest.raises(ColorettoError, match="not a colour"):
        Choice(("joker",))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"colours": {"green": 10}}, "'green': 10, but the game has only 9 green cards"),
        ({"colours": {"green": -1}}, "'green' cannot be negative"),
        ({"colours": {"green": 2.5}}, "'green' must be a whole number"),
        ({"colours": {"green": True}}, "'green' must be a whole number"),
        ({"jokers": 3}, "'joker': 3, but the game has only 2 jokers"),
        ({"golden_joker": 2}, "'golden_joker': 2, but the game has only 1 golden joker"),
        ({"plus_two": 11}, "'\\+2': 11, but the game has only 10"),
        ({"colours": {c: 1 for c in "abcdefgh"}}, "8 colours"),
        ({"colours": {"": 1}}, "non-empty name"),
    ],
)
def test_tableau_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ColorettoError, match=message):
        Tableau.of(**kwargs)  # type: ignore[arg-type]


def test_tableau_drops_empty_colours_and_sorts() -> None:
    tableau = Tableau.of({"red": 2, "blue": 0, "green": 1})
    assert tableau.counts == (("green", 1), ("red", 2))
    assert tableau.count("blue") == 0
    assert tableau == Tableau((("red", 2), ("green", 1)))
    with pytest.raises(ColorettoError, match="twice"):
        Tableau((("red", 2), ("red", 1)))


def test_best_score_palette_checks() -> None:
    with pytest.raises(ColorettoError, match="no colour they could become"):
        best_score(Tableau(jokers=1), Table.BROWN)
    assert best_score(Tableau(jokers=1), Table.BROWN, palette=["red"]).total == 1
    with pytest.raises(ColorettoError, match="8 colours in play"):
        best_score(Tableau.of({c: 1 for c in "abcdefg"}), Table.BROWN, palette=["h"])


# --- the scoresheet (a whole table's end of game) ---------------------------------


def sheet(players: dict[str, dict[str, object]], **extra: object) -> Scoresheet:
    return Scoresheet.from_dict({"table": "brown", "players": players, **extra})


def test_scoresheet_jokers_may_become_any_players_colour() -> None:
    scores = sheet({"anna": {"green": 3, "joker": 1}, "ben": {"red": 1}}).best_scores()
    # Brown: a 4th green (10) beats green 6 + red 1 (7).
    assert scores["anna"].total == 10
    purple = Scoresheet.from_dict(
        {"table": "purple", "players": {"anna": {"green": 3, "joker": 1}, "ben": {"red": 1}}}
    )
    assert purple.best_scores()["anna"].joker_counts == {"red": 1}


@pytest.mark.parametrize(
    ("table", "cards", "total", "jokers"),
    [
        # A third colour nobody named: green 21 + red 21 + 1 (not 42 with green 7).
        ("brown", {"green": 6, "red": 6, "joker": 1}, 43, {"another colour": 1}),
        # Purple: red 3 (8) and a 1-card colour (1), not red 4 (7).
        ("purple", {"red": 2, "joker": 2}, 9, {"another colour": 1, "red": 1}),
        ("brown", {"joker": 2, "golden_joker": 1}, 6, {"another colour": 3}),
    ],
)
def test_a_joker_may_become_a_colour_nobody_named(
    table: str, cards: dict[str, int], total: int, jokers: dict[str, int]
) -> None:
    best = Scoresheet.from_dict({"table": table, "players": {"a": cards}}).best_scores()["a"]
    assert (best.total, best.joker_counts) == (total, jokers)


def test_unnamed_colours_are_only_those_the_game_surely_has() -> None:
    # Two players: 5 colours in play, 4 named, so one joker may become a fifth; not two.
    cards = {"a": {"red": 6, "blue": 6, "joker": 2}, "b": {"green": 1, "pink": 1}}
    data = {"table": "brown", "players_count": 2, "players": cards}
    assert Scoresheet.from_dict(data).joker_palette == (
        "blue", "green", "pink", "red", "another colour",
    )  # fmt: skip
    best = Scoresheet.from_dict(data).best_scores()["a"]
    # Both jokers make a 2-card colour (3): green first; pink or the unnamed one tie.
    assert (best.total, best.joker_counts, best.ties) == (45, {"green": 2}, 2)
    # Declared colours are the colours in play: nothing unnamed is added.
    declared = {"table": "brown", "colours": ["red", "blue"], "players": {"a": cards["a"]}}
    assert Scoresheet.from_dict(declared).joker_palette == ("blue", "red")


def test_a_tie_goes_to_a_colour_named_before_one_nobody_named() -> None:
    # Purple, 9 red and a joker: on red it adds nothing (5); as a 1-card colour it adds
    # 1, be it blue (another player's) or any of the three colours nobody named. Blue,
    # the colour named, comes first.
    sheet = Scoresheet.from_dict(
        {"table": "purple", "players": {"a": {"red": 9, "joker": 1}, "b": {"blue": 1}}}
    )
    best = sheet.best_scores()["a"]
    assert best.joker_counts == {"blue": 1} and best.ties == 3


def test_scoresheet_declared_colours_extend_the_palette() -> None:
    data = {
        "table": "purple",
        "colours": ["green", "red"],
        "players": {"a": {"green": 3, "joker": 1}},
    }
    scores = Scoresheet.from_dict(data).best_scores()
    assert scores["a"].total == 9
    assert scores["a"].joker_counts == {"red": 1}


def test_scoresheet_golden_joker_may_be_true() -> None:
    scores = sheet({"a": {"red": 1, "golden_joker": True}}).best_scores()
    assert scores["a"].total == 3


def test_scoresheet_keeps_player_order() -> None:
    names = ["zoe", "anna", "mia"]
    scores = sheet({name: {"red": 1} for name in names}).best_scores()
    assert list(scores) == names


@pytest.mark.parametrize(
    ("players", "extra", "message"),
    [
        ({"a": {"green": 5}, "b": {"green": 5}}, {}, "'green': 10 across all players"),
        ({"a": {"joker": 1}, "b": {"joker": 2}, "c": {"red": 1}}, {}, "'joker': 3 across"),
        ({"a": {"golden_joker": 1}, "b": {"golden_joker": 1, "red": 1}}, {}, "'golden_joker': 2"),
        ({"a": {"+2": 6}, "b": {"+2": 5}}, {}, "'\\+2': 11 across"),
        ({"a": {c: 1 for c in "abcd"}, "b": {c: 1 for c in "efgh"}}, {}, "8 colours in play"),
        ({"a": {"green": 10}}, {}, "player 'a': 'green': 10"),
        ({"a": {"green": "3"}}, {}, "player 'a': 'green' must be a whole number"),
        ({"a": {"brown": 1}}, {"removed": ["brown"]}, "player 'a': 'brown' was removed"),
        ({"a": {"red": 1}}, {"removed": ["brown"], "colours": ["brown"]}, "'colours': 'brown'"),
        ({"a": {"gren": 1}}, {"colours": ["green", "red"]}, "player 'a': colour 'gren' is not"),
        ({"a": {"red": 1}}, {"removed": ["x", "y", "z"]}, "at most 2 colours are taken out"),
        ({"a": {"red": 1}}, {"colours": ["joker"]}, "'joker' is a special card, not a colour"),
        ({"a": [1]}, {}, "player 'a': expected an object"),
        ({}, {}, "no players"),
        ({str(i): {"red": 1} for i in range(6)}, {}, "6 players, but at most 5"),
        ({str(i): {"red": 1} for i in range(4)}, {"players_count": 3}, "4 players, but at most 3"),
        ({"a": {"red": 1}}, {"players_count": 6}, "'players_count': Coloretto is for 2 to 5"),
        ({"a": {"red": 1}}, {"players_count": 3, "removed": ["x", "y"]}, "remove 1 colour"),
        (
            {"a": {c: 1 for c in "abcdef"}},
            {"players_count": 2},
            "6 colours in play .*: 2 players play with 5",
        ),
        ({"a": {c: 1 for c in "abcdef"}}, {"removed": ["x", "y"]}, "the game has only 5 left"),
        ({"a": {"red": 1}}, {"colours": "red"}, "'colours' must be a list"),
        ({"a": {"red": 1}}, {"removed": ["x", "x"]}, "'removed' names a colour twice"),
        ({"a": {"red": 1}}, {"tabel": "brown"}, "unknown field 'tabel'"),
    ],
)
def test_scoresheet_validation(
    players: dict[str, dict[str, object]], extra: dict[str, object], message: str
) -> None:
    with pytest.raises(ColorettoError, match=message):
        sheet(players, **extra)


@pytest.mark.parametrize(
    ("players", "extra", "note"),
    [
        ({"a": {"red": 5, "Red": 5}}, {}, "'Red' and 'red' are scored as two colours"),
        ({"a": {"red": 9}, "b": {"red ": 9}}, {}, "'red' and 'red ' are scored as two colours"),
        ({"a": {"red": 1}}, {"colours": ["red", "RED"]}, "'red' and 'RED' are scored as two"),
        (
            {"a": {"Jokers": 1}},
            {},
            "'Jokers' is scored as a colour: did you mean the special card 'joker'",
        ),
        ({"a": {"golden joker": 1}}, {}, "did you mean the special card 'golden_joker'"),
        ({"a": {"golden": 2, "red": 1}}, {}, "'golden' is scored as a colour"),
        ({"a": {"2": 1}}, {}, "did you mean the special card '+2'"),
    ],
)
def test_colour_names_are_free_but_likely_typos_get_a_note(
    players: dict[str, dict[str, object]], extra: dict[str, object], note: str
) -> None:
    """The contract lets a colour have any name: scored as written, with one note."""
    scoresheet = sheet(players, **extra)
    (only_note,) = scoresheet.notes
    assert note in only_note
    held = {c for cards in players.values() for c in cards}
    scored = {c for s in scoresheet.best_scores().values() for c, _ in s.counts}
    assert held <= scored


def test_red_and_red_spelt_apart_score_as_two_colours() -> None:
    # As one colour, 10 cards would score 21 on the brown table; as two, 15 + 15.
    best = sheet({"a": {"red": 5, "Red": 5}}).best_scores()["a"]
    assert best.total == 30
    assert dict(best.by_colour) == {"Red": 15, "red": 15}


def test_ordinary_colour_names_get_no_note() -> None:
    assert (
        sheet(
            {"a": {"red": 5, "green": 2}, "b": {"blue": 1}},
            colours=["red", "green", "blue", "pink"],
        ).notes
        == ()
    )


def test_scoresheet_needs_table_and_players() -> None:
    with pytest.raises(ColorettoError, match="missing 'table'"):
        Scoresheet.from_dict({"players": {"a": {}}})
    with pytest.raises(ColorettoError, match="'players' must be an object"):
        Scoresheet.from_dict({"table": "brown", "players": []})
    with pytest.raises(ColorettoError, match="expected a JSON object"):
        Scoresheet.from_dict([])


def test_scoresheet_variant_accepts_a_legal_three_player_game() -> None:
    data = {
        "table": "purple",
        "players_count": 3,
        "removed": ["grey"],
        "players": {"a": {"red": 9, "joker": 2}, "b": {"blue": 2}, "c": {"green": 1}},
    }
    scores = Scoresheet.from_dict(data).best_scores()
    # 9 red score 5 however many; both jokers make a 2-card colour (4): blue first, and
    # green or any of the three colours nobody named would do as well.
    assert scores["a"].total == 9
    assert scores["a"].joker_counts == {"blue": 2}
    assert scores["a"].ties == 4
    assert Scoresheet.from_dict(data).as_dict()["players"]["b"]["total"] == 4


def test_explain_mentions_total_jokers_and_ties() -> None:
    lines = explain("andrzej", best_score(RULEBOOK, Table.BROWN), Table.BROWN)
    assert lines[0] == "andrzej: 41 points (brown table)"
    assert lines[-1] == "  the joker becomes yellow"
    tied = best_score(Tableau.of({"red": 6, "blue": 6}, jokers=2), Table.BROWN)
    text = "\n".join(explain("x", tied, Table.BROWN))
    assert "jokers: 2 on blue" in text
    assert "other choices also reach 42" in text


# --- properties ---------------------------------------------------------------------

COLOUR_NAMES = ("blue", "brown", "green", "grey", "orange", "red", "yellow")


@st.composite
def tableaus(draw: st.DrawFn) -> tuple[Tableau, tuple[str, ...]]:
    """A tableau and the palette its jokers may use (its colours plus a few others)."""
    colours = draw(st.lists(st.sampled_from(COLOUR_NAMES), unique=True, max_size=7))
    counts = {c: draw(st.integers(1, 9)) for c in colours}
    tableau = Tableau.of(
        counts,
        jokers=draw(st.integers(0, 2)),
        golden_joker=draw(st.integers(0, 1)),
        plus_two=draw(st.integers(0, 9)),
    )
    extra = draw(st.lists(st.sampled_from(COLOUR_NAMES), unique=True, max_size=3))
    palette = tuple(sorted({*colours, *extra}))
    if tableau.all_jokers and not palette:
        palette = ("red",)
    return tableau, palette


@given(tableaus(), st.sampled_from(Table), st.data())
@settings(max_examples=300, deadline=None)
def test_best_is_never_below_a_manual_choice(
    case: tuple[Tableau, tuple[str, ...]], table: Table, data: st.DataObject
) -> None:
    tableau, palette = case
    best = best_score(tableau, table, palette)
    jokers = data.draw(
        st.lists(st.sampled_from(palette), min_size=tableau.all_jokers, max_size=tableau.all_jokers)
        if tableau.all_jokers
        else st.just([])
    )
    held = sorted({*tableau.colours, *jokers})
    positive = data.draw(
        st.lists(st.sampled_from(held), unique=True, max_size=3) if held else st.just([])
    )
    manual = score_choice(tableau, table, Choice(tuple(positive), tuple(jokers)))
    assert best.total >= manual.total
    # The best choice really reaches the best total.
    assert score_choice(tableau, table, best.choice).total == best.total


@given(tableaus(), st.sampled_from(Table))
@settings(max_examples=200, deadline=None)
def test_best_matches_an_independent_search(
    case: tuple[Tableau, tuple[str, ...]], table: Table
) -> None:
    tableau, palette = case
    totals = []
    for jokers in combinations_with_replacement(palette, tableau.all_jokers):
        held = sorted({*tableau.colours, *jokers})
        for size in range(min(3, len(held)) + 1):
            for positive in combinations(held, size):
                totals.append(score_choice(tableau, table, Choice(positive, jokers)).total)
    best = best_score(tableau, table, palette)
    assert best.total == max(totals)


@given(tableaus(), st.sampled_from(Table))
@settings(max_examples=200, deadline=None)
def test_adding_a_plus_two_adds_exactly_two(
    case: tuple[Tableau, tuple[str, ...]], table: Table
) -> None:
    tableau, palette = case
    more = Tableau(tableau.counts, tableau.jokers, tableau.golden_joker, tableau.plus_two + 1)
    before, after = best_score(tableau, table, palette), best_score(more, table, palette)
    assert after.total == before.total + 2
    assert after.choice == before.choice


@given(tableaus(), st.sampled_from(Table))
@settings(max_examples=200, deadline=None)
def test_by_colour_and_total_agree(case: tuple[Tableau, tuple[str, ...]], table: Table) -> None:
    tableau, palette = case
    best = best_score(tableau, table, palette)
    assert best.total == sum(p for _, p in best.by_colour) + 2 * tableau.plus_two
    assert sum(best.joker_counts.values()) == tableau.all_jokers
    assert {c for c, p in best.by_colour if p > 0} == set(best.choice.positive) & {
        c for c, _ in best.by_colour
    }
    assert len(best.choice.positive) == min(3, len(best.by_colour))
