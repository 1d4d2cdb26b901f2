"""The dashboard's pages: the game, and the calibration page."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, render_template

pages = Blueprint("pages", __name__)


@pages.get("/")
def index() -> Any:
    has_camera = current_app.extensions["setupcam.camera"] is not None
    return render_template("index.html", has_camera=has_camera)


@pages.get("/calibrate")
def calibrate() -> Any:
    return render_template("calibrate.html")
