"""The game session and its SQLite store: nothing lost, everything re-derived."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import pos

from engine import GameSetup, Seats, Tile
from setupcam.session import GameSession, PendingPlay, SessionError, SessionInputError
from setupcam.store import GameStore


def new_session(path: Path | str = ":memory:") -> GameSession:
    session = GameSession(GameStore(path))
    session.new_game(GameSetup(Seats.parse("S=red,W=green"), start=pos("b2=5h")))
    return session


def test_resume_after_a_crash(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite"
    session = new_session(db)
    session.play(pos("b2=5h c2=6h"))
    session.swap()
    session.play(pos("b2=5h c2=6h c3=7h"))
    session.correct("c3", Tile.parse("7h"))
    before = session.state_json()
    # A new process opens the same file: the game is exactly as it was.
    again = GameSession(GameStore(db))
    assert again.resume_latest()
    after = again.state_json()
    for key in ("players", "turns", "position", "status", "next_player", "in_bag", "buried"):
        assert after[key] == before[key], key
    assert again.record == session.record


def test_a_game_on_a_users_own_board_resumes_without_its_file(tmp_path: Path) -> None:
    from engine import Layout, Position

    # The user's board joins no squares diagonally, under a name of its own.
    data = Layout.load().to_dict()
    data["name"] = "kitchen-table"
    data["lines"] = [p for p in data["lines"] if p[0][0] == p[1][0] or p[0][1] == p[1][1]]
    layout = Layout.from_dict(data)
    db = tmp_path / "games.sqlite"
    session = GameSession(GameStore(db))
    start = Position.from_json({"squares": {"b2": "5h"}}, layout)
    session.new_game(GameSetup(Seats.parse("S=red,W=green"), start=start))
    after = Position.from_json({"squares": {"b2": "5h", "c3": "6h"}}, layout)
    assert not session.play(after).result.legal  # type: ignore[union-attr]  # no diagonal
    again = GameSession(GameStore(db))
    assert again.resume_latest()
    assert again.record.setup.layout == layout
    assert again.record == session.record


def test_a_turn_that_went_on_is_recorded_whole_and_kept_so(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite"
    session = new_session(db)
    session.play(pos("b2=5h c2=6h"))  # red, then a pause: only the first tile seen
    outcome = session.continue_turn(pos("b2=5h c2=6h c3=7h"))
    assert outcome.turn.player == "red" and outcome.result and outcome.result.points == 3
    assert [t.player for t in session.record.turns] == ["red"]
    assert session.state.next_player == "green"  # type: ignore[union-attr]
    again = GameSession(GameStore(db))
    assert again.resume_latest() and again.record == session.record
    session.swap()
    with pytest.raises(SessionError, match="not a play"):
        session.continue_turn(pos("b2=5h c2=6h c3=7h b3=8h"))


def test_tiles_the_players_said_were_no_play_are_remembered_until_read_otherwise() -> None:
    session = new_session()
    # The camera asks about a spare 7★ lying on b1; the players say: not a play.
    session.propose(PendingPlay("red", pos("b2=5h b1=7x"), ("7★ on b1 is in no set",)))
    session.dismiss_pending()
    assert session.foreign == {"b1": Tile.parse("7x")}
    # A correction when confirming says less: the tile left out of red's play may be
    # green's, already put down (the simulated gate had such a turn, scored wrong).
    session.propose(PendingPlay("red", pos("b2=5h b1=7x c2=6h a2=9c"), ("a2 is green's",)))
    session.confirm_pending(pos("b2=5h c2=6h"))
    assert session.foreign == {"b1": Tile.parse("7x")}
    session.forget_foreign("b1")  # the camera reads b1 otherwise now
    assert session.foreign == {}
    session.new_game(GameSetup(Seats.parse("S=red,W=green"), start=pos("b2=5h")))
    assert session.foreign == {}


def test_play_swap_and_turn_order() -> None:
    session = new_session()
    outcome = session.play(pos("b2=5h c2=6h"))
    assert outcome.turn.player == "red" and outcome.result and outcome.result.points == 2
    assert session.swap().turn.player == "green"
    with pytest.raises(SessionError, match="it is red's turn"):
        session.swap("green")


def test_undo_keeps_a_copy(tmp_path: Path) -> None:
    session = new_session(tmp_path / "g.sqlite")
    session.play(pos("b2=5h c2=6h"))
    undone = session.undo()
    assert undone.player == "red"
    assert session.state is not None and session.state.scores == {"red": 0, "green": 0}
    rows = session.store._db.execute("SELECT player FROM undone_turns").fetchall()
    assert rows == [("red",)]
    with pytest.raises(SessionError, match="no turn to undo"):
        session.undo()


def test_an_illegal_play_is_not_proposed_again_for_the_next_player() -> None:
    from setupcam.live_app import SessionLink
    from vision.decoder import Decision

    session = new_session()
    session.play(pos("b2=5h d3=9c"))  # 9♣ joins nothing: illegal, taken back
    assert session.state is not None and session.state.position == pos("b2=5h")
    link = SessionLink(session)
    # Its tiles still lie on the table: green has not played them.
    link.on_decision(Decision("play", pos("b2=5h d3=9c"), 0.99))
    assert session.record is not None and len(session.record.turns) == 1
    # Green's own play is read as ever.
    link.on_decision(Decision("play", pos("b2=5h c2=6h"), 0.99))
    assert [t.player for t in session.record.turns] == ["red", "green"]


def test_a_turn_undone_by_mistake_is_recorded_again_when_seen_again() -> None:
    from setupcam.live_app import SessionLink
    from vision.decoder import Decision

    session = new_session()
    session.play(pos("b2=5h c2=6h"))
    session.undo()
    SessionLink(session).on_decision(Decision("play", pos("b2=5h c2=6h"), 0.99))
    assert session.record is not None and len(session.record.turns) == 1


def test_correction_rederives_later_scores() -> None:
    session = new_session()
    session.play(pos("b2=5h c2=6s"))  # the camera misread 6♥ as 6♠: illegal, no points
    assert session.state is not None and session.state.scores["red"] == 0
    session.play(pos("b2=5h c2=6s c3=7h"))  # green's 7♥, read on the misread board
    number = session.correct("c2", Tile.parse("6h"), 1)
    assert number == 1
    state = session.state
    assert state is not None
    # red's 6♥ joins 5♥ (2 points); green's 7♥ extends 5♥ 6♥ (3 points).
    assert state.scores == {"red": 2, "green": 3}
    assert [c["note"] for c in session.store.corrections(session.game_id or 0)] == [
        "c2: 6♠ -> 6♥",
        "c2: 6♠ -> 6♥",
    ]


def test_before_the_first_turn_a_correction_fixes_the_starting_board() -> None:
    session = new_session()
    assert session.correct("c2", Tile.parse("6h")) == 0
    assert session.correct("b2", None) == 0
    assert session.state is not None
    assert session.state.setup.start == pos("c2=6h")
    session.play(pos("c2=6h c3=6s"))  # scored against the fixed board
    assert session.state.outcomes[-1].result is not None
    assert dict(session.state.outcomes[-1].result.placed) == {"c3": Tile.parse("6s")}


def test_the_starting_board_is_corrected_after_turns_and_the_scores_rederived() -> None:
    session = GameSession(GameStore(":memory:"))
    game_id = session.new_game(GameSetup(Seats.parse("S=red,W=green"), start=pos("b2=5s")))
    session.play(pos("b2=5s c2=6h"))  # 5♥ misread as 5♠ at set-up: red's 6♥ scores nothing
    assert session.state is not None and session.state.scores["red"] == 0
    assert session.correct("b2", Tile.parse("5h"), 0) == 0
    assert session.state.setup.start == pos("b2=5h")
    assert session.state.scores["red"] == 2  # 6♥ joins 5♥
    assert session.game_id == game_id  # the same game, not a new one
    notes = [(c["turn"], c["note"]) for c in session.store.corrections(game_id)]
    assert notes == [(0, "b2: 5♠ -> 5♥"), (1, "b2: 5♠ -> 5♥")]
    # Saved: the game read back from the store is the corrected one.
    assert session.store.load_record(game_id) == session.record


def test_a_correction_goes_to_the_turn_that_placed_the_tile() -> None:
    session = new_session()
    session.play(pos("b2=5h c2=6s"))  # red's 6♥ misread as 6♠: illegal, no points
    session.play(pos("b2=5h c2=6s c3=7h"))  # green's 7♥
    assert session.correct("c2", Tile.parse("6h")) == 1  # not turn 2, the last play
    assert session.state is not None and session.state.scores == {"red": 2, "green": 3}
    # A tile missed on an empty square belongs to the last play.
    assert session.correct("d2", Tile.parse("8h")) == 2
    # The starting board's own tiles go to turn 0.
    assert session.correct("b2", Tile.parse("5h")) == 0  # read right: nothing changes
    assert len(session.store.corrections(session.game_id or 0)) == 3


def test_replacing_the_starting_board_keeps_the_game() -> None:
    session = new_session()
    game_id = session.game_id
    session.correct_start(pos("b2=5s c2=6h"))
    assert session.game_id == game_id and session.state is not None
    assert session.state.setup.start == pos("b2=5s c2=6h")
    assert [g.id for g in session.store.games()] == [game_id]
    assert [c["note"] for c in session.store.corrections(game_id or 0)] == [
        "b2: 5♥ -> 5♠, c2: empty -> 6♥"
    ]


def test_a_correction_that_cannot_apply_to_every_turn_saves_nothing(tmp_path: Path) -> None:
    session = new_session(tmp_path / "g.sqlite")
    session.play(pos("b2=5h c2=6s"))
    session.play(pos("b2=5h c2=6s c3=7h"))
    record = session.record
    # 7♥ on c2 fits turn 1, but turn 2 (still showing 6♠ there) has 7♥ on c3 already.
    with pytest.raises(
        SessionError, match="carried into turn 2, which still showed 6♠: tile 7♥ appears twice"
    ):
        session.correct("c2", Tile.parse("7h"), 1)
    assert session.record == record
    assert session.store.load_record(session.game_id or 0) == record
    assert session.store.corrections(session.game_id or 0) == []


def test_correction_errors() -> None:
    session = new_session()
    with pytest.raises(SessionError, match="twice"):
        session.correct("c2", Tile.parse("5h"))
    session.play(pos("b2=5h c2=6h"))
    with pytest.raises(SessionInputError, match="unknown square 'z9'"):
        session.correct("z9", None)
    with pytest.raises(SessionInputError, match="no turn -1"):
        session.correct("c2", None, -1)
    with pytest.raises(SessionError, match="twice"):
        session.correct("c3", Tile.parse("5h"))
    session.swap()
    with pytest.raises(SessionError, match="swap"):
        session.correct("c2", None, 2)


def test_pending_play_is_confirmed_with_corrections() -> None:
    session = new_session()
    session.propose(PendingPlay("red", pos("b2=5h c2=6d"), ("not sure of c2",), ("c2",)))
    assert session.state_json()["pending"]["uncertain_squares"] == ["c2"]
    outcome = session.confirm_pending(pos("b2=5h c2=6h"))
    assert outcome.result is not None and outcome.result.points == 2
    assert session.pending is None


def test_dismissed_pending_is_remembered_until_the_next_turn() -> None:
    session = new_session()
    wrong = pos("b2=5h c2=6d")
    session.propose(PendingPlay("red", wrong, ("illegal",)))
    session.dismiss_pending()
    assert wrong in session.dismissed
    session.swap()
    assert not session.dismissed
    with pytest.raises(SessionError, match="no play waiting"):
        session.dismiss_pending()


def test_finished_game_refuses_turns() -> None:
    import random

    from engine import Action
    from engine.simulate import random_game

    record = random_game(random.Random(4), Seats.parse("S=red,W=green"))
    session = GameSession(GameStore(":memory:"))
    session.new_game(record.setup)
    for turn in record.turns:
        if turn.action is Action.SWAP:
            session.swap(turn.player)
        else:
            assert turn.position is not None
            session.play(turn.position)
    assert session.state is not None and session.state.finished
    assert session.state_json()["ending"]["winner"] == record.replay().ending.winner  # type: ignore[union-attr]
    with pytest.raises(SessionError, match="the game is over"):
        session.swap()
    session.undo()
    assert not session.state.finished


def test_export_json_replays_and_csv_has_every_turn() -> None:
    from engine import GameRecord

    session = new_session()
    session.play(pos("b2=5h c2=6h"))
    session.swap()
    record = GameRecord.from_json(session.export_json())
    assert record.replay().scores == {"red": 2, "green": 0}
    lines = session.export_csv().strip().splitlines()
    assert lines[0].startswith("turn,player,action")
    assert len(lines) == 3 and lines[1].startswith("1,red,play,True,c2=6♥,2")


def test_no_game_yet() -> None:
    session = GameSession(GameStore(":memory:"))
    assert session.state_json()["status"] == "no game"
    assert not session.resume_latest()
    with pytest.raises(SessionError, match="no game is running"):
        session.swap()


def test_new_game_abandons_the_old_one() -> None:
    session = new_session()
    first = session.game_id
    session.new_game(GameSetup(Seats.parse("S=red,N=blue")))
    statuses = {g.id: g.status for g in session.store.games()}
    assert statuses[first or 0] == "abandoned"
    assert statuses[session.game_id or 0] == "playing"


def test_wait_for_change() -> None:
    session = new_session()
    version = session.version
    assert session.wait_for_change(version, timeout=0.01) == version
    session.swap()
    assert session.wait_for_change(version, timeout=0.01) > version


def test_camera_status_notifies_only_on_change() -> None:
    session = GameSession(GameStore(":memory:"))
    session.set_camera_status({"state": "tracking", "message": "watching", "frame_ms": 10.0})
    version = session.version
    session.set_camera_status({"state": "tracking", "message": "watching", "frame_ms": 11.0})
    assert session.version == version
    assert session.state_json()["camera"]["frame_ms"] == 11.0
    session.set_camera_status({"state": "lost", "message": "board not found", "frame_ms": 3.0})
    assert session.version == version + 1
