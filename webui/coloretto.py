"""The Coloretto helper page: tap each player's cards, see the best totals live."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify, render_template

from engine.coloretto import Scoresheet, explain
from webui.request_json import request_json

coloretto = Blueprint("coloretto", __name__)

COLOURS = ("yellow", "orange", "red", "pink", "blue", "green", "brown")
"""The seven colours as the page offers them (the scorer takes any names)."""


@coloretto.get("/coloretto")
def page() -> Any:
    return render_template("coloretto.html", colours=COLOURS)


@coloretto.post("/api/coloretto/score")
def score() -> Any:
    """Body: the tableaus file of ``setupcam coloretto score``; answer: its output
    plus each player's account in words and the notes on colour names."""
    data = request_json()
    if not isinstance(data, dict):
        return jsonify(error="the request body must be a tableaus JSON object"), 400
    try:
        sheet = Scoresheet.from_dict(data)
        scores = sheet.best_scores()
    except ValueError as err:
        return jsonify(error=str(err)), 400
    words = {name: explain(name, s, sheet.table) for name, s in scores.items()}
    # The page draws each account as a table: cards per colour after the jokers, and
    # how many other choices reach the same total.
    accounts = {
        name: {"cards": dict(s.counts), "plus_two": s.plus_two_points, "ties": s.ties}
        for name, s in scores.items()
    }
    notes = list(sheet.notes)
    return jsonify(sheet.as_dict() | {"explain": words, "accounts": accounts, "notes": notes})
