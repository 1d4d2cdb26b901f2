"""The game session: the one live game, its store, and what the table asks of it.

The camera pipeline proposes plays, the dashboard records swaps, undoes turns and
corrects squares; the session turns each request into a new game record, saves it
before anyone sees the result, and re-derives every score from the record. A play
the camera is unsure of waits in :attr:`GameSession.pending` until a player
confirms it, so no uncertain score is ever committed silently::

    >>> from engine import GameSetup, Seats, Position
    >>> session = GameSession(GameStore(":memory:"))
    >>> _ = session.new_game(GameSetup(Seats.parse("S=red,W=green"),
    ...                       start=Position.from_json({"squares": {"b2": "5h"}})))
    >>> outcome = session.play(Position.from_json({"squares": {"b2": "5h", "c2": "6h"}}))
    >>> outcome.result.points, session.state.scores["red"]
    (2, 2)
"""

from __future__ import annotations

import csv
import io
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

from engine import (
    Action,
    GameError,
    GameRecord,
    GameSetup,
    GameState,
    Layout,
    Position,
    Tile,
    Turn,
)
from engine.game import TurnOutcome
from setupcam.store import GameStore, TurnFix


class SessionError(ValueError):
    """A request the game cannot take now (no game, nothing to undo, game over...)."""


class SessionInputError(SessionError):
    """A request that is wrong whatever the game's moment (an unknown square): the
    dashboard answers it as a bad request rather than as a conflict with the game."""


@dataclass(frozen=True)
class PendingPlay:
    """A play the camera saw but is not sure of: the players confirm or correct it."""

    player: str
    position: Position
    reasons: tuple[str, ...]
    uncertain_squares: tuple[str, ...] = ()
    alternatives: dict[str, list[tuple[str, float]]] = field(default_factory=dict)
    """For each uncertain square, the likeliest readings with their probability."""

    def to_json(self) -> dict[str, Any]:
        return {
            "player": self.player,
            "position": self.position.to_json(),
            "reasons": list(self.reasons),
            "uncertain_squares": list(self.uncertain_squares),
            "alternatives": {
                s: [{"tile": t, "p": round(p, 3)} for t, p in options]
                for s, options in self.alternatives.items()
            },
        }


