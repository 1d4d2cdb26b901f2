"""The JSON API behind every dashboard action (documented in docs/api.md)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from engine import (
    GameOptions,
    GameSetup,
    Position,
    PositionError,
    Seats,
    SeatsError,
    Teams,
    Tile,
    TileError,
)
from setupcam.session import GameSession, SessionError, SessionInputError, layout_json
from vision.photo_blur import focus_verdict
from webui.app import CameraControl
from webui.request_json import request_object

api = Blueprint("api", __name__)

MAX_GAME_ID = 2**63 - 1
"""The largest game number the database can hold (SQLite's integers are 64-bit)."""

MAX_CORNER_PX = 100_000
"""The largest corner coordinate taken, in pixels: far outside any camera image, yet
small enough for the pipeline's float32 perspective maths (1e308 overflows it)."""


class BadRequest(Exception):
    """A request the API refuses: answered as ``{"error": ...}`` with status 400."""


class Conflict(Exception):
    """A request the dashboard cannot take as it is now: answered with status 409."""


@api.errorhandler(BadRequest)
@api.errorhandler(Conflict)
@api.errorhandler(SessionError)
@api.errorhandler(PositionError)
@api.errorhandler(SeatsError)
@api.errorhandler(TileError)
def refused(err: Exception) -> Any:
    return jsonify(error=str(err)), _status_of(err)


def _status_of(err: Exception) -> int:
    """409 when the game or camera cannot take the request now, 400 when the request
    itself is wrong (a session error about the request's own words is the latter)."""
    if isinstance(err, Conflict):
        return 409
    if isinstance(err, SessionError) and not isinstance(err, SessionInputError):
        return 409
    return 400


def _session() -> GameSession:
    session: GameSession = current_app.extensions["setupcam.session"]
    return session


def _camera() -> CameraControl:
    camera: CameraControl | None = current_app.extensions["setupcam.camera"]
    if camera is None:
        raise Conflict("no camera is connected to this dashboard")
    return camera


def _body() -> dict[str, Any]:
    return request_object()


def _no_body() -> None:
    """For a request that takes no arguments: ``{}`` or nothing, and no mistaken keys."""
    body = _body()
    if body:
        raise BadRequest(f"this request takes no arguments, not {', '.join(map(repr, body))}")


def _position(data: Any, where: str) -> Position:
    layout = _session().state.setup.layout if _session().state else None
    return Position.from_json(data, layout, origin=where)


@api.get("/state")
def state() -> Any:
    return jsonify(_session().state_json())


@api.get("/games")
def games() -> Any:
    return jsonify(games=[g.__dict__ for g in _session().store.games()])


@api.post("/games/<int:game_id>/resume")
def resume_game(game_id: int) -> Any:
    """Go back to an earlier game (the one in progress is set aside, resumable too)."""
    _no_body()
    if game_id > MAX_GAME_ID:
        raise BadRequest(f"there is no game {game_id}")
    _session().resume(game_id)
    return jsonify(game_id=game_id, state=_session().state_json())


@api.post("/games")
def new_game() -> Any:
    """Start a game: ``{"seats": {"S": "red", ...}, "teams": null, "options": {}, "start": P}``."""
    body = _body()
    seats = Seats.from_json(body.get("seats"))
    teams_data = body.get("teams")
    teams = None if not teams_data else Teams.from_pairs(teams_data, seats)
    options = body.get("options")
    options = {} if options is None else options
    if not isinstance(options, dict) or not isinstance(options.get("equal_turns", False), bool):
        raise BadRequest("options.equal_turns must be true or false")
    start_data = body.get("start")
    if start_data is None:
        camera = current_app.extensions["setupcam.camera"]
        seen = camera.current_reading(seats) if camera is not None else None
        if camera is not None and seen is None:
            # An empty start would make every tile on the board the first player's.
            raise Conflict(
                "the camera has no steady view of the board yet (hands over it, or the "
                "board not found): press New game again once the board is clear and still"
            )
        start = Position.from_json(seen) if seen else Position.empty()
    else:
        start = Position.from_json(start_data, origin="start")
    setup = GameSetup(
        seats, teams, GameOptions(equal_turns=options.get("equal_turns", False)), start
    )
    game_id = _session().new_game(setup)
    return jsonify(game_id=game_id, state=_session().state_json()), 201


@api.post("/play")
def play() -> Any:
    """Record a play by hand: ``{"position": {"squares": {...}}}`` (the board after it)."""
    body = _body()
    if "position" not in body:
        raise BadRequest("give the board after the play as 'position'")
    outcome = _session().play_by_hand(_position(body["position"], "position"))
    return jsonify(turn=outcome.to_json(), state=_session().state_json())


@api.post("/swap")
def swap() -> Any:
    player = _body().get("player")
    if player is not None and not isinstance(player, str):
        raise BadRequest("'player' must be a colour name")
    outcome = _session().swap(player)
    return jsonify(turn=outcome.to_json(), state=_session().state_json())


@api.post("/undo")
def undo() -> Any:
    _no_body()
    turn = _session().undo()
    return jsonify(
        undone={"player": turn.player, "action": turn.action.value}, state=_session().state_json()
    )


@api.post("/correct")
def correct() -> Any:
    """Fix a square: ``{"square": "b2", "tile": "6♥" | null, "turn": N (optional)}``."""
    square, tile, turn = _correction_request()
    number = _session().correct(square, tile, turn)
    return jsonify(corrected_turn=number, state=_session().state_json())


@api.post("/correct/preview")
def preview_correction() -> Any:
    """What ``/correct`` with the same body would do, saving nothing."""
    return jsonify(_session().preview_correction(*_correction_request()))


def _correction_request() -> tuple[str, Tile | None, int | None]:
    body = _body()
    square = body.get("square")
    if not isinstance(square, str):
        raise BadRequest("'square' must be a square name such as b2")
    if "tile" not in body:
        raise BadRequest("give 'tile': a tile such as 6♥ or 6H, or null for an empty square")
    text = body["tile"]
    if text is not None and (not isinstance(text, str) or not text):
        raise BadRequest("'tile' must be a tile such as 6♥ or 6H, or null for an empty square")
    tile = None if text is None else Tile.parse(text)
    turn = body.get("turn")
    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool)):
        raise BadRequest("'turn' must be a turn number")
    return square, tile, turn


