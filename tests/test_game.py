import random

import pytest
from conftest import pos

from engine import (
    Action,
    GameError,
    GameOptions,
    GameRecord,
    GameSetup,
    GameState,
    Position,
    Seats,
    Teams,
    Turn,
)
from engine.simulate import TableTiles, random_game


def play(player: str, text: str) -> Turn:
    return Turn(player, Action.PLAY, pos(text))


def swap(player: str) -> Turn:
    return Turn(player, Action.SWAP)


def state_with_scores(
    seats: str,
    scores: dict[str, int],
    teams: str | None = None,
    start: str = "b2=5h",
    **options: bool,
) -> GameState:
    """A state near the end: scores set by hand."""
    s = Seats.parse(seats)
    setup = GameSetup(
        s, Teams.parse(teams, s) if teams else None, GameOptions(**options), pos(start)
    )
    state = GameState.start(setup)
    from dataclasses import replace

    return replace(state, scores=scores)


def test_clockwise_turn_order() -> None:
    setup = GameSetup(Seats.parse("E=purple,S=red,N=yellow"), start=pos("b2=5h"))
    state = GameState.start(setup)
    order = []
    for _ in range(4):
        order.append(state.next_player)
        state = state.apply(swap(state.next_player))
    assert order == ["red", "yellow", "purple", "red"]


def test_team_turn_order_alternates() -> None:
    seats = Seats.parse("S=red,W=green,N=yellow,E=purple")
    teams = Teams.parse("red+green,yellow+purple", seats)
    state = GameState.start(GameSetup(seats, teams, start=pos("b2=5h")))
    order = []
    for _ in range(5):
        order.append(state.next_player)
        state = state.apply(swap(state.next_player))
    assert order == ["red", "yellow", "green", "purple", "red"]


def test_turn_order_continues_from_whoever_started() -> None:
    state = GameState.start(GameSetup(Seats.parse("S=red,W=green,N=yellow"), start=pos("b2=5h")))
    state = state.apply(swap("yellow"))
    assert state.next_player == "red"
    assert state.outcomes[0].warnings == ()


def test_out_of_turn_is_a_warning() -> None:
    state = GameState.start(GameSetup(Seats.parse("S=red,W=green,N=yellow"), start=pos("b2=5h")))
    state = state.apply(swap("red")).apply(swap("yellow"))
    assert state.outcomes[1].warnings == ("out of turn: green was to play",)


@pytest.mark.parametrize(
    ("seats", "teams", "line"),
    [
        ("S=red,N=yellow", None, 31),
        ("S=red,W=green,N=yellow", None, 27),
        ("S=red,W=green,N=yellow,E=purple", None, 23),
        ("S=red,W=green,N=yellow,E=purple", "red+yellow,green+purple", 23),
    ],
)
def test_finish_line_by_player_count(seats: str, teams: str | None, line: int) -> None:
    s = Seats.parse(seats)
    setup = GameSetup(s, Teams.parse(teams, s) if teams else None)
    assert setup.finish_line == line


def test_game_ends_right_after_reaching_the_line_with_bonus() -> None:
    # red plays 6♥ to extend 4♥ (on green's bonus square) 5♥: 3 points, 1 bonus for green.
    state = state_with_scores("S=red,W=green", {"red": 10, "green": 30}, start="a3=4h b2=5h")
    state = state.apply(play("red", "a3=4h b2=5h c2=6h"))
    assert state.scores == {"red": 13, "green": 31}
    assert state.finished and state.ending is not None
    assert state.ending.after_turn == 1
    assert state.ending.winner == "green"
    assert state.next_player is None
    with pytest.raises(GameError, match="ended"):
        state.apply(swap("green"))


def test_equal_turns_plays_on_until_everyone_has_played() -> None:
    state = state_with_scores(
        "S=red,W=green,N=yellow", {"red": 26, "green": 0, "yellow": 0}, equal_turns=True
    )
    state = state.apply(play("red", "b2=5h b3=6h"))
    assert state.scores["red"] == 28 and not state.finished
    state = state.apply(swap("green"))
    assert not state.finished
    state = state.apply(swap("yellow"))
    assert state.finished and state.ending and state.ending.after_turn == 3


def test_equal_turns_is_ignored_in_the_team_game() -> None:
    state = state_with_scores(
        "S=red,W=green,N=yellow,E=purple",
        {"red": 22, "green": 0, "yellow": 0, "purple": 0},
        teams="red+yellow,green+purple",
        equal_turns=True,
    )
    state = state.apply(play("red", "b2=5h b3=6h"))
    assert state.finished


