"""Bad input to the web API: a 4xx JSON error that names the problem, never a 500, and
never a change to the game or the camera."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from engine import Layout
from setupcam.session import GameSession
from setupcam.store import GameStore
from vision.pipeline import LivePipeline
from vision.runner import PipelineRunner
from webui import create_app

SQUARE_CORNERS = [[10, 10], [190, 10], [190, 190], [10, 190]]


def demo_camera(calibration_path: str | None = None) -> PipelineRunner:
    """The camera control `setupcam demo` serves, before any frame has arrived. The
    calibration paths under test never reach the recognizer, so none is given."""
    pipeline = LivePipeline(None, Layout.load())  # type: ignore[arg-type]
    return PipelineRunner(None, pipeline, calibration_path=calibration_path)  # type: ignore[arg-type]


@pytest.fixture
def session() -> GameSession:
    return GameSession(GameStore(":memory:"))


@pytest.fixture
def camera() -> PipelineRunner:
    return demo_camera()


@pytest.fixture
def client(session: GameSession, camera: PipelineRunner) -> FlaskClient:
    # testing=False: an unexpected exception is answered as the server answers it (a
    # 500), not raised into the test, so the test sees what a client would.
    return create_app(session, camera, testing=False).test_client()


def played_one_turn(client: FlaskClient) -> dict[str, Any]:
    """A game whose starting board has 5♥ on b2, after red played 6♥ on c2 (2 points)."""
    start = {"seats": {"S": "red", "W": "green"}, "start": {"squares": {"b2": "5h"}}}
    assert client.post("/api/games", json=start).status_code == 201
    play = client.post("/api/play", json={"position": {"squares": {"b2": "5h", "c2": "6h"}}})
    assert play.status_code == 200
    state = client.get("/api/state").json
    assert state["players"][0]["score"] == 2
    return state


def assert_refused(response: Any, status: int, words: str) -> None:
    assert response.status_code == status, response.get_json()
    assert words in response.json["error"]
    assert "Traceback" not in response.get_data(as_text=True)


# -- 1. turn 0 is the starting board ---------------------------------------------------


def test_correcting_turn_0_after_a_turn_fixes_the_starting_board_not_the_last_play(
    client: FlaskClient,
) -> None:
    before = played_one_turn(client)
    response = client.post("/api/correct", json={"square": "b2", "tile": None, "turn": 0})
    assert response.status_code == 200 and response.json["corrected_turn"] == 0
    after = response.json["state"]
    # The old code read turn 0 as "not given" and emptied b2 in turn 1 only.
    assert after["start"]["squares"]["b2"] is None
    assert after["position"]["squares"]["b2"] is None  # turn 1 still showed it: fixed too
    assert after["players"][0]["score"] == 0  # 6♥ alone is in no set
    assert [c["turn"] for c in after["corrections"]] == [0, 1]
    assert after["game_id"] == before["game_id"]


def test_correcting_turn_0_before_the_first_turn_fixes_the_starting_board(
    client: FlaskClient,
) -> None:
    start = {"seats": {"S": "red", "W": "green"}, "start": {"squares": {"b2": "5h"}}}
    client.post("/api/games", json=start)
    response = client.post("/api/correct", json={"square": "b2", "tile": "5s", "turn": 0})
    assert response.status_code == 200
    assert response.json["corrected_turn"] == 0
    assert response.json["state"]["start"]["squares"]["b2"] == "5♠"


def test_a_negative_turn_is_a_bad_request(client: FlaskClient) -> None:
    played_one_turn(client)
    response = client.post("/api/correct", json={"square": "c2", "tile": None, "turn": -1})
    assert_refused(response, 400, "no turn -1")
    assert client.get("/api/state").json["players"][0]["score"] == 2


# -- 6. an unknown square is bad input -------------------------------------------------


def test_an_unknown_square_is_a_bad_request_naming_it(client: FlaskClient) -> None:
    played_one_turn(client)
    response = client.post("/api/correct", json={"square": "zz", "tile": None})
    assert_refused(response, 400, "unknown square 'zz'")


# -- 2. corners that are no board outline ----------------------------------------------


@pytest.mark.parametrize(
    ("corners", "words"),
    [
        ([[0, 0], [0, 0], [0, 0], [0, 0]], "convex outline"),
        ([[0, 0], [0, 100], [100, 100], [100, 0]], "NW, NE, SE, SW"),  # anticlockwise
        ([[1e308, 0], [1e308, 1], [0, 1e308], [0, 0]], "within ±100000 pixels"),
        ([[True, 0], [100, 0], [100, 100], [0, 100]], "corner NW must be an [x, y] pair"),
        ([[0, 0], [100, False], [100, 100], [0, 100]], "corner NE must be an [x, y] pair"),
        ([[0, 0], [100, 0], ["100", 100], [0, 100]], "corner SE must be an [x, y] pair"),
        ([[0, 0], [100, 0], [100, 100], [0, 10**400]], "corner SW is not a point"),
        # A clockwise square, but a pixel wide: no board (Save used to refuse it later).
        ([[0, 0], [1, 0], [1, 1], [0, 1]], "shortest side is 1 px"),
    ],
)
def test_bad_corners_are_a_bad_request_and_register_nothing(
    client: FlaskClient, camera: PipelineRunner, corners: Any, words: str
) -> None:
    response = client.post("/api/calibration/corners", json={"corners": corners})
    assert_refused(response, 400, words)
    camera.pipeline.board.update(np.zeros((200, 200, 3), np.uint8))
    assert camera.board_corners() is None  # nothing was registered for the next frame


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_corners_are_a_bad_request(client: FlaskClient, value: str) -> None:
    # Python's JSON reader accepts these words, so they reach the API as floats.
    body = f'{{"corners": [[{value}, 0], [100, 0], [100, 100], [0, 100]]}}'
    response = client.post("/api/calibration/corners", data=body, content_type="application/json")
    assert_refused(response, 400, "must be finite")


# -- 3. the corners registered are the answer ------------------------------------------


def test_registered_corners_are_answered_and_used_from_the_next_frame(
    client: FlaskClient, camera: PipelineRunner
) -> None:
    response = client.post("/api/calibration/corners", json={"corners": SQUARE_CORNERS})
    assert response.status_code == 200
    assert response.json["corners"] == SQUARE_CORNERS
    assert "next frame" in response.json["message"]
    # The camera's next frame adopts exactly those corners.
    camera.pipeline.board.update(np.zeros((200, 200, 3), np.uint8))
    assert client.get("/api/calibration").json["corners"] == SQUARE_CORNERS


# -- 4. saving the calibration when it cannot be saved ---------------------------------


def test_saving_without_a_calibration_file_is_a_conflict(client: FlaskClient) -> None:
    response = client.post("/api/calibration/save", json={})
    assert_refused(response, 409, "no calibration file was given (start with --calibration")


def test_saving_before_the_board_is_located_is_a_conflict(
    session: GameSession, tmp_path: Path
) -> None:
    path = tmp_path / "calibration.json"
    client = create_app(session, demo_camera(str(path))).test_client()
    response = client.post("/api/calibration/save", json={})
    assert_refused(response, 409, "the board is not located")
    assert not path.exists()


def test_corners_far_outside_the_cameras_picture_are_a_bad_request(
    client: FlaskClient, camera: PipelineRunner
) -> None:
    from vision.sources import SourceFrame

    camera.step(SourceFrame(np.zeros((200, 300, 3), np.uint8), 0.0))  # no board in it
    far = [[1000, 0], [2000, 0], [2000, 900], [1000, 900]]
    assert_refused(
        client.post("/api/calibration/corners", json={"corners": far}),
        400,
        "the corners lie far outside the camera's 300x200 picture",
    )
    # Reaching past the edge is fine: a board may be partly out of the picture.
    partly = [[-50, 10], [150, 10], [150, 190], [-50, 190]]
    assert client.post("/api/calibration/corners", json={"corners": partly}).status_code == 200


def test_saving_where_the_file_cannot_be_written_is_a_conflict(
    session: GameSession, tmp_path: Path
) -> None:
    from vision.sources import SourceFrame

    gone = tmp_path / "gone"
    gone.mkdir()
    camera = demo_camera(str(gone / "calibration.json"))
    camera.step(SourceFrame(np.zeros((200, 200, 3), np.uint8), 0.0))
    camera.set_board_corners(SQUARE_CORNERS)
    camera.pipeline.board.update(np.zeros((200, 200, 3), np.uint8))  # the corners adopted
    gone.rmdir()  # the folder went away after the dashboard started
    client = create_app(session, camera).test_client()
    response = client.post("/api/calibration/save", json={})
    assert_refused(response, 409, f"cannot write {gone / 'calibration.json'}")


# -- 5. JSON nested too deeply for the parser ------------------------------------------


@pytest.mark.parametrize("path", ["/api/play", "/api/games", "/api/coloretto/score"])
def test_deeply_nested_json_is_a_bad_request(client: FlaskClient, path: str) -> None:
    played_one_turn(client)
    deep = "[" * 100_000 + "]" * 100_000  # 200 KB: under the body limit
    response = client.post(path, data=deep, content_type="application/json")
    assert_refused(response, 400, "not valid JSON")
    assert len(client.get("/api/state").json["turns"]) == 1
