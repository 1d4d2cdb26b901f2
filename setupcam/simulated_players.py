"""The demo's table: simulated players who use the dashboard as people would.

They register the board once per table, start each simulated game, press Swap when
they swap, and answer the app's questions about unsure plays truthfully.
"""

from __future__ import annotations

import contextlib
from typing import Protocol

from engine import GameRecord, GameSetup, Position, Seats
from setupcam.session import GameSession, SessionError
from vision.pipeline import FrameReport, LivePipeline, start_position
from vision.sources import SourceFrame


class GameTable(Protocol):
    """A table that can play on with any game (the simulated table)."""

    def play_on(self, record: GameRecord) -> None: ...


class SimulatedPlayers:
    """The demo's players: they register the board once per table (the Calibrate
    page), start each simulated game (fixing any start square the camera misread, as
    a person checks the diagram before pressing Start), press Swap when they swap,
    and answer the app's questions about unsure plays truthfully. A game resumed or
    started on the dashboard is the one they play on, from its board, when
    ``table`` (the simulated table) can lay it out.

    Like people, they answer about the turn in question: asked about the player
    still placing tiles, they let the turn finish and answer with the board as that
    turn left it; asked about the previous player while the next one is placing,
    with the board as the previous turn left it; between turns, with the board as it
    stands.
    """

    ANSWER_AFTER_S = 1.0

    def __init__(
        self, session: GameSession, pipeline: LivePipeline, table: GameTable | None = None
    ) -> None:
        self.session = session
        self.pipeline = pipeline
        self.table = table
        self.seats: Seats | None = None
        self._game_id: int | None = None
        """The session's game the table is playing."""
        self._turns_recorded = 0
        """How many turns that game had at the last frame."""
        self.start_squares_fixed = 0
        """Start squares the camera misread and the players corrected (all games)."""
        self._waiting_for_start = False
        self._player_placing: str | None = None
        self._board_now: Position | None = None
        self._board_before_turn: Position | None = None
        self._asked_at: float | None = None
        self._answer: Position | None = None
        self._answer_after_turn = False

    def on_frame(self, frame: SourceFrame, report: FrameReport) -> None:
        truth = frame.truth
        if truth is not None:
            self._board_now = truth.position
        for event in frame.events:
            if event.kind == "game_start":
                self.seats = Seats.parse(event.action)
                self._waiting_for_start = True
                if truth is not None:
                    # Once per table, as a person does on the Calibrate page: drag the
                    # corners onto the board and say which edge is south. From then on
                    # the pipeline tracks the board by itself.
                    self.pipeline.set_board_corners(truth.board_corners_distorted)
            elif event.kind == "turn_start":
                self._player_placing = None if event.action == "swap" else event.player
                self._board_before_turn = self._board_now
                state = self.session.state
                if (
                    event.action == "swap"
                    and state is not None
                    and state.next_player == event.player
                    and self.session.pending is None
                ):
                    self.session.swap(event.player)
            elif event.kind == "turn_end":
                self._player_placing = None
                if self._answer_after_turn:
                    self._answer, self._answer_after_turn = self._board_now, False
        view = self.pipeline.stability.current_view
        if self._waiting_for_start and self.seats is not None and view is not None:
            self._start_game(start_position(view, self.pipeline.layout))
        self._follow_the_dashboard()
        self._answer_questions(frame)

    def _follow_the_dashboard(self) -> None:
        """A game resumed or started on the dashboard: play on with it; a turn undone
        there: take its tiles back and play on."""
        record = self.session.record
        game_id = self.session.game_id
        if self.table is None or self._waiting_for_start or record is None:
            return
        turns = len(record.turns)
        if game_id == self._game_id and turns >= self._turns_recorded:
            self._turns_recorded = turns
            return
        self._game_id, self._turns_recorded = game_id, turns
        self._player_placing = self._board_before_turn = None
        self.table.play_on(record)

    def _start_game(self, reading: Position) -> None:
        assert self.seats is not None
        self.session.new_game(GameSetup(self.seats, start=reading))
        truth = self._board_now
        if truth is not None and truth != reading:
            self.start_squares_fixed += sum(
                truth[s] != reading[s] for s in self.pipeline.layout.squares
            )
            self.session.correct_start(truth)
        self._waiting_for_start = False
        self._game_id, self._turns_recorded = self.session.game_id, 0

    def finish(self) -> None:
        """The recording ended: answer a question still open, as the table would."""
        if self.session.pending is None:
            return
        if self._answer is None:
            self._answer = self._board_now
        self._asked_at = -float("inf")
        self._answer_questions(None)

    def _answer_questions(self, frame: SourceFrame | None) -> None:
        if self.session.pending is None:
            self._asked_at = self._answer = None
            self._answer_after_turn = False
            return
        now = frame.time if frame is not None else float("inf")
        if self._asked_at is None:
            self._asked_at = now
            placing = self._player_placing
            self._answer_after_turn = placing is not None and placing == self.session.pending.player
            if not self._answer_after_turn:  # else: answered when the turn ends
                self._answer = self._board_now if placing is None else self._board_before_turn
        if self._answer is None or now - self._asked_at < self.ANSWER_AFTER_S:
            return
        state = self.session.state
        with contextlib.suppress(SessionError):
            if state is not None and self._answer == state.position:
                self.session.dismiss_pending()  # nothing was placed: "Not a play"
            else:
                self.session.confirm_pending(self._answer)
        self._asked_at = self._answer = None
