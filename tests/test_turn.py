import pytest
from conftest import pos

from engine import Position, Seats, Tile, analyse_turn

T = Tile.parse


def test_worked_example_online_edition() -> None:
    # 5♥ on the board, 4♦ 4♣ on joined squares; 4♥ and 6♥ either side of 5♥, 4♥ joined to a 4.
    before = pos("b3=5h b1=4d a2=4c")
    after = pos("b3=5h b1=4d a2=4c b2=4h c3=6h")
    result = analyse_turn(before, after, Seats.parse("S=red,W=green,N=yellow,E=purple"), "yellow")
    assert result.legal and result.errors == ()
    assert result.points == 5
    assert [str(t) for t in result.scoring_tiles] == ["4♣", "4♦", "4♥", "5♥", "6♥"]
    assert [s.to_json() for s in result.sets] == [["4♥", "5♥", "6♥"], ["4♣", "4♦", "4♥"]]
    assert result.bonus == {"red": 1, "green": 1}


def test_worked_example_rulebook_three_sets(four_seats: Seats) -> None:
    # Yellow (north) places 7♥ and 7♠, completing three sets at once: 6 points,
    # and two of the scoring tiles lie on green's bonus squares: +2 for green.
    before = pos("a3=6h a2=7c b2=8h b4=8s")
    after = pos("a3=6h a2=7c b2=8h b4=8s b3=7h c4=7s")
    result = analyse_turn(before, after, four_seats, "yellow")
    assert result.legal
    assert len(result.sets) == 3
    assert result.points == 6
    assert result.bonus == {"green": 2}
    assert result.bonus_squares == {"green": ("a2", "a3")}


def test_contract_json_shape(four_seats: Seats) -> None:
    result = analyse_turn(pos("b3=5h"), pos("b3=5h b2=4h"), four_seats, "red")
    assert result.to_json() == {
        "legal": True,
        "errors": [],
        "placed": {"b2": "4♥"},
        "points": 2,
        "scoring_tiles": ["4♥", "5♥"],
        "sets": [["4♥", "5♥"]],
        "bonus": {},
    }


def test_active_player_gets_no_bonus_for_own_squares(four_seats: Seats) -> None:
    result = analyse_turn(pos("b2=5h"), pos("b2=5h b1=6h"), four_seats, "red")
    assert result.legal and result.points == 2 and result.bonus == {}


def test_bonus_is_at_most_two_per_player(four_seats: Seats) -> None:
    before = pos("b1=3h c1=4h")
    after = pos("b1=3h c1=4h b2=5h")
    result = analyse_turn(before, after, four_seats, "green")
    assert result.bonus == {"red": 2}


def test_covered_tile_never_scores(four_seats: Seats) -> None:
    # 6♥ goes on top of 5♥ on b2: 6♥ 7♥ is a run; 5♥, now covered, is in no set.
    before = pos("b2=5h c2=7h")
    after = pos("b2=6h c2=7h")
    result = analyse_turn(before, after, four_seats, "red")
    assert result.legal and result.placed == {"b2": T("6h")}
    assert result.points == 2
    assert [str(t) for t in result.scoring_tiles] == ["6♥", "7♥"]
    # A covered tile does not join a same-value group either.
    result = analyse_turn(pos("b2=9c"), pos("b2=5h c2=9d"), four_seats, "red")
    assert not result.legal and result.points == 0


@pytest.mark.parametrize(
    ("before", "after", "error"),
    [
        ("b2=5h", "b2=5h", "nothing was placed"),
        ("b2=5h c2=6h", "b2=5h b3=4h", "c2 was emptied"),
        ("b2=5h c2=9c", "b3=5h c2=9c c3=6h", "5♥ moved from b2 to b3"),
        ("b2=5h", "b2=5h c2=9c", "9♣ on c2 is in no set"),
        ("b2=5h c3=9c", "b2=5h c3=9c b3=6h c2=9d", "not all in one set"),
        ("b2=5h", "b2=5h a2=6h", "a2 is green's bonus square; red may not place there"),
    ],
)
def test_illegal_plays(four_seats: Seats, before: str, after: str, error: str) -> None:
    result = analyse_turn(pos(before), pos(after), four_seats, "red")
    assert not result.legal
    assert any(error in e for e in result.errors), result.errors


def test_illegal_play_still_reports_points(four_seats: Seats) -> None:
    result = analyse_turn(pos("b2=5h"), pos("b2=5h a2=6h"), four_seats, "red")
    assert not result.legal
    assert result.points == 2 and result.bonus == {"green": 1}