def test_tie_goes_to_who_placed_tiles_most_recently() -> None:
    state = state_with_scores("S=red,W=green", {"red": 29, "green": 29})
    state = state.apply(play("red", "b2=5h b3=6h"))  # red 31
    assert state.ending and state.ending.winner == "red"
    # Now green reaches 31 by a bonus from red's play: tie, red placed last.
    state = state_with_scores("S=red,W=green", {"red": 28, "green": 30}, start="a3=4h b2=5h")
    state = state.apply(play("red", "a3=4h b2=5h c2=6h"))
    assert state.scores == {"red": 31, "green": 31}
    assert state.ending and state.ending.winner == "red"
    assert "placed tiles most recently" in state.ending.reason


@pytest.mark.parametrize("green_places", [True, False])
def test_tie_won_by_the_tied_player_who_placed_last_not_by_the_last_placer(
    green_places: bool,
) -> None:
    from dataclasses import replace

    state = state_with_scores("S=red,W=green,N=yellow", {"red": 0, "green": 0, "yellow": 0})
    state = state.apply(play("red", "b2=5h b3=6h"))  # red places at turn 1
    if green_places:
        state = state.apply(play("green", "b2=5h b3=6h c3=6s"))  # green at turn 2
    else:
        state = state.apply(swap("green"))
    # Red and green tie on the line (27 with three players); yellow, not tied, places last.
    state = replace(state, scores={"red": 27, "green": 27, "yellow": 20})
    board = "b2=5h b3=6h c3=6s c2=6d" if green_places else "b2=5h b3=6h c2=6d"
    state = state.apply(play("yellow", board))
    assert state.last_placed["yellow"] == 3  # a legal play
    assert state.scores["yellow"] > 20 and state.finished and state.ending is not None
    # Red comes first in turn order: only green's own play can make green the winner.
    assert state.ending.winner == ("green" if green_places else "red")
    if green_places:
        assert "green placed tiles most recently (turn 2)" in state.ending.reason


def test_team_winner_no_pawn_in_last_place() -> None:
    state = state_with_scores(
        "S=red,W=green,N=yellow,E=purple",
        {"red": 21, "green": 5, "yellow": 6, "purple": 15},
        teams="red+yellow,green+purple",
    )
    state = state.apply(play("red", "b2=5h b3=6h"))
    assert state.ending and state.ending.winner == "team red+yellow"
    assert "last place (green, 5)" in state.ending.reason


def test_team_tie_for_last_goes_to_first_place() -> None:
    state = state_with_scores(
        "S=red,W=green,N=yellow,E=purple",
        {"red": 21, "green": 5, "yellow": 5, "purple": 15},
        teams="red+yellow,green+purple",
    )
    state = state.apply(play("red", "b2=5h b3=6h"))
    assert state.ending and state.ending.winner == "team red+yellow"
    assert "first place (red, 23)" in state.ending.reason


def test_team_tie_for_last_and_first_goes_to_latest_placer() -> None:
    state = state_with_scores(
        "S=red,W=green,N=yellow,E=purple",
        {"red": 21, "green": 23, "yellow": 5, "purple": 5},
        teams="red+yellow,green+purple",
    )
    state = state.apply(play("red", "b2=5h b3=6h"))
    assert state.scores["red"] == 23
    assert state.ending and state.ending.winner == "team red+yellow"
    assert "placed tiles most recently (red)" in state.ending.reason


def test_team_tie_for_last_and_first_goes_to_the_team_that_placed_last() -> None:
    # Turn order red, green, yellow, purple: red placing first must not decide it.
    state = state_with_scores(
        "S=red,W=green,N=yellow,E=purple",
        {"red": 20, "green": 20, "yellow": 5, "purple": 5},
        teams="red+yellow,green+purple",
        start="b2=5h c1=4h c2=9d",
    )
    state = state.apply(play("red", "b2=5h c1=4h c2=9d c3=9s"))  # 9♠ 9♦: 2 points
    assert state.scores["red"] == 22 and not state.finished
    # Green's 6♥ makes 4♥ 5♥ 6♥: 3 points, and 4♥ on red's c1 gives red 1 bonus.
    state = state.apply(play("green", "b2=5h c1=4h c2=9d c3=9s b3=6h"))
    assert state.scores == {"red": 23, "green": 23, "yellow": 5, "purple": 5}
    assert state.ending and state.ending.winner == "team green+purple"
    assert "placed tiles most recently (green)" in state.ending.reason


