"""The game store: every game, turn and correction in SQLite, written as it happens.

A game is its set-up plus its turns; a correction replaces a turn's position and
is kept in its own table, so nothing a player said is ever lost. Kill the process
mid-game, open the store again, and :meth:`GameStore.latest_game` gives back the
record exactly::

    >>> from engine import GameRecord, GameSetup, Seats
    >>> store = GameStore(":memory:")
    >>> game_id = store.create_game(GameSetup(Seats.parse("S=red,W=green")))
    >>> store.load_record(game_id).setup.seats.players
    ('red', 'green')
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engine import Action, GameRecord, GameSetup, Layout, Position, Turn

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    setup_json TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing'
);
CREATE TABLE IF NOT EXISTS turns (
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    player TEXT NOT NULL,
    action TEXT NOT NULL,
    position_json TEXT,
    source TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (game_id, number)
);
CREATE TABLE IF NOT EXISTS corrections (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    turn_number INTEGER NOT NULL,
    old_position_json TEXT,
    new_position_json TEXT NOT NULL,
    note TEXT NOT NULL,
    corrected_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS undone_turns (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    player TEXT NOT NULL,
    action TEXT NOT NULL,
    position_json TEXT,
    undone_at TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class GameSummary:
    id: int
    created_at: str
    status: str
    players: tuple[str, ...]
    turns: int


@dataclass(frozen=True)
class TurnFix:
    """One turn's corrected position (turn 0: the starting board): what was recorded,
    what really lay there, and why."""

    number: int
    old: Position | None
    new: Position
    note: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class GameStore:
    """A SQLite file of games. Safe to share between the web and camera threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        # WAL keeps readers unblocked while a turn is written; synchronous=FULL makes
        # every committed turn survive a power cut, not just a crash.
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, params: tuple[Any, ...]) -> sqlite3.Cursor:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cursor = self._db.execute(sql, params)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return cursor

    def create_game(self, setup: GameSetup) -> int:
        empty = GameRecord(setup).to_json()
        setup_json = {k: empty[k] for k in ("seats", "teams", "options", "start")}
        # A user's own board is kept whole: its file may move or change, and the game
        # must still load as it was played.
        layout = setup.layout
        setup_json["layout"] = layout.name if layout.is_shipped else layout.to_dict()
        cursor = self._write(
            "INSERT INTO games (created_at, setup_json) VALUES (?, ?)",
            (_now(), json.dumps(setup_json, ensure_ascii=False)),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def add_turn(self, game_id: int, number: int, turn: Turn, source: str) -> None:
        position = (
            json.dumps(turn.position.to_json(), ensure_ascii=False) if turn.position else None
        )
        self._write(
            "INSERT INTO turns (game_id, number, player, action, position_json, source, "
            "recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, number, turn.player, turn.action.value, position, source, _now()),
        )

    def undo_turn(self, game_id: int, number: int) -> None:
        """Remove turn ``number`` (the last one), keeping a copy in ``undone_turns``."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO undone_turns (game_id, number, player, action, position_json, "
                    "undone_at) SELECT game_id, number, player, action, position_json, ? "
                    "FROM turns WHERE game_id = ? AND number = ?",
                    (_now(), game_id, number),
                )
                self._db.execute(
                    "DELETE FROM turns WHERE game_id = ? AND number = ?", (game_id, number)
                )
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def correct_turns(self, game_id: int, fixes: Sequence[TurnFix]) -> None:
        """Replace the positions of several turns in one transaction, each fix kept in
        ``corrections``: a correction that spans turns is saved whole or not at all."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for fix in fixes:
                    self._write_fix(game_id, fix)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _write_fix(self, game_id: int, fix: TurnFix) -> None:
        new_json = json.dumps(fix.new.to_json(), ensure_ascii=False)
        old_json = json.dumps(fix.old.to_json(), ensure_ascii=False) if fix.old else None
        if fix.number == 0:  # the starting board, kept in the game's set-up
            row = self._db.execute(
                "SELECT setup_json FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            setup = json.loads(row[0])
            setup["start"] = fix.new.to_json()
            self._db.execute(
                "UPDATE games SET setup_json = ? WHERE id = ?",
                (json.dumps(setup, ensure_ascii=False), game_id),
            )
        else:
            self._db.execute(
                "UPDATE turns SET position_json = ? WHERE game_id = ? AND number = ?",
                (new_json, game_id, fix.number),
            )
        self._db.execute(
            "INSERT INTO corrections (game_id, turn_number, old_position_json, "
            "new_position_json, note, corrected_at) VALUES (?, ?, ?, ?, ?, ?)",
            (game_id, fix.number, old_json, new_json, fix.note, _now()),
        )

    def set_status(self, game_id: int, status: str) -> None:
        self._write("UPDATE games SET status = ? WHERE id = ?", (status, game_id))

    def load_record(self, game_id: int) -> GameRecord:
        with self._lock:
            row = self._db.execute(
                "SELECT setup_json FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if row is None:
                raise KeyError(f"no game {game_id}")
            turns = self._db.execute(
                "SELECT player, action, position_json FROM turns WHERE game_id = ? ORDER BY number",
                (game_id,),
            ).fetchall()
        setup_json = json.loads(row[0])
        layout_json = setup_json.pop("layout", "setup-standard")
        if isinstance(layout_json, dict):
            layout = Layout.from_dict(layout_json, origin=f"game {game_id}'s layout")
        else:
            layout = Layout.load(layout_json)
        record = GameRecord.from_json({**setup_json, "turns": []}, layout)
        for player, action, position_json in turns:
            position = (
                Position.from_json(json.loads(position_json), layout) if position_json else None
            )
            record = record.with_turn(Turn(player, Action(action), position))
        return record

    def latest_game(self, status: str | None = None) -> int | None:
        query = "SELECT id FROM games"
        params: tuple[Any, ...] = ()
        if status is not None:
            query += " WHERE status = ?"
            params = (status,)
        with self._lock:
            row = self._db.execute(query + " ORDER BY id DESC LIMIT 1", params).fetchone()
        return None if row is None else int(row[0])

    def games(self) -> list[GameSummary]:
        with self._lock:
            rows = self._db.execute(
                "SELECT g.id, g.created_at, g.status, g.setup_json, "
                "(SELECT COUNT(*) FROM turns t WHERE t.game_id = g.id) FROM games g ORDER BY g.id"
            ).fetchall()
        return [
            GameSummary(i, created, status, tuple(json.loads(setup)["seats"].values()), turns)
            for i, created, status, setup, turns in rows
        ]

    def corrections(self, game_id: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT turn_number, note, corrected_at FROM corrections WHERE game_id = ? "
                "ORDER BY id",
                (game_id,),
            ).fetchall()
        return [{"turn": n, "note": note, "at": at} for n, note, at in rows]
