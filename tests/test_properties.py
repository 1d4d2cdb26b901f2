"""Property tests of the rules engine (hypothesis)."""

from __future__ import annotations

import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    ALL_TILES,
    CLOCKWISE,
    Edge,
    Layout,
    Position,
    Seats,
    Suit,
    Teams,
    Tile,
    analyse_turn,
)
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


# --- the scoring rule, checked against the rules' own words -------------------------


def _joined(a: str, b: str) -> bool:
    return frozenset((a, b)) in LAYOUT.lines


def _is_a_set(members: tuple[tuple[str, Tile], ...]) -> bool:
    """SETUP.md, "Sets", read literally: at least 2 tiles, either one value forming one
    connected group along the lines, or consecutive values of one suit, each tile
    joined to the tile with the next value."""
    if len(members) < 2:
        return False
    if len({tile.value for _, tile in members}) == 1:
        squares = {square for square, _ in members}
        reached, frontier = set(), [next(iter(squares))]
        while frontier:
            square = frontier.pop()
            reached.add(square)
            frontier += [s for s in squares - reached if _joined(square, s)]
        return reached == squares
    if len({tile.suit for _, tile in members}) != 1:
        return False
    run = sorted(members, key=lambda member: member[1].value)
    return all(
        b.value == a.value + 1 and _joined(sa, sb) for (sa, a), (sb, b) in itertools.pairwise(run)
    )


def _every_set(position: Position) -> list[frozenset[Tile]]:
    """Every set on the board, not only the largest: every group of top tiles of one
    value or one suit that is a set."""
    on_board = [(s, t) for s, t in position.squares.items() if t is not None]
    families = [[m for m in on_board if m[1].value == v] for v in range(1, 11)]
    families += [[m for m in on_board if m[1].suit == suit] for suit in Suit]
    return [
        frozenset(tile for _, tile in group)
        for family in families
        for size in range(2, len(family) + 1)
        for group in itertools.combinations(family, size)
        if _is_a_set(group)
    ]


@st.composite
def dense_turns(draw: st.DrawFn) -> tuple[Position, Position, Seats, str]:
    """Like ``turns``, but the tiles come from four neighbouring values, so that most
    boards hold sets, runs and groups that cross and share tiles (9, 10, 1, 2 are
    neighbours here too: 10 next to 1 must make no run)."""
    low = draw(st.integers(0, 9))
    values = {(low + k) % 10 + 1 for k in range(4)}
    pool = [t for t in ALL_TILES if t.value in values]
    tiles = draw(st.permutations(pool))
    squares = list(LAYOUT.squares)
    occupied = draw(st.lists(st.sampled_from(squares), unique=True, max_size=12))
    before = Position({s: tiles[i] for i, s in enumerate(occupied)}, LAYOUT)
    most = draw(st.sampled_from([1, 2, 3, 8]))  # small plays are the ones often legal
    targets = draw(st.lists(st.sampled_from(squares), unique=True, min_size=1, max_size=most))
    after = before.place({s: tiles[12 + i] for i, s in enumerate(targets)})
    edges = draw(st.lists(st.sampled_from(CLOCKWISE), unique=True, min_size=2, max_size=4))
    seats = Seats({e: PLAYERS[i] for i, e in enumerate(edges)})
    return before, after, seats, draw(st.sampled_from(seats.players))


@given(dense_turns())
@settings(max_examples=500, deadline=None)
def test_scoring_matches_the_rules_read_literally(
    turn: tuple[Position, Position, Seats, str],
) -> None:
    before, after, seats, active = turn
    placed = {s: t for s, t in after.squares.items() if t is not None and t != before[s]}
    sets = _every_set(after)
    # Every tile in any set that holds a placed tile scores 1 point, once.
    scoring = set().union(*(s for s in sets if s & set(placed.values())))
    # Other players get 1 point per bonus square of theirs whose top tile scored.
    bonus = {}
    for edge, player in seats.by_edge.items():
        count = sum(after[s] in scoring for s in LAYOUT.squares if LAYOUT.owners[s] is edge)
        if player != active and count:
            bonus[player] = count
    # Legal: the placed tiles all belong to one and the same set, on squares the
    # player may use (common squares, their own, or an empty edge's).
    allowed = all(
        LAYOUT.owners[s] is None or seats.by_edge.get(LAYOUT.owners[s], active) == active
        for s in placed
    )
    legal = allowed and any(set(placed.values()) <= s for s in sets)

    result = analyse_turn(before, after, seats, active)
    assert set(result.scoring_tiles) == scoring
    assert result.points == len(scoring)
    assert dict(result.bonus) == bonus
    assert result.legal == legal, result.errors
