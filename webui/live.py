"""Live streams: the camera image (MJPEG) and state changes (server-sent events)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from setupcam.session import GameSession

live = Blueprint("live", __name__)

FRAME_INTERVAL_S = 0.1  # 10 images a second is plenty for people watching


@live.get("/video.mjpg")
def video() -> Any:
    camera = current_app.extensions["setupcam.camera"]
    if camera is None:
        return jsonify(error="no camera is connected to this dashboard"), 404
    annotated = request.args.get("raw") is None
    limit = request.args.get("frames", type=int)

    def frames() -> Iterator[bytes]:
        sent = 0
        while limit is None or sent < limit:
            jpeg = camera.latest_jpeg(annotated=annotated)
            if jpeg is not None:
                yield b"--frame\r\nContent-Type: image/jpeg\r\n\r\n" + jpeg + b"\r\n"
                sent += 1
            time.sleep(FRAME_INTERVAL_S)

    return Response(frames(), mimetype="multipart/x-mixed-replace; boundary=frame")


@live.get("/frame.jpg")
def frame() -> Any:
    camera = current_app.extensions["setupcam.camera"]
    jpeg = camera.latest_jpeg(annotated=request.args.get("raw") is None) if camera else None
    if jpeg is None:
        return jsonify(error="no camera image yet"), 404
    return Response(jpeg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@live.get("/api/events")
def events() -> Any:
    """Server-sent events: one ``state`` event now and after every change."""
    session: GameSession = current_app.extensions["setupcam.session"]
    once = request.args.get("once") is not None

    def stream() -> Iterator[str]:
        version = -1
        while True:
            version = session.wait_for_change(version, timeout=15.0)
            payload = json.dumps(session.state_json(), ensure_ascii=False)
            yield f"event: state\ndata: {payload}\n\n"
            if once:
                return

    return Response(stream(), mimetype="text/event-stream", headers={"Cache-Control": "no-store"})
