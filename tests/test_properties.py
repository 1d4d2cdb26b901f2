"""Property tests of the rules engine (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import ALL_TILES, CLOCKWISE, Edge, Layout, Position, Seats, Teams, analyse_turn
from engine.simulate import random_game

LAYOUT = Layout.load()
PLAYERS = ("red", "green", "yellow", "purple")


def _rotate_square(square: str) -> str:
    """The square a quarter turn clockwise (seen from above) puts this one on."""
    x, y = LAYOUT.rects[square].center
    nx, ny = 1 - y, x
    return min(
        LAYOUT.squares,
        key=lambda s: (LAYOUT.rects[s].center[0] - nx) ** 2 + (LAYOUT.rects[s].center[1] - ny) ** 2,
    )


def _rotate_edge(edge: Edge) -> Edge:
    return edge.clockwise_next()


def _rotate_position(position: Position) -> Position:
    return Position({_rotate_square(s): t for s, t in position.squares.items()}, LAYOUT)


def _rotate_seats(seats: Seats) -> Seats:
    return Seats({_rotate_edge(e): c for e, c in seats.by_edge.items()})


@st.composite
def turns(draw: st.DrawFn) -> tuple[Position, Position, Seats, str]:
    """A random board, a random handful of tiles placed on it, random seats."""
    tiles = draw(st.permutations(ALL_TILES))
    squares = list(LAYOUT.squares)
    occupied = draw(st.lists(st.sampled_from(squares), unique=True, max_size=12))
    before = Position({s: tiles[i] for i, s in enumerate(occupied)}, LAYOUT)
    targets = draw(st.lists(st.sampled_from(squares), unique=True, min_size=1, max_size=8))
    placed = {s: tiles[20 + i] for i, s in enumerate(targets)}
    after = before.place(placed)
    edges = draw(st.lists(st.sampled_from(CLOCKWISE), unique=True, min_size=2, max_size=4))
    seats = Seats({e: PLAYERS[i] for i, e in enumerate(edges)})
    active = draw(st.sampled_from(seats.players))
    return before, after, seats, active


def test_rotation_maps_the_board_onto_itself() -> None:
    assert sorted(_rotate_square(s) for s in LAYOUT.squares) == sorted(LAYOUT.squares)
    for a, b in [tuple(line) for line in LAYOUT.lines]:
        assert LAYOUT.is_joined(_rotate_square(a), _rotate_square(b))
    for square in LAYOUT.squares:
        owner = LAYOUT.owners[square]
        rotated_owner = LAYOUT.owners[_rotate_square(square)]
        assert rotated_owner == (None if owner is None else _rotate_edge(owner))


@given(turns())
@settings(max_examples=300, deadline=None)
def test_results_unchanged_by_rotating_board_and_seats(
    turn: tuple[Position, Position, Seats, str],
) -> None:
    before, after, seats, active = turn
    plain = analyse_turn(before, after, seats, active)
    turned = analyse_turn(
        _rotate_position(before), _rotate_position(after), _rotate_seats(seats), active
    )
    assert turned.legal == plain.legal
    assert turned.points == plain.points
    assert turned.scoring_tiles == plain.scoring_tiles
    assert turned.bonus == plain.bonus
    assert [s.tiles for s in turned.sets] == [s.tiles for s in plain.sets]
    assert set(turned.placed.values()) == set(plain.placed.values())


@given(turns())
@settings(max_examples=300, deadline=None)
def test_points_and_bonus_bounds(turn: tuple[Position, Position, Seats, str]) -> None:
    before, after, seats, active = turn
    result = analyse_turn(before, after, seats, active)
    if result.legal:
        assert result.points >= len(result.placed)
    assert all(1 <= b <= 2 for b in result.bonus.values())
    assert active not in result.bonus
    assert set(result.scoring_tiles) <= set(after.tiles())


@given(turns())
@settings(max_examples=200, deadline=None)
def test_a_covered_tile_never_scores(turn: tuple[Position, Position, Seats, str]) -> None:
    before, after, seats, active = turn
    result = analyse_turn(before, after, seats, active)
    covered = {before[s] for s in result.placed if before[s] is not None}
    assert not covered & set(result.scoring_tiles)


@given(
    seed=st.integers(0, 2**32 - 1),
    players=st.integers(2, 4),
    teams=st.booleans(),
    strategy=st.sampled_from(["greedy", "random"]),
    equal_turns=st.booleans(),
)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_random_games_end_with_exactly_one_winner(
    seed: int, players: int, teams: bool, strategy: str, equal_turns: bool
) -> None:
    from engine import GameOptions

    rng = random.Random(seed)
    seats = Seats({e: PLAYERS[i] for i, e in enumerate(CLOCKWISE[:players])})
    team = Teams.parse("red+yellow,green+purple", seats) if teams and players == 4 else None
    record = random_game(
        rng,
        seats,
        team,
        options=GameOptions(equal_turns=equal_turns),
        strategy=strategy,  # type: ignore[arg-type]
    )
    state = record.replay()
    assert state.finished and state.ending is not None
    winner = state.ending.winner
    if team:
        assert winner in ("team red+yellow", "team green+purple")
    else:
        assert winner in seats.players
        assert state.scores[winner] == max(state.scores.values())
    assert max(state.scores.values()) >= state.setup.finish_line


@given(turns())
@settings(max_examples=300, deadline=None)
def test_sets_through_matches_filtering_all_sets(
    turn: tuple[Position, Position, Seats, str],
) -> None:
    from engine.sets import find_sets, sets_through

    _, after, _, _ = turn
    for squares in (list(after.layout.squares)[:3], ["b2", "c3"], list(after.layout.squares)):
        expected = tuple(s for s in find_sets(after) if set(squares) & set(s.squares))
        assert sets_through(after, squares) == expected
