"""The dashboard's JSON API, through Flask's test client."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from engine import Edge, Layout
from setupcam.session import GameSession
from setupcam.store import GameStore
from webui import create_app


class FakeCamera:
    """A camera control with a fixed picture and corners, as the pipeline provides."""

    def __init__(self) -> None:
        self.corners: list[list[float]] | None = [[10, 10], [90, 10], [90, 90], [10, 90]]
        self.saved = 0
        self.reading_seats: Any = None
        self.blur: float | None = 0.7

    def latest_jpeg(self, annotated: bool = True) -> bytes | None:
        return b"\xff\xd8fakejpeg" + (b"A" if annotated else b"R")

    def board_corners(self) -> list[list[float]] | None:
        return self.corners

    def picture_blur(self) -> float | None:
        return self.blur

    def set_board_corners(self, corners: list[list[float]]) -> None:
        self.corners = corners

    def save_calibration(self) -> str:
        self.saved += 1
        return "/tmp/calibration.json"

    def current_reading(self, seats: Any = None) -> dict[str, Any] | None:
        self.reading_seats = seats
        return {"squares": {"b2": "5♥", "c2": "9♣"}}

    @property
    def layout(self) -> Layout:
        return Layout.load()


@pytest.fixture
def session() -> GameSession:
    return GameSession(GameStore(":memory:"))


@pytest.fixture
def client(session: GameSession) -> FlaskClient:
    return create_app(session, FakeCamera(), testing=True).test_client()


def start(client: FlaskClient, **extra: Any) -> Any:
    body = {"seats": {"S": "red", "W": "green"}, "start": {"squares": {"b2": "5h"}}} | extra
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.json
    return response.json


def test_state_contract_fields(client: FlaskClient) -> None:
    start(client)
    client.post("/api/play", json={"position": {"squares": {"b2": "5h", "c2": "6h"}}})
    state = client.get("/api/state").json
    assert {"players", "turns", "position", "status"} <= state.keys()
    assert state["players"][0] == {
        "colour": "red",
        "edge": "S",
        "score": 2,
        "to_finish": 29,
        "team": None,
    }
    assert state["turns"][0]["player"] == "red" and state["turns"][0]["points"] == 2
    assert state["position"]["squares"]["c2"] == "6♥"
    assert state["status"] == "playing"
    assert state["next_player"] == "green"
    # A turn's keys come in the order of `setupcam score`'s object, not sorted by name.
    turn = json.loads(client.get("/api/state").get_data(as_text=True))["turns"][0]
    contract = ["legal", "errors", "placed", "points", "scoring_tiles", "sets", "bonus"]
    assert [key for key in turn if key in contract] == contract


def test_new_game_reads_the_start_from_the_camera(session: GameSession) -> None:
    camera = FakeCamera()
    client = create_app(session, camera, testing=True).test_client()
    response = client.post("/api/games", json={"seats": {"S": "red", "N": "blue"}})
    assert response.status_code == 201
    assert response.json["state"]["position"]["squares"]["c2"] == "9♣"
    # The seats go to the camera side: they can tell it which edge is south.
    assert camera.reading_seats.by_edge[Edge.SOUTH] == "red"


def test_swap_undo_correct(client: FlaskClient) -> None:
    start(client)
    client.post("/api/play", json={"position": {"squares": {"b2": "5h", "c2": "6s"}}})
    assert client.post("/api/swap", json={}).json["turn"]["player"] == "green"
    assert client.post("/api/undo").json["undone"]["action"] == "swap"
    response = client.post("/api/correct", json={"square": "c2", "tile": "6H"})
    assert response.status_code == 200
    assert response.json["state"]["players"][0]["score"] == 2


def test_pending_confirm_and_dismiss(client: FlaskClient, session: GameSession) -> None:
    from conftest import pos

    from setupcam.session import PendingPlay

    start(client)
    session.propose(PendingPlay("red", pos("b2=5h c2=6d"), ("not sure",), ("c2",)))
    assert client.get("/api/state").json["pending"]["player"] == "red"
    response = client.post(
        "/api/pending/confirm", json={"position": {"squares": {"b2": "5h", "c2": "6h"}}}
    )
    assert response.status_code == 200 and response.json["turn"]["points"] == 2
    assert client.post("/api/pending/dismiss").status_code == 409


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("/api/games", {"seats": {"S": "red"}}, 400, "2 to 4 players"),
        ("/api/games", {"seats": {"S": "red", "X": "blue"}}, 400, "not a board edge"),
        (
            "/api/games",
            {"seats": {"S": "red", "W": "g"}, "options": {"equal_turns": 1}},
            400,
            "equal_turns",
        ),
        (
            "/api/games",
            {"seats": {"S": "a", "W": "b"}, "start": {"squares": {"q7": "5h"}}},
            400,
            "q7",
        ),
        ("/api/games", [1, 2], 400, "JSON object"),
        ("/api/correct", {"square": "b2", "tile": "11h"}, 400, "not a tile"),
        ("/api/correct", {"square": 5}, 400, "square name"),
        ("/api/correct", {"square": "b2", "tile": None, "turn": "x"}, 400, "turn number"),
        ("/api/correct", {"square": "b2", "tile": None, "turn": True}, 400, "turn number"),
        ("/api/play", {}, 400, "position"),
        ("/api/play", {"position": {"squares": {"b2": "5h", "c2": "5h"}}}, 400, "twice"),
        ("/api/swap", {"player": 3}, 400, "colour name"),
        ("/api/calibration/corners", {"corners": [[1, 2]]}, 400, "four"),
        ("/api/undo", {}, 409, "no game"),
    ],
)
def test_bad_requests_get_json_errors(
    client: FlaskClient, path: str, body: Any, status: int, message: str
) -> None:
    response = client.post(path, json=body)
    assert response.status_code == status
    assert message in response.json["error"]
    assert "Traceback" not in response.get_data(as_text=True)


def test_not_json_and_unknown_routes(client: FlaskClient) -> None:
    response = client.post("/api/swap", data="{nope", content_type="application/json")
    assert response.status_code == 400 and "JSON" in response.json["error"]
    assert client.get("/api/nothing").status_code == 404
    assert "error" in client.get("/api/nothing").json
    assert client.get("/api/swap").status_code == 405
    big = client.post("/api/games", data="x" * 300_000, content_type="application/json")
    assert big.status_code == 413


def test_exports(client: FlaskClient) -> None:
    start(client)
    client.post("/api/play", json={"position": {"squares": {"b2": "5h", "c2": "6h"}}})
    game = client.get("/api/export.json")
    assert game.json["seats"] == {"S": "red", "W": "green"}
    assert len(game.json["turns"]) == 1
    csv = client.get("/api/export.csv")
    assert csv.mimetype == "text/csv" and "1,red,play" in csv.get_data(as_text=True)


def test_token_protects_changes_not_reading(session: GameSession) -> None:
    client = create_app(session, FakeCamera(), token="s3cret", testing=True).test_client()
    assert client.get("/api/state").status_code == 200
    denied = client.post("/api/games", json={"seats": {"S": "red", "W": "green"}})
    assert denied.status_code == 403 and "token" in denied.json["error"]
    ok = client.post(
        "/api/games",
        json={"seats": {"S": "red", "W": "green"}},
        headers={"X-Setupcam-Token": "s3cret"},
    )
    assert ok.status_code == 201
    assert client.post("/api/swap?token=s3cret", json={}).status_code == 200
    assert client.post("/api/swap?token=wrong", json={}).status_code == 403


def test_calibration_endpoints(session: GameSession) -> None:
    camera = FakeCamera()
    client = create_app(session, camera, testing=True).test_client()
    calibration = client.get("/api/calibration").json
    assert calibration["corners"][0] == [10, 10]
    assert calibration["focus"] == {"blur_px": 0.7, "verdict": "sharp"}
    camera.blur = 2.345
    assert client.get("/api/calibration").json["focus"] == {"blur_px": 2.35, "verdict": "blurred"}
    camera.blur = None  # no board found yet
    assert client.get("/api/calibration").json["focus"] is None
    assert len(calibration["layout"]["squares"]) == 12
    corners = [[1, 1], [50, 2], [51, 50], [2, 49]]
    registered = client.post("/api/calibration/corners", json={"corners": corners}).json
    assert registered["corners"] == corners and "next frame" in registered["message"]
    assert client.get("/api/calibration").json["corners"] == corners
    assert camera.saved == 0  # registering corners writes nothing by itself
    assert client.post("/api/calibration/save").json == {"saved": "/tmp/calibration.json"}
    assert camera.saved == 1


def test_saving_the_calibration_writes_the_corners_in_use_and_the_boards_look(
    session: GameSession, tmp_path: Any
) -> None:
    from calibration.camera_file import load_board_look, load_calibration
    from tests.test_pipeline import TruthReader, table_with_truth_reader

    reader = TruthReader()
    _, frames, _, pipeline, runner = table_with_truth_reader(5, 1, reader)
    frame = next(frames)
    reader.truth = frame.truth
    runner.step(frame)
    path = tmp_path / "calibration.json"
    runner.calibration_path = str(path)
    client = create_app(session, runner, testing=True).test_client()
    assert client.post("/api/calibration/save").json == {"saved": str(path)}
    saved = load_calibration(path)
    height, width = frame.image.shape[:2]
    assert tuple(saved.image_size) == (width, height)
    assert saved.board_corners is not None
    in_use = runner.board_corners()
    assert in_use is not None
    assert np.allclose(np.asarray(saved.board_corners), np.asarray(in_use), atol=0.01)
    # The look beside it tells south from the board itself when it is found again.
    look = load_board_look(path)
    assert look is not None and pipeline.board.look is not None
    assert look.to_dict() == pipeline.board.look.to_dict()


def test_without_camera(session: GameSession) -> None:
    client = create_app(session, None, testing=True).test_client()
    # The server's state, not the request's fault: a conflict, as on the Enrol routes.
    assert client.get("/api/calibration").status_code == 409
    assert client.post("/api/enrollment/start", json={}).status_code == 409
    assert client.get("/frame.jpg").status_code == 404
    page = client.get("/").get_data(as_text=True)  # no broken camera picture
    assert "No camera is connected" in page and 'id="live"' not in page
    assert client.get("/api/state").json["camera"]["message"].startswith("no camera")


def test_requests_without_arguments_refuse_mistaken_ones(session: GameSession) -> None:
    client = create_app(session, None, testing=True).test_client()
    assert client.post("/api/undo", json=[1]).status_code == 400
    response = client.post("/api/games/1/resume", json={"x": 1})
    assert response.status_code == 400 and "takes no arguments, not 'x'" in response.json["error"]
    response = client.post("/api/games", json={"seats": {"S": "red", "N": "green"}, "options": []})
    assert response.status_code == 400 and "options" in response.json["error"]


def test_frames_and_events(client: FlaskClient) -> None:
    assert client.get("/frame.jpg").data.endswith(b"A")
    assert client.get("/frame.jpg?raw=1").data.endswith(b"R")
    video = client.get("/video.mjpg?frames=2")
    assert video.data.count(b"--frame") == 2
    events = client.get("/api/events?once=1").get_data(as_text=True)
    assert events.startswith("event: state\ndata: ")
    assert json.loads(events.split("data: ", 1)[1])["status"] == "no game"


def test_pages_render(client: FlaskClient) -> None:
    page = client.get("/").get_data(as_text=True)
    assert 'id="scoreboard"' in page and "game.js" in page
    assert "calibrate.js" in client.get("/calibrate").get_data(as_text=True)


def test_a_game_set_aside_by_a_new_game_can_be_resumed() -> None:
    session = GameSession(GameStore(":memory:"))
    client = create_app(session, FakeCamera(), testing=True).test_client()
    start = {"squares": {"b2": "5h"}}
    first = client.post("/api/games", json={"seats": {"S": "red", "W": "green"}, "start": start})
    first_id = first.get_json()["game_id"]
    client.post("/api/play", json={"position": {"squares": {"b2": "5h", "b3": "6h"}}})
    second = client.post("/api/games", json={"seats": {"S": "red", "N": "blue"}, "start": start})
    second_id = second.get_json()["game_id"]
    statuses = {g["id"]: g["status"] for g in client.get("/api/games").get_json()["games"]}
    assert statuses == {first_id: "abandoned", second_id: "playing"}
    answer = client.post(f"/api/games/{first_id}/resume", json={})
    state = answer.get_json()["state"]
    assert answer.status_code == 200 and state["game_id"] == first_id
    assert [p["score"] for p in state["players"]] == [2, 0] and len(state["turns"]) == 1
    statuses = {g["id"]: g["status"] for g in client.get("/api/games").get_json()["games"]}
    assert statuses == {first_id: "playing", second_id: "abandoned"}
    missing = client.post("/api/games/99/resume", json={})
    assert missing.status_code == 400 and "there is no game 99" in missing.get_json()["error"]
    assert session.game_id == first_id


def test_resume_refuses_what_it_cannot_do_and_changes_nothing() -> None:
    from setupcam.session import PendingPlay

    session = GameSession(GameStore(":memory:"))
    client = create_app(session, FakeCamera(), testing=True).test_client()
    start = {"squares": {"b2": "5h"}}
    first = client.post("/api/games", json={"seats": {"S": "red", "W": "green"}, "start": start})
    first_id = first.get_json()["game_id"]
    client.post("/api/games", json={"seats": {"S": "red", "N": "blue"}, "start": start})
    second_id = session.game_id
    huge = client.post("/api/games/99999999999999999999999/resume", json={})
    assert huge.status_code == 400 and "there is no game" in huge.get_json()["error"]
    for body in ("xx", "[1]"):
        answer = client.post(
            f"/api/games/{first_id}/resume", data=body, content_type="application/json"
        )
        assert answer.status_code == 400
    assert session.game_id == second_id
    # A play waiting for the players is not dropped by going to another game.
    session.propose(PendingPlay("red", session.state.position, ("not sure of b3",)))
    waiting = client.post(f"/api/games/{first_id}/resume", json={})
    assert (
        waiting.status_code == 409 and "confirm or dismiss it first" in waiting.get_json()["error"]
    )
    assert session.game_id == second_id and session.pending is not None


@pytest.mark.parametrize("body", [{"square": "b2"}, {"square": "b2", "tile": ""}])
def test_a_correction_names_the_tile_or_null(body: dict) -> None:
    session = GameSession(GameStore(":memory:"))
    client = create_app(session, FakeCamera(), testing=True).test_client()
    client.post("/api/games", json={"seats": {"S": "red", "W": "green"}, "start": {"squares": {}}})
    client.post("/api/play", json={"position": {"squares": {"b2": "5h", "b3": "6h"}}})
    answer = client.post("/api/correct", json=body)
    assert answer.status_code == 400 and "null for an empty square" in answer.get_json()["error"]
    assert session.state.position["b2"] is not None and session.store.corrections(1) == []


def test_new_game_waits_for_a_steady_view_of_the_board(session: GameSession) -> None:
    camera = FakeCamera()
    client = create_app(session, camera, testing=True).test_client()
    camera.current_reading = lambda seats=None: None  # type: ignore[method-assign]
    response = client.post("/api/games", json={"seats": {"S": "red", "W": "green"}})
    assert response.status_code == 409 and "no steady view" in response.json["error"]
    assert session.game_id is None  # no game with an empty start
    # Given by hand, the start needs no camera.
    given = {"seats": {"S": "red", "W": "green"}, "start": {"squares": {"b2": "5h"}}}
    assert client.post("/api/games", json=given).status_code == 201


def test_a_correction_is_previewed_without_saving(client: FlaskClient) -> None:
    start(client)
    client.post("/api/play", json={"position": {"squares": {"b2": "5h", "c2": "6h"}}})
    before = client.get("/api/state").json
    preview = client.post("/api/correct/preview", json={"square": "b2", "tile": "5s", "turn": 0})
    assert preview.status_code == 200
    assert preview.json == {
        "corrected_turn": 0,
        "scores": {"red": 0, "green": 0},
        "scores_now": {"red": 2, "green": 0},
        "turns_made_illegal": [1],
    }
    after = client.get("/api/state").json
    assert after["turns"] == before["turns"] and after["corrections"] == []
    bad = client.post("/api/correct/preview", json={"square": "zz", "tile": None})
    assert bad.status_code == 400