class GameSession:
    """The live game, thread-safe: the camera thread and web requests share it."""

    def __init__(self, store: GameStore) -> None:
        self.store = store
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self.version = 0
        self.game_id: int | None = None
        self.record: GameRecord | None = None
        self.state: GameState | None = None
        self.pending: PendingPlay | None = None
        self.dismissed: set[Position] = set()
        """Boards the players said were not a play (until the next turn)."""
        self.foreign: dict[str, Tile] = {}
        """Squares where the players said a tile seen is not a play (a spare tile lying
        there): the tile seen, which the camera leaves out until a hand touches the
        square or it reads otherwise."""
        self.camera_status: dict[str, Any] = {"state": "starting", "message": "starting"}

    @property
    def lock(self) -> threading.RLock:
        """Held to read several of the game's fields as one (the state, the question
        waiting, the boards dismissed) while a web request may change them: the camera
        thread decides a play against the game as it stands."""
        return self._lock

    # -- loading -------------------------------------------------------------------

    def resume_latest(self) -> bool:
        """Reopen the game in play (the newest if several), else the newest game in
        the store; True if there was one. A newer game set aside (``abandoned``) when
        the players went back to this one is not what they were playing."""
        with self._lock:
            game_id = self.store.latest_game("playing")
            if game_id is None:
                game_id = self.store.latest_game()
            if game_id is None:
                return False
            self._set_record(game_id, self.store.load_record(game_id))
            return True

    def new_game(self, setup: GameSetup) -> int:
        with self._lock:
            self._set_aside_unfinished()
            game_id = self.store.create_game(setup)
            self.pending = None
            self._set_record(game_id, GameRecord(setup))
            return game_id

    def resume(self, game_id: int) -> None:
        """Go back to game ``game_id`` of the store. The game in progress, if
        unfinished, is set aside as abandoned, and can be resumed the same way."""
        with self._lock:
            try:
                record = self.store.load_record(game_id)
            except KeyError:
                raise SessionInputError(f"there is no game {game_id}") from None
            if game_id == self.game_id:
                return
            if self.pending is not None:
                raise SessionError("a play is waiting for the players: confirm or dismiss it first")
            self._set_aside_unfinished()
            self.pending = None
            self._set_record(game_id, record)
            if self.state is not None and not self.state.finished:
                self.store.set_status(game_id, "playing")

    def _set_aside_unfinished(self) -> None:
        """The game in progress, if unfinished, is marked abandoned: another takes its
        place, and it can be resumed later."""
        if self.game_id is not None and self.state and not self.state.finished:
            self.store.set_status(self.game_id, "abandoned")

    def _set_record(self, game_id: int, record: GameRecord) -> None:
        if record != self.record:
            self.dismissed = set()
        if game_id != self.game_id:
            self.foreign = {}
        self.game_id = game_id
        self.record = record
        self.state = record.replay()
        # A correction or an undo can reopen a finished game.
        self.store.set_status(game_id, "finished" if self.state.finished else "playing")
        self._notify()

    def _require_game(self) -> tuple[int, GameRecord, GameState]:
        if self.game_id is None or self.record is None or self.state is None:
            raise SessionError("no game is running: start a new game first")
        return self.game_id, self.record, self.state

    # -- turns ---------------------------------------------------------------------

    def play(self, position: Position, *, source: str = "camera") -> TurnOutcome:
        """Record a play by the player whose turn it is, with the board after it."""
        with self._lock:
            game_id, record, state = self._require_game()
            player = self._next_player(state)
            turn = Turn(player, Action.PLAY, position)
            self.store.add_turn(game_id, len(record.turns) + 1, turn, source)
            self.pending = None
            self._set_record(game_id, record.with_turn(turn))
            assert self.state is not None
            outcome = self.state.outcomes[-1]
            if not outcome.counted:
                # An illegal play is taken back, but its tiles lie on the table until
                # the players lift them: that board is not the next player's play.
                self.dismissed.add(position)
            return outcome

    def play_by_hand(self, position: Position) -> TurnOutcome:
        """Record a play typed on the dashboard. The board as the game has it, or as
        the last turn recorded it, places nothing: that is the same play sent twice
        (a double click), not the next player's turn, and is refused."""
        with self._lock:
            _, record, state = self._require_game()
            last = next(
                (t.position for t in reversed(record.turns) if t.position is not None),
                record.setup.start,
            )
            if position == state.position or position == last:
                raise SessionError(
                    "nothing was placed: this is the board as the game already has it "
                    "(the play was recorded already?); for a turn without a play, press Swap"
                )
            return self.play(position, source="manual")

    def continue_turn(self, position: Position, *, source: str = "camera") -> TurnOutcome:
        """The player of the last play went on with that turn (a pause between two of
        its tiles): the turn is recorded again, with ``position`` the board after all
        of it. The first record of it is kept among the undone turns."""
        with self._lock:
            game_id, record, _ = self._require_game()
            if not record.turns or record.turns[-1].action is not Action.PLAY:
                raise SessionError("the last turn is not a play that could go on")
            number = len(record.turns)
            turn = Turn(record.turns[-1].player, Action.PLAY, position)
            self.store.undo_turn(game_id, number)
            self.store.add_turn(game_id, number, turn, source)
            self.pending = None
            self._set_record(game_id, record.without_last_turn().with_turn(turn))
            assert self.state is not None
            return self.state.outcomes[-1]

    def swap(self, player: str | None = None) -> TurnOutcome:
        """Record a swap (the board does not change) by ``player`` or whoever is next."""
        with self._lock:
            game_id, record, state = self._require_game()
            if self.pending is not None:
                # The question is about the player to play: a swap now would be
                # theirs, and their play, confirmed after it, the next player's.
                raise SessionError(
                    f"the dashboard asks about {self.pending.player}'s play: confirm it or "
                    "press Not a play first"
                )
            expected = self._next_player(state)
            if player is not None and player != expected:
                raise SessionError(f"it is {expected}'s turn, not {player}'s")
            turn = Turn(expected, Action.SWAP)
            self.store.add_turn(game_id, len(record.turns) + 1, turn, "button")
            self._set_record(game_id, record.with_turn(turn))
            assert self.state is not None
            return self.state.outcomes[-1]

    def undo(self) -> Turn:
        with self._lock:
            game_id, record, _ = self._require_game()
            if not record.turns:
                raise SessionError("there is no turn to undo")
            self.store.undo_turn(game_id, len(record.turns))
            self.store.set_status(game_id, "playing")
            self.pending = None
            self._set_record(game_id, record.without_last_turn())
            return record.turns[-1]

    def correct(self, square: str, tile: Tile | None, turn_number: int | None = None) -> int:
        """Say what really lies on ``square`` after turn ``turn_number``: 0 is the starting
        board; the default is the turn whose board first showed the tile now there (for
        an empty square, the last play).

        Later turns that still showed the misread tile on that square get the same
        fix, and every score from that turn on is re-derived. Returns the turn fixed.
        """
        with self._lock:
            game_id, record, _ = self._require_game()
            number, fixes = self._correction(square, tile, turn_number)
            if fixes:
                self._save_fixes(game_id, record, fixes)
            return number

    def preview_correction(
        self, square: str, tile: Tile | None, turn_number: int | None = None
    ) -> dict[str, Any]:
        """What :meth:`correct` would do, saving nothing: the turn fixed, the scores
        after it, and the plays it would make illegal (the players see it first)."""
        with self._lock:
            _, record, state = self._require_game()
            number, fixes = self._correction(square, tile, turn_number)
            corrected = record
            for fix in fixes:
                corrected = corrected.with_position(fix.number, fix.new)
            after = corrected.replay()
            was_legal = {o.number for o in state.outcomes if o.counted}
            return {
                "corrected_turn": number,
                "scores": dict(after.scores),
                "scores_now": dict(state.scores),
                "turns_made_illegal": [
                    o.number for o in after.outcomes if not o.counted and o.number in was_legal
                ],
            }

    def _correction(
        self, square: str, tile: Tile | None, turn_number: int | None
    ) -> tuple[int, list[TurnFix]]:
        """The turn a correction is for, and the fixes it makes (none if it was read
        right); a SessionError if it cannot be made."""
        _, record, state = self._require_game()
        layout = state.setup.layout
        if turn_number is not None and turn_number < 0:
            raise SessionInputError(
                f"there is no turn {turn_number}: turns count from 0, the starting board"
            )
        if square not in layout.rects:
            raise SessionInputError(
                f"unknown square {square!r}: this board's squares are "
                + ", ".join(sorted(layout.rects))
            )
        number = turn_number if turn_number is not None else _turns_to_correct(record)[square]
        if number > len(record.turns):
            raise SessionInputError(f"there is no turn {number}")
        if number and record.turns[number - 1].position is None:
            raise SessionError(f"turn {number} was a swap; it has no board to correct")
        if _board_after(record, number)[square] == tile:
            return number, []  # it was read right: nothing to correct
        return number, _square_fixes(record, number, square, tile)

    def correct_start(self, position: Position) -> None:
        """Replace the starting board before any turn: the players fix what the camera
        read at set-up."""
        with self._lock:
            game_id, record, _ = self._require_game()
            if record.turns:
                raise SessionError("the starting board can only be replaced before the first turn")
            start = record.setup.start
            changed = [s for s in start.layout.squares if start[s] != position[s]]
            if not changed:
                return
            note = ", ".join(
                f"{s}: {start[s] or 'empty'} -> {position[s] or 'empty'}" for s in changed
            )
            self._save_fixes(game_id, record, [TurnFix(0, start, position, note)])

    def _save_fixes(self, game_id: int, record: GameRecord, fixes: list[TurnFix]) -> None:
        # Every fix is worked out before any is saved: a later turn the fix cannot apply
        # to (the tile now appears twice) leaves the game untouched.
        self.store.correct_turns(game_id, fixes)
        for fix in fixes:
            record = record.with_position(fix.number, fix.new)
        self._set_record(game_id, record)

    # -- the camera's uncertain plays ----------------------------------------------

    def propose(self, pending: PendingPlay) -> None:
        with self._lock:
            self.pending = pending
            self._notify()

    def confirm_pending(self, position: Position | None = None) -> TurnOutcome:
        """Accept the pending play, with the players' corrections if they gave any."""
        with self._lock:
            if self.pending is None:
                raise SessionError("there is no play waiting for confirmation")
            return self.play(position or self.pending.position, source="confirmed")

    def dismiss_pending(self) -> None:
        with self._lock:
            if self.pending is None:
                raise SessionError("there is no play waiting for confirmation")
            self.dismissed.add(self.pending.position)
            if self.state is not None:
                # Tiles seen that the game has not: the players said they are no play
                # (a spare tile lying on the board). A correction made when confirming
                # says less: a tile left out of one play may be the next one's.
                seen, game = self.pending.position, self.state.position
                self.foreign |= {
                    s: tile
                    for s in game.layout.squares
                    if (tile := seen[s]) is not None and tile != game[s]
                }
            self.pending = None
            self._notify()

    def forget_foreign(self, square: str) -> None:
        """The camera no longer sees on ``square`` the tile said not to be a play."""
        with self._lock:
            self.foreign.pop(square, None)

    # -- change notification -------------------------------------------------------

    def set_camera_status(self, status: dict[str, Any]) -> None:
        """Keep the camera's status; tell the dashboards only when its words change
        (not for every frame's timing)."""
        with self._lock:
            changed = any(status.get(k) != self.camera_status.get(k) for k in ("state", "message"))
            self.camera_status = status
            if changed:
                self._notify()

    def wait_for_change(self, version: int, timeout: float) -> int:
        """Block until the version moves past ``version`` (or the timeout); return it."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version, timeout=timeout)
            return self.version

    def _notify(self) -> None:
        self.version += 1
        self._changed.notify_all()

    # -- views ---------------------------------------------------------------------

    def _next_player(self, state: GameState) -> str:
        if state.finished:
            ending = state.ending
            raise SessionError(
                f"the game is over ({ending.winner} won after turn {ending.after_turn}); "
                "undo the last turn or start a new game"
                if ending
                else "the game is over"
            )
        player = state.next_player
        assert player is not None
        return player

    def state_json(self) -> dict[str, Any]:
        """The dashboard's and the API's view (contract section 5: ``GET /api/state``)."""
        with self._lock:
            if self.state is None or self.record is None:
                return {
                    "game_id": None,
                    "status": "no game",
                    "players": [],
                    "turns": [],
                    "position": None,
                    "camera": self.camera_status,
                    "version": self.version,
                }
            state = self.state
            setup = state.setup
            line = setup.finish_line
            players = [
                {
                    "colour": p,
                    "edge": setup.seats.edge_of(p).value,
                    "score": state.scores[p],
                    "to_finish": max(0, line - state.scores[p]),
                    "team": list(setup.teams.team_of(p)) if setup.teams else None,
                }
                for p in setup.turn_cycle
            ]
            ending = state.ending
            return {
                "game_id": self.game_id,
                "status": "finished" if ending else "playing",
                "players": players,
                "next_player": state.next_player,
                "finish_line": line,
                "turns": [o.to_json() for o in state.outcomes],
                "position": state.position.to_json(),
                "start": setup.start.to_json(),
                "layout": layout_json(setup.layout),
                "buried": sorted(str(t) for t in state.buried),
                "in_bag": state.in_bag,
                "in_hands": state.in_hands,
                "ending": {
                    "winner": ending.winner,
                    "after_turn": ending.after_turn,
                    "reason": ending.reason,
                }
                if ending
                else None,
                "pending": self.pending.to_json() if self.pending else None,
                "setup": self.record.to_json() | {"turns": None},
                "corrections": self.store.corrections(self.game_id) if self.game_id else [],
                "correction_turns": _turns_to_correct(self.record),
                "recorded_boards": [
                    None if n and t.position is None else _board_after(self.record, n).to_json()
                    for n, t in enumerate((None, *self.record.turns))
                ],
                "camera": self.camera_status,
                "version": self.version,
            }

    def export_json(self) -> dict[str, Any]:
        """The game as the contract's replay JSON (``setupcam replay`` reads it back)."""
        with self._lock:
            _, record, _ = self._require_game()
            return record.to_json()

    def export_csv(self) -> str:
        with self._lock:
            _, _, state = self._require_game()
            out = io.StringIO()
            players = list(state.setup.turn_cycle)
            writer = csv.writer(out)
            writer.writerow(
                ["turn", "player", "action", "legal", "placed", "points", "bonus", "errors"]
                + [f"score_{p}" for p in players]
            )
            for o in state.outcomes:
                r = o.result
                writer.writerow(
                    [
                        o.number,
                        o.turn.player,
                        o.turn.action.value,
                        r.legal if r else True,
                        " ".join(f"{s}={t}" for s, t in r.placed.items()) if r else "",
                        r.points if r and r.legal else 0,
                        " ".join(f"{p}+{b}" for p, b in r.bonus.items()) if r and r.legal else "",
                        "; ".join(r.errors) if r else "",
                    ]
                    + [o.scores[p] for p in players]
                )
            return out.getvalue()


