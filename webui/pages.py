"""The dashboard's pages: the game, and the calibration page."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

pages = Blueprint("pages", __name__)


@pages.get("/")
def index() -> Any:
    return render_template("index.html")


@pages.get("/calibrate")
def calibrate() -> Any:
    return render_template("calibrate.html")