def test_more_than_eight_tiles() -> None:
    seats = Seats.parse("S=red,N=yellow")
    squares = ["b1", "c1", "a2", "b2", "c2", "d2", "a3", "b3", "c3"]
    after = pos(" ".join(f"{s}={v}s" for s, v in zip(squares, range(1, 10), strict=True)))
    result = analyse_turn(pos(), after, seats, "red")
    assert any("9 tiles placed; at most 8" in e for e in result.errors)
    assert result.points == 9


def test_eight_tiles_are_fine() -> None:
    seats = Seats.parse("S=red,N=yellow")
    squares = ["b1", "c1", "c2", "b2", "a3", "b3", "c3", "d3"]  # a path through the lines
    after = pos(" ".join(f"{s}={v}s" for s, v in zip(squares, range(1, 9), strict=True)))
    result = analyse_turn(pos(), after, seats, "red")
    assert result.legal, result.errors
    assert result.points == 8


def test_unowned_bonus_squares_are_common_with_fewer_players() -> None:
    seats = Seats.parse("S=red,N=yellow")
    result = analyse_turn(pos("b2=5h"), pos("b2=5h a2=6h"), seats, "red")
    assert result.legal


def test_placing_on_top_of_a_stack(four_seats: Seats) -> None:
    result = analyse_turn(pos("b2=5h c2=9c"), pos("b2=5h c2=6h"), four_seats, "red")
    assert result.legal and result.placed == {"c2": T("6h")}


def test_buried_tile_cannot_reappear(four_seats: Seats) -> None:
    result = analyse_turn(
        pos("b2=5h"), pos("b2=5h c2=6h"), four_seats, "red", buried=frozenset({T("6h")})
    )
    assert not result.legal
    assert "6♥ on c2 is buried under a stack" in result.errors[0]


def test_partner_bonus_squares_are_forbidden(four_seats: Seats) -> None:
    # In the team game the partner is seated, so their squares are not the player's.
    result = analyse_turn(pos("b3=5h"), pos("b3=5h b4=6h"), four_seats, "red")
    assert not result.legal and "yellow's bonus square" in result.errors[0]


def test_unknown_player_is_an_error(four_seats: Seats) -> None:
    with pytest.raises(ValueError, match="no player 'blue'"):
        analyse_turn(pos(), pos("b2=5h"), four_seats, "blue")


def test_explain_names_sets_points_and_bonus() -> None:
    before = pos("b3=5h b1=4d a2=4c")
    after = pos("b3=5h b1=4d a2=4c b2=4h c3=6h")
    text = analyse_turn(before, after, Seats.parse("S=red,W=green"), "red").explain()
    assert "(run)" in text and "(same value)" in text
    assert "5 points" in text
    assert "green's a2 scores: +1 bonus for green" in text


def test_explain_illegal() -> None:
    seats = Seats.parse("S=red,W=green")
    text = analyse_turn(pos("b2=5h"), pos("b2=5h"), seats, "red").explain()
    assert text == "red placed nothing: that is no play, and it scores nothing."
    text = analyse_turn(pos("b2=5h"), pos(), seats, "red").explain()
    assert text.startswith("red placed nothing: illegal, so it scores nothing and is taken back")


def test_an_illegal_play_says_it_scores_nothing_before_what_it_would_make() -> None:
    before = Position.from_json({"squares": {"b2": "5h"}})
    after = Position.from_json(
        {"squares": {"b2": "5h", "c2": "7c", "c3": "8c", "b3": "1h", "a3": "1s"}}
    )
    text = analyse_turn(before, after, Seats.parse("S=red,W=green"), "red").explain()
    assert text.startswith("1♥ 1♠ 7♣ 8♣: illegal, so it scores nothing and is taken back: ")
    assert text.endswith(
        "As placed, the tiles would make 4 points: 7♣ 8♣ form a set (run); 1♥ 1♠ form a "
        "set (same value)."
    )
    assert "+1 bonus" not in text  # an illegal play pays no bonus either


def test_an_illegal_play_is_explained_set_by_set() -> None:
    seats = Seats.parse("S=red,W=green")
    text = analyse_turn(pos("b2=5h a3=9c"), pos("b2=5h a3=9c c2=6h b3=9s"), seats, "red").explain()
    assert "6♥ joins 5♥ (run); 9♠ joins 9♣ (same value)" in text
