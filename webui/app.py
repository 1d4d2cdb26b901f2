"""The app factory: blueprints, JSON errors, and the access token for the network."""

from __future__ import annotations

import secrets
from typing import Any, Protocol

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from engine import Layout, Seats
from setupcam.session import GameSession

CHANGING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
READ_ONLY_POSTS = frozenset({"coloretto.score"})
"""POST routes that change nothing (a calculator): anyone viewing may use them."""


class CameraControl(Protocol):
    """What the dashboard needs from the camera side (the live pipeline provides it)."""

    def latest_jpeg(self, annotated: bool = True) -> bytes | None: ...

    def board_corners(self) -> list[list[float]] | None: ...

    def picture_blur(self) -> float | None: ...

    def set_board_corners(self, corners: list[list[float]]) -> None: ...

    def save_calibration(self) -> str: ...

    def current_reading(self, seats: Seats | None = None) -> dict[str, Any] | None: ...

    @property
    def layout(self) -> Layout: ...


def create_app(
    session: GameSession,
    camera: CameraControl | None = None,
    *,
    token: str | None = None,
    testing: bool = False,
    enrollment: Any = None,
) -> Flask:
    """The dashboard app. With ``token``, every changing request must carry it."""
    app = Flask(__name__)
    app.config.update(
        TESTING=testing,
        SECRET_KEY=secrets.token_hex(16),
        MAX_CONTENT_LENGTH=256 * 1024,
    )
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    # A turn's keys in the order of `setupcam score`'s object, as the contract shows it.
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.extensions["setupcam.session"] = session
    app.extensions["setupcam.camera"] = camera
    app.extensions["setupcam.token"] = token
    app.extensions["setupcam.enrollment"] = enrollment  # the Enrol page's guide
    if camera is None:
        # Said on the camera line, rather than "starting" forever.
        session.set_camera_status(
            {"state": "offline", "message": "no camera: plays are entered by hand"}
        )

    from webui.api import api
    from webui.coloretto import coloretto
    from webui.enrollment import enrollment as enrollment_pages
    from webui.live import live
    from webui.pages import pages

    app.register_blueprint(pages)
    app.register_blueprint(api, url_prefix="/api")
    app.register_blueprint(live)
    app.register_blueprint(coloretto)
    app.register_blueprint(enrollment_pages)

    @app.before_request
    def require_token() -> Any:
        if token is None or request.method not in CHANGING_METHODS:
            return None
        if request.endpoint in READ_ONLY_POSTS:
            return None
        given = request.headers.get("X-Setupcam-Token") or request.args.get("token")
        # As bytes: compare_digest refuses str with characters beyond ASCII (a 500).
        if given is None or not secrets.compare_digest(
            given.encode("utf-8", "surrogateescape"), token.encode()
        ):
            return jsonify(
                error="this dashboard is shared on the network: changes need the "
                "access token printed at start (open the link with ?token=...)"
            ), 403
        return None

    @app.errorhandler(HTTPException)
    def http_error(err: HTTPException) -> Any:
        return jsonify(error=err.description or err.name), err.code or 500

    @app.errorhandler(Exception)
    def unexpected_error(err: Exception) -> Any:
        # Never show a traceback to a client; the server log keeps it.
        app.logger.exception("unexpected error")
        return jsonify(error=f"internal error ({type(err).__name__}); the game is saved"), 500

    return app