def test_illegal_play_is_taken_back_and_uses_the_turn() -> None:
    setup = GameSetup(Seats.parse("S=red,W=green"), start=pos("b2=5h"))
    state = GameState.start(setup).apply(play("red", "b2=5h c2=9c"))
    assert state.scores == {"red": 0, "green": 0}
    assert state.position == pos("b2=5h")
    assert state.next_player == "green"
    assert not state.outcomes[0].counted
    state = state.apply(play("green", "b2=5h c2=6h"))
    assert state.scores == {"red": 0, "green": 2}


def test_buried_tiles_and_bag_accounting() -> None:
    setup = GameSetup(Seats.parse("S=red,W=green"), start=pos("b2=5h c2=9c b3=1s c3=2d"))
    state = GameState.start(setup)
    assert (state.in_hands, state.in_bag) == (12, 34)
    state = state.apply(play("red", "b2=5h c2=6h b3=1s c3=2d"))
    assert state.buried == {pos("c2=9c")["c2"]}
    assert (state.in_hands, state.in_bag) == (12, 33)
    # The buried 9♣ turning up again contradicts the accounting.
    state = state.apply(play("green", "b2=5h c2=6h b3=9c c3=2d"))
    assert not state.outcomes[-1].counted
    assert "9♣ on b3 is buried" in state.outcomes[-1].result.errors[0]  # type: ignore[union-attr]


def test_record_undo_and_correction_rederive_scores() -> None:
    setup = GameSetup(Seats.parse("S=red,W=green"), start=pos("b2=5h"))
    record = (
        GameRecord(setup)
        .with_turn(play("red", "b2=5h c2=6h"))
        .with_turn(play("green", "b2=5h c2=6h c3=7h"))
    )
    assert record.replay().scores == {"red": 2, "green": 3}
    assert record.without_last_turn().replay().scores == {"red": 2, "green": 0}
    # The camera misread green's 7♠ as 7♥: green's play joined nothing.
    assert record.with_position(2, pos("b2=5h c2=6h c3=7s")).replay().scores == {
        "red": 2,
        "green": 0,
    }
    # Red really put the 6♥ on b3: green's recorded position now moves it, which is illegal.
    state = record.with_position(1, pos("b2=5h b3=6h")).replay()
    assert state.scores == {"red": 2, "green": 0}
    assert "6♥ moved from b3 to c2" in state.outcomes[1].result.errors  # type: ignore[union-attr]
    with pytest.raises(GameError):
        record.with_position(3, pos())
    with pytest.raises(GameError):
        GameRecord(setup).without_last_turn()


def test_correcting_a_swap_is_refused() -> None:
    record = GameRecord(GameSetup(Seats.parse("S=red,W=green"))).with_turn(swap("red"))
    with pytest.raises(GameError, match="swap"):
        record.with_position(1, pos())


def test_turns_after_the_end_are_ignored() -> None:
    record = random_game(random.Random(3), Seats.parse("S=red,W=green"))
    ended = record.replay()
    assert ended.ending is not None and ended.ending.after_turn == len(record.turns)
    longer = record.with_turn(swap("red")).with_turn(swap("green"))
    again = longer.replay()
    assert len(again.outcomes) == len(record.turns)
    assert again.ending == ended.ending


def test_json_round_trip() -> None:
    record = random_game(random.Random(1), Seats.parse("S=red,W=green,N=yellow"))
    again = GameRecord.from_json(record.to_json())
    assert again == record
    assert again.replay().scores == record.replay().scores