@api.post("/pending/confirm")
def confirm_pending() -> Any:
    body = _body()
    unknown = [key for key in body if key != "position"]
    if unknown:
        raise BadRequest(f'unknown key {unknown[0]!r}: give {{}} or {{"position": board}}')
    # "position" given is a board, whatever its value: false or {} is not "as read".
    position = _position(body["position"], "position") if "position" in body else None
    outcome = _session().confirm_pending(position)
    return jsonify(turn=outcome.to_json(), state=_session().state_json())


@api.post("/pending/dismiss")
def dismiss_pending() -> Any:
    _session().dismiss_pending()
    return jsonify(state=_session().state_json())


@api.get("/export.json")
def export_json() -> Any:
    response = jsonify(_session().export_json())
    response.headers["Content-Disposition"] = "attachment; filename=setupcam-game.json"
    return response


@api.get("/export.csv")
def export_csv() -> Any:
    return Response(
        _session().export_csv(),
        mimetype="text/csv",
        headers={"Content-Disposition": "attachment; filename=setupcam-game.csv"},
    )


@api.get("/calibration")
def calibration() -> Any:
    camera = _camera()
    blur = camera.picture_blur()
    focus = None if blur is None else {"blur_px": round(blur, 2), "verdict": focus_verdict(blur)}
    return jsonify(corners=camera.board_corners(), layout=layout_json(camera.layout), focus=focus)


@api.post("/calibration/corners")
def set_corners() -> Any:
    """Register the board by hand. The camera adopts the corners on its next frame, so
    the answer gives the corners as registered (``GET /api/calibration`` shows the
    ones in use), not the camera's location, which is unknown until that frame."""
    corners = _corners(_body().get("corners"))
    camera = _camera()
    try:
        camera.set_board_corners(corners)
    except ValueError as err:
        # The pipeline checks the outline (NW, NE, SE, SW, convex): its words say why.
        raise BadRequest(str(err)) from None
    return jsonify(
        corners=[[round(x, 2), round(y, 2)] for x, y in corners],
        message="registered: the camera uses these corners from its next frame",
    )


def _corners(data: Any) -> list[list[float]]:
    """Four [x, y] pixel points, each a JSON number (not a boolean) within reach."""
    if not isinstance(data, list) or len(data) != 4:
        raise BadRequest("'corners' must be four [x, y] pixel points: NW, NE, SE, SW")
    names = ("NW", "NE", "SE", "SW")
    return [_corner(point, name) for point, name in zip(data, names, strict=True)]


def _corner(point: Any, name: str) -> list[float]:
    if not (isinstance(point, list) and len(point) == 2 and all(map(_is_number, point))):
        raise BadRequest(f"corner {name} must be an [x, y] pair of numbers (pixels)")
    # abs() first: it also rejects NaN and the infinities (Python's JSON reads
    # NaN and Infinity), and a huge integer before float() could overflow on it.
    if not all(abs(v) <= MAX_CORNER_PX for v in point):
        raise BadRequest(
            f"corner {name} is not a point of the camera image "
            f"(coordinates must be finite and within ±{MAX_CORNER_PX} pixels)"
        )
    return [float(point[0]), float(point[1])]


def _is_number(value: Any) -> bool:
    # bool is an int subclass in Python, but true is not a pixel coordinate.
    return isinstance(value, int | float) and not isinstance(value, bool)


@api.post("/calibration/save")
def save_calibration() -> Any:
    camera = _camera()
    try:
        path = camera.save_calibration()
    except ValueError as err:
        # The camera says why it cannot save now: no --calibration file, the board not
        # located, no image yet. The user can fix each, so it is a conflict, not a fault.
        raise Conflict(str(err)) from None
    return jsonify(saved=path)
