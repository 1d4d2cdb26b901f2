"""A player's slips at the dashboard (a double click, a key held down, Swap pressed while
a question waits) and malformed requests: refused, and nothing recorded twice or lost."""

from __future__ import annotations

from pathlib import Path

from engine import GameSetup, Position, Seats
from setupcam.session import GameSession
from setupcam.store import GameStore
from webui import create_app

TWO = {"seats": {"S": "red", "W": "green"}, "start": {"squares": {"b2": "5h"}}}


def test_a_restart_reopens_the_game_being_played_not_a_newer_one_set_aside(
    tmp_path: Path,
) -> None:
    db = tmp_path / "games.sqlite"
    session = GameSession(GameStore(db))
    first = session.new_game(GameSetup(Seats.parse("S=red,W=green")))
    session.play(Position.from_json({"squares": {"b2": "5h"}}))
    session.new_game(GameSetup(Seats.parse("S=red,W=green,N=yellow")))  # pressed by mistake
    session.resume(first)  # and the players went back to their game
    session.store.close()

    again = GameSession(GameStore(db))
    assert again.resume_latest()
    assert again.game_id == first
    assert len(again.record.turns) == 1  # type: ignore[union-attr]


def test_a_play_recorded_by_hand_twice_is_refused_not_recorded_as_the_next_players() -> None:
    # "Record" double-clicked in the Record a play dialog sends the same board twice:
    # the second must not become green's illegal "nothing was placed" turn.
    session = GameSession(GameStore(":memory:"))
    client = create_app(session, None, testing=False).test_client()
    assert client.post("/api/games", json=TWO).status_code == 201
    board = {"position": {"squares": {"b2": "5h", "c2": "6h"}}}
    assert client.post("/api/play", json=board).status_code == 200
    again = client.post("/api/play", json=board)
    assert again.status_code == 409
    assert "nothing was placed" in again.json["error"]
    state = client.get("/api/state").json
    assert len(state["turns"]) == 1 and state["next_player"] == "green"


def test_an_illegal_play_recorded_by_hand_twice_is_recorded_once() -> None:
    session = GameSession(GameStore(":memory:"))
    client = create_app(session, None, testing=False).test_client()
    assert client.post("/api/games", json=TWO).status_code == 201
    board = {"position": {"squares": {"b2": "5h", "d3": "9c"}}}  # in no set: illegal
    assert client.post("/api/play", json=board).status_code == 200
    assert client.post("/api/play", json=board).status_code == 409
    assert len(client.get("/api/state").json["turns"]) == 1


def test_holding_a_shortcut_key_down_undoes_one_turn_not_every_turn() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from browser import chromium, serving

    session = GameSession(GameStore(":memory:"))
    session.new_game(GameSetup(Seats.parse("S=red,W=green")))
    for board in ("b2=5h", "b2=5h c2=6h", "b2=5h c2=6h c3=7h"):
        squares = dict(pair.split("=") for pair in board.split())
        session.play(Position.from_json({"squares": squares}))
    with serving(create_app(session, None)) as url, chromium() as browser:
        page = browser.new_page()
        page.goto(url + "/")
        page.wait_for_selector("body[data-turns='3']")
        # A key held down: one keydown, then the keyboard's auto-repeats.
        page.evaluate(
            "for (let i = 0; i < 3; i++) document.body.dispatchEvent(new KeyboardEvent("
            "'keydown', {key: 'u', repeat: i > 0, bubbles: true}))"
        )
        page.wait_for_selector("body[data-turns='2']")
        page.wait_for_timeout(500)
        assert len(session.record.turns) == 2  # type: ignore[union-attr]


