from conftest import pos

from engine import SetKind, find_sets
from engine.sets import sets_through


def described(text: str) -> list[str]:
    return [str(s) for s in find_sets(pos(text))]


def test_run_along_lines() -> None:
    assert described("b2=4h b3=5h c3=6h") == ["run 4♥ 5♥ 6♥"]


def test_run_may_change_direction() -> None:
    # b1 -> b2 -> c3 -> d3 -> c4 zigzags through the grid.
    assert described("b1=2s b2=3s c3=4s d3=5s c4=6s") == ["run 2♠ 3♠ 4♠ 5♠ 6♠"]


def test_run_needs_each_step_joined() -> None:
    # b1 and b4 are not joined: 5♥ ... 6♥ is no run.
    assert described("b1=5h b4=6h") == []


def test_run_breaks_where_a_step_is_not_joined() -> None:
    assert described("b1=1h c1=2h c4=3h b4=4h") == ["run 1♥ 2♥", "run 3♥ 4♥"]


def test_ten_does_not_wrap_to_one() -> None:
    assert described("b2=10d c2=1d") == []


def test_run_needs_one_suit() -> None:
    assert described("b2=4h c2=5d") == []


def test_same_value_connected_group() -> None:
    # a2 and c4 are not joined, but both are joined to b3.
    assert described("a2=7c b3=7h c4=7s") == ["same value 7♣ 7♥ 7♠"]


def test_same_value_not_joined_is_no_set() -> None:
    assert described("a2=7c d3=7h") == []


def test_two_groups_of_one_value() -> None:
    sets = find_sets(pos("b1=3c c1=3d b4=3h c4=3s"))
    assert [s.kind for s in sets] == [SetKind.SAME_VALUE, SetKind.SAME_VALUE]
    assert [len(s) for s in sets] == [2, 2]


def test_a_tile_in_a_run_and_a_group() -> None:
    sets = find_sets(pos("b2=4h b3=5h c3=6h a2=4d"))
    assert [str(s) for s in sets] == ["run 4♥ 5♥ 6♥", "same value 4♦ 4♥"]
    assert sets[0].squares == ("b2", "b3", "c3")


def test_single_tiles_and_empty_board() -> None:
    assert described("") == []
    assert described("b2=4h") == []


def test_sets_through_squares() -> None:
    p = pos("b2=4h b3=5h d2=9c d3=9d")
    assert [str(s) for s in sets_through(p, ["b2"])] == ["run 4♥ 5♥"]
    assert [str(s) for s in sets_through(p, ["d3", "b3"])] == ["run 4♥ 5♥", "same value 9♣ 9♦"]
    assert sets_through(p, []) == ()