def layout_json(layout: Layout) -> dict[str, Any]:
    return {
        "name": layout.name,
        "squares": {
            s: {
                "rect": [r.x0, r.y0, r.x1, r.y1],
                "owner": None if layout.owners[s] is None else layout.owners[s].value,  # type: ignore[union-attr]
            }
            for s, r in layout.rects.items()
        },
        "lines": sorted(sorted(line) for line in layout.lines),
    }


def _board_after(record: GameRecord, number: int) -> Position:
    """The board recorded after turn ``number`` (0: the starting board)."""
    if number == 0:
        return record.setup.start
    position = record.turns[number - 1].position
    assert position is not None, "a swap has no board"
    return position


def _turns_to_correct(record: GameRecord) -> dict[str, int]:
    """For each square, the turn a correction is for when the players do not say: the
    one whose board first showed the tile now there (it was read as it was placed); for
    an empty square, the last play (its tile was missed); else the starting board."""
    boards = [(0, record.setup.start)] + [
        (n, t.position) for n, t in enumerate(record.turns, 1) if t.position is not None
    ]
    last_number, now = boards[-1]
    placed_in = {s: 0 for s in now.layout.squares}
    for (_, before), (n, after) in itertools.pairwise(boards):
        for square in now.layout.squares:
            if after[square] != before[square]:
                placed_in[square] = n
    return {s: last_number if now[s] is None else placed_in[s] for s in now.layout.squares}