def test_a_swap_waits_for_the_question_about_the_last_play() -> None:
    from setupcam.session import PendingPlay

    session = GameSession(GameStore(":memory:"))
    client = create_app(session, None, testing=False).test_client()
    assert client.post("/api/games", json=TWO).status_code == 201
    seen = Position.from_json({"squares": {"b2": "5h", "c2": "6h"}})
    session.propose(PendingPlay("red", seen, ("c2 is unclear",), ("c2",)))
    swap = client.post("/api/swap", json={})
    assert swap.status_code == 409
    assert "confirm" in swap.json["error"]
    # Red's play, once confirmed, is red's: not the next player's with red's tiles.
    confirmed = client.post("/api/pending/confirm", json={})
    assert confirmed.json["turn"]["player"] == "red"
    assert [t["action"] for t in client.get("/api/state").json["turns"]] == ["play"]


def test_teams_that_are_not_colour_names_are_a_400_not_a_500() -> None:
    client = create_app(GameSession(GameStore(":memory:")), None, testing=False).test_client()
    four = {"S": "red", "W": "green", "N": "yellow", "E": "purple"}
    for teams in ([[1, 2], [3, 4]], [["red", None], ["green", "purple"]], [["red", 1], ["a", "b"]]):
        answer = client.post("/api/games", json={"seats": four, "teams": teams})
        assert answer.status_code == 400, (teams, answer.json)
        assert "teams" in answer.json["error"]
    assert client.get("/api/state").json["status"] == "no game"


def test_a_token_with_characters_beyond_ascii_is_a_403_not_a_500() -> None:
    session = GameSession(GameStore(":memory:"))
    client = create_app(session, None, token="s3cret", testing=False).test_client()
    for bad in ({"query_string": {"token": "é"}}, {"headers": {"X-Setupcam-Token": "ü"}}):
        answer = client.post("/api/games", json=TWO, **bad)  # type: ignore[arg-type]
        assert answer.status_code == 403, answer.json
    assert session.game_id is None
    assert client.post("/api/games?token=s3cret", json=TWO).status_code == 201


def _post_chunked(url: str, path: str, body: bytes) -> tuple[int, dict]:  # type: ignore[type-arg]
    import http.client
    import json
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.putrequest("POST", path)
    connection.putheader("Content-Type", "application/json")
    connection.putheader("Transfer-Encoding", "chunked")
    connection.endheaders()
    for start in range(0, len(body), 4096):
        chunk = body[start : start + 4096]
        connection.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    connection.send(b"0\r\n\r\n")
    answer = connection.getresponse()
    data = json.loads(answer.read())
    connection.close()
    return answer.status, data


def test_a_chunked_body_that_is_not_json_changes_nothing() -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from browser import serving

    session = GameSession(GameStore(":memory:"))
    session.new_game(GameSetup(Seats.parse("S=red,W=green")))
    session.play(Position.from_json({"squares": {"b2": "5h"}}))
    with serving(create_app(session, None)) as url:
        for body in (b'{"oops": ', b'{"x": "' + b"a" * 300_000 + b'"}'):
            for path in ("/api/undo", "/api/swap"):
                status, data = _post_chunked(url, path, body)
                assert status in (400, 413), (path, status, data)
    assert len(session.record.turns) == 1  # type: ignore[union-attr]


def test_confirming_with_a_position_that_is_no_board_is_refused() -> None:
    from setupcam.session import PendingPlay

    session = GameSession(GameStore(":memory:"))
    client = create_app(session, None, testing=False).test_client()
    assert client.post("/api/games", json=TWO).status_code == 201
    seen = Position.from_json({"squares": {"b2": "5h", "c2": "6h"}})
    session.propose(PendingPlay("red", seen, ("c2 is unclear",), ("c2",)))
    fixed = {"squares": {"b2": "5h", "c2": "6d"}}
    for body in ({"position": False}, {"position": {}}, {"position": ""}, {"positon": fixed}):
        answer = client.post("/api/pending/confirm", json=body)
        assert answer.status_code == 400, (body, answer.json)
    assert session.pending is not None and not session.record.turns  # type: ignore[union-attr]
    assert client.post("/api/pending/confirm", json={"position": fixed}).status_code == 200