TWO = {"S": "red", "W": "green"}
EMPTY: dict = {"squares": {}}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "JSON object"),
        ({"seats": {"S": "red"}}, "2 to 4 players"),
        ({"seats": {"S": "red", "Q": "blue"}}, "not a board edge"),
        ({"seats": {"S": "red", "W": "red"}}, "own colour"),
        ({"seats": {"S": "red", "W": "green"}, "teams": [["red", "green"]]}, "two pairs"),
        (
            {"seats": TWO, "start": EMPTY, "turns": [{"player": "red", "action": "jump"}]},
            "turn 1",
        ),
        (
            {"seats": TWO, "start": EMPTY, "turns": [{"player": "red", "action": "play"}]},
            "position",
        ),
        ({"seats": {"S": "red", "W": "green"}, "start": {"squares": {"z9": "5h"}}}, "z9"),
        (
            {"seats": {"S": "red", "W": "green"}, "start": {"squares": {"b2": "5h", "c2": "5H"}}},
            "twice",
        ),
        ({"seats": TWO, "start": EMPTY, "options": {"equal_turns": "yes"}}, "equal_turns"),
        ({"seats": TWO, "turns": []}, "'start' is missing"),
        ({"seats": TWO, "start": {"squares": {"b2": ""}}}, "an empty square is null"),
    ],
)
def test_bad_game_records(data: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameRecord.from_json(data).replay()


def test_unknown_player_in_a_turn() -> None:
    record = GameRecord(GameSetup(Seats.parse("S=red,W=green"))).with_turn(swap("blue"))
    with pytest.raises(GameError, match="turn 1: no player 'blue'"):
        record.replay()


def test_accounting_matches_the_simulated_bag(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine counts what the camera cannot see; the simulation knows it, also
    when the bag runs empty and the buried tiles go back into it."""
    seen: list[tuple[int, int, int]] = []
    bag_refills = 0
    original = TableTiles.refill

    def spy(self: TableTiles, player: str, rng: random.Random) -> None:
        nonlocal bag_refills
        had_buried = bool(self.buried)
        original(self, player, rng)
        bag_refills += had_buried and not self.buried
        seen.append(
            (
                len(self.bag),
                len(self.buried),
                len(self.common_hand) + sum(map(len, self.hands.values())),
            )
        )

    monkeypatch.setattr(TableTiles, "refill", spy)
    engine_refills = 0
    # Seed 2's bag runs empty once; seed 5's never does.
    for seed in (2, 5):
        seen.clear()
        record = random_game(random.Random(seed), Seats.parse("S=red,N=yellow"), strategy="random")
        state = GameState.start(record.setup)
        plays = iter(seen)
        for turn in record.turns:
            state = state.apply(turn)
            if turn.action is Action.PLAY:
                assert (state.in_bag, len(state.buried), state.in_hands) == next(plays)
        assert next(plays, None) is None  # every simulated play was compared
        assert state.finished
        engine_refills += state.recycled
    assert engine_refills == bag_refills >= 1  # the empty-bag rule was exercised


def test_empty_position_default() -> None:
    assert Position.empty().tiles() == {}


@pytest.mark.parametrize("seed", range(6))
def test_a_game_played_on_from_its_record_keeps_it_and_plays_legally(seed: int) -> None:
    from engine.simulate import play_on

    seats = Seats.parse("S=red,W=green,N=yellow")
    begun = random_game(random.Random(seed), seats, max_turns=2 + seed * 3)
    ended = play_on(random.Random(100 + seed), begun)
    assert ended.turns[: len(begun.turns)] == begun.turns
    state = ended.replay()
    assert state.finished
    assert all(o.counted for o in state.outcomes)
    # The same player order goes on: no one is skipped by the hand-over.
    order = seats.players
    assert [t.player for t in ended.turns] == [
        order[i % len(order)] for i in range(len(ended.turns))
    ]


def test_playing_on_stops_after_the_turns_asked_for() -> None:
    from engine.simulate import play_on

    begun = random_game(random.Random(1), Seats.parse("S=red,N=green"), max_turns=3)
    assert len(play_on(random.Random(2), begun, max_turns=4).turns) == 7
    assert play_on(random.Random(2), begun, max_turns=0) == begun


def test_tiles_left_from_an_illegal_play_are_flagged_on_the_next() -> None:
    seats = Seats.parse("S=red,W=green")
    record = GameRecord(GameSetup(seats, start=Position.from_json({"squares": {"b2": "4h"}})))
    record = record.with_turn(
        Turn("red", Action.PLAY, Position.from_json({"squares": {"b2": "4h", "c2": "6h"}}))
    )  # 6♥ next to 4♥: no set, illegal
    record = record.with_turn(
        Turn(
            "green",
            Action.PLAY,
            Position.from_json({"squares": {"b2": "4h", "c2": "6h", "c3": "5h"}}),
        )
    )  # green's 5♥ joins 4♥ 6♥
    outcomes = record.replay().outcomes
    assert not outcomes[0].counted and outcomes[1].counted
    assert outcomes[1].warnings == ("6♥ on c2 is from red's illegal turn 1, which was taken back",)


def test_a_tile_left_by_several_illegal_plays_is_flagged_once_from_the_first() -> None:
    seats = Seats.parse("S=red,W=green")
    boards = ["b2=4h c2=6h", "b2=4h c2=6h a3=9c", "b2=4h c2=6h a3=9c c3=5h"]
    record = GameRecord(GameSetup(seats, start=Position.from_json({"squares": {"b2": "4h"}})))
    for player, board in zip(["red", "green", "red"], boards, strict=True):
        squares = dict(part.split("=") for part in board.split())
        record = record.with_turn(
            Turn(player, Action.PLAY, Position.from_json({"squares": squares}))
        )
    outcomes = record.replay().outcomes
    assert not outcomes[0].counted and not outcomes[1].counted
    assert outcomes[2].warnings == (
        "6♥ on c2 is from red's illegal turn 1, which was taken back",
        "9♣ on a3 is from green's illegal turn 2, which was taken back",
    )