def _square_fixes(record: GameRecord, number: int, square: str, tile: Tile | None) -> list[TurnFix]:
    """The positions to correct: turn ``number``'s (0: the starting board), and each
    later turn's that still shows the misread tile on ``square``."""
    misread = _board_after(record, number)[square]
    note = f"{square}: {misread or 'empty'} -> {tile or 'empty'}"
    fixes = []
    for later in range(number, len(record.turns) + 1):
        if later and record.turns[later - 1].position is None:
            continue  # a swap
        position = _board_after(record, later)
        if later > number and position[square] != misread:
            break  # a tile was placed there since: the later reading stands
        try:
            fixed = position.place({square: tile}) if tile else _emptied(position, square)
        except ValueError as err:
            if later == number:
                where = "the starting board" if later == 0 else f"turn {later}"
            else:
                where = f"carried into turn {later}, which still showed {misread or 'nothing'}"
            raise SessionError(f"{where}: {err}") from None
        fixes.append(TurnFix(later, position, fixed, note))
    return fixes


def _emptied(position: Position, square: str) -> Position:
    return Position({**position.squares, square: None}, position.layout)


__all__ = [
    "GameError",
    "GameSession",
    "PendingPlay",
    "SessionError",
    "SessionInputError",
    "layout_json",
]
