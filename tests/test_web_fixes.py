"""Regressions found reviewing the dashboard as players use it."""

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
