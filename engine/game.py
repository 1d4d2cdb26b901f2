"""Games: the record of turns, and the state derived from it.

A :class:`GameRecord` is what happened: the set-up and, per turn, who did what
and (for a play) the position the camera saw afterwards. A :class:`GameState` is
everything that follows from it: scores, whose turn it is, the tiles buried under
stacks, how many tiles are left for the bag, whether the game is over and who won.
States are derived by folding the turns, so undoing a turn or correcting a
recorded position simply re-derives every later score::

    >>> from engine.position import Position
    >>> from engine.seats import Seats
    >>> setup = GameSetup(Seats.parse("S=red,W=green"),
    ...                   start=Position.from_json({"squares": {"b2": "5h", "c2": "3c"}}))
    >>> record = GameRecord(setup).with_turn(
    ...     Turn("red", Action.PLAY, setup.start.place({"b3": Tile.parse("6h")})))
    >>> state = record.replay()
    >>> state.scores, state.next_player
    ({'red': 2, 'green': 0}, 'green')
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from engine.layout import Layout
from engine.position import Position, PositionError
from engine.seats import Seats, SeatsError, Teams
from engine.tiles import ALL_TILES, Tile
from engine.turn import MAX_TILES_PER_TURN, TurnResult, analyse_turn

FINISH_LINE = {2: 31, 3: 27, 4: 23}
"""Points that end the game, by number of players (the online edition's numbers)."""
TEAM_FINISH_LINE = 23
HAND_SIZE = 4
"""Tiles in the common hand, and in each personal hand."""


class GameError(ValueError):
    """A game record that cannot be read or replayed, with the reason in the message."""


class Action(enum.Enum):
    PLAY = "play"
    SWAP = "swap"


@dataclass(frozen=True)
class GameOptions:
    equal_turns: bool = False
    """Play on after the finish line until everyone has had the same number of turns."""
    max_tiles: int = MAX_TILES_PER_TURN


@dataclass(frozen=True)
class GameSetup:
    """Who plays where, with which options, from which starting board."""

    seats: Seats
    teams: Teams | None = None
    options: GameOptions = GameOptions()
    start: Position = field(default_factory=Position.empty)

    @property
    def layout(self) -> Layout:
        """The board the game is played on: the starting position's layout.

        >>> GameSetup(Seats.parse("S=red,N=green")).layout.name
        'setup-standard'
        """
        return self.start.layout

    @property
    def finish_line(self) -> int:
        """The score that ends the game: 31, 27 or 23 for 2, 3 or 4 players; 23 for teams.

        >>> GameSetup(Seats.parse("S=red,N=green")).finish_line
        31
        """
        return TEAM_FINISH_LINE if self.teams else FINISH_LINE[len(self.seats.players)]

    @property
    def turn_cycle(self) -> tuple[str, ...]:
        """The players in playing order: clockwise, or the team game's alternation."""
        return self.teams.turn_cycle if self.teams else self.seats.players


@dataclass(frozen=True)
class Turn:
    """One recorded turn: a play (with the position after it) or a swap."""

    player: str
    action: Action
    position: Position | None = None

    def __post_init__(self) -> None:
        if (self.action is Action.PLAY) != (self.position is not None):
            raise GameError("a play needs the position after it; a swap has none")


@dataclass(frozen=True)
class TurnOutcome:
    """What one recorded turn did to the game."""

    number: int
    turn: Turn
    result: TurnResult | None
    """The analysis of a play (also of an illegal one); None for a swap."""
    scores: Mapping[str, int]
    """Running scores after this turn."""
    warnings: tuple[str, ...] = ()

    @property
    def counted(self) -> bool:
        """A swap, or a legal play: an illegal play is taken back and scores nothing."""
        return self.result is None or self.result.legal

    def to_json(self) -> dict[str, Any]:
        """The contract's turn object plus ``turn``, ``player``, ``action`` and ``scores``."""
        body = self.result.to_json() if self.result else _swap_json()
        out: dict[str, Any] = {"turn": self.number, "player": self.turn.player}
        out["action"] = self.turn.action.value
        out.update(body)
        out["scores"] = dict(self.scores)
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def _swap_json() -> dict[str, Any]:
    return {
        "legal": True,
        "errors": [],
        "placed": {},
        "points": 0,
        "scoring_tiles": [],
        "sets": [],
        "bonus": {},
    }


@dataclass(frozen=True)
class Ending:
    """How a finished game ended: the winner and why."""

    after_turn: int
    winner: str
    """A colour, or ``team red+yellow`` in the team game."""
    reason: str


@dataclass(frozen=True)
class GameState:
    """Everything that follows from a game record up to its last (counted) turn."""

    setup: GameSetup
    outcomes: tuple[TurnOutcome, ...]
    position: Position
    scores: Mapping[str, int]
    turns_taken: Mapping[str, int]
    last_placed: Mapping[str, int]
    """The turn number of each player's latest legal play (for the tie rules)."""
    buried: frozenset[Tile]
    """Tiles known to lie under stacks on the board."""
    in_hands: int
    """Tiles in the common hand and the personal hands (the camera cannot see them)."""
    in_bag: int
    recycled: int = 0
    """How many times the bag ran empty and buried tiles went back into it."""
    ending: Ending | None = None
    finish_reached: bool = False

    @classmethod
    def start(cls, setup: GameSetup) -> GameState:
        """The state before the first turn: no points yet, the unseen tiles in hands and bag.

        >>> state = GameState.start(GameSetup(Seats.parse("S=red,N=green")))
        >>> state.scores, state.in_hands, state.in_bag
        ({'red': 0, 'green': 0}, 12, 38)
        """
        players = setup.seats.players
        unseen = len(ALL_TILES) - len(setup.start.tiles())
        in_hands = min(HAND_SIZE * (1 + len(players)), unseen)
        return cls(
            setup=setup,
            outcomes=(),
            position=setup.start,
            scores=dict.fromkeys(players, 0),
            turns_taken=dict.fromkeys(players, 0),
            last_placed={},
            buried=frozenset(),
            in_hands=in_hands,
            in_bag=unseen - in_hands,
        )

    @property
    def finished(self) -> bool:
        """Whether the game has ended (:attr:`ending` says how); it then takes no more turns."""
        return self.ending is not None

    @property
    def standing(self) -> Ending:
        """Who wins if play stops here: :attr:`ending` once the game is over, else the
        leader by the same rules, after the last turn counted so far.

        A record may stop before anyone reaches the finish line (the players called
        it a night); the rules' order still names a winner, and the reason says so.

        >>> from engine.seats import Seats
        >>> GameState.start(GameSetup(Seats.parse("S=red,W=green"))).standing.winner
        'red'
        """
        if self.ending is not None:
            return self.ending
        winner, reason = self._decide_winner()
        line = self.setup.finish_line
        return Ending(
            len(self.outcomes), winner, f"nobody reached the finish line ({line}): {reason}"
        )

    @property
    def turn_number(self) -> int:
        """The number the next turn will have (turns count from 1)."""
        return len(self.outcomes) + 1

    @property
    def next_player(self) -> str | None:
        """Whose turn it is; the first player of the cycle before any turn; None when over."""
        if self.finished:
            return None
        cycle = self.setup.turn_cycle
        if not self.outcomes:
            return cycle[0]
        last = self.outcomes[-1].turn.player
        return cycle[(cycle.index(last) + 1) % len(cycle)]

    def analyse(self, player: str, after: Position) -> TurnResult:
        """Score a play by ``player`` from the current position to ``after``; nothing changes."""
        return analyse_turn(
            self.position,
            after,
            self.setup.seats,
            player,
            buried=self.buried,
            max_tiles=self.setup.options.max_tiles,
        )

    def apply(self, turn: Turn) -> GameState:
        """The state after ``turn``. A finished game takes no more turns."""
        if self.finished:
            raise GameError(
                f"the game ended after turn {self.ending.after_turn if self.ending else 0}"
            )
        try:
            self.setup.seats.edge_of(turn.player)
        except SeatsError as err:
            raise GameError(f"turn {self.turn_number}: {err}") from None
        warnings = []
        expected = self.next_player
        if self.outcomes and turn.player != expected:
            warnings.append(f"out of turn: {expected} was to play")

        number = self.turn_number
        state = replace(
            self, turns_taken={**self.turns_taken, turn.player: self.turns_taken[turn.player] + 1}
        )
        result = None
        if turn.action is Action.PLAY:
            assert turn.position is not None
            result = self.analyse(turn.player, turn.position)
            warnings += self._left_from_illegal_plays(result)
            if result.legal:
                state = state._after_play(number, turn.position, result)
        outcome = TurnOutcome(number, turn, result, dict(state.scores), tuple(warnings))
        state = replace(state, outcomes=(*self.outcomes, outcome))
        return state._check_ending(number)

    def _left_from_illegal_plays(self, result: TurnResult) -> list[str]:
        """Tiles this play "places" that an illegal play just before it placed on the
        same squares: taken back by the rules, they were left on the table, and count
        as this player's (the players should lift them, or correct the turns)."""
        first_placed: dict[tuple[str, Tile], TurnOutcome] = {}
        for outcome in reversed(self.outcomes):
            if outcome.result is None:
                continue  # a swap
            if outcome.result.legal:
                break
            # Walking back, so the earliest illegal turn that placed a tile is kept:
            # the later ones only counted it again.
            for square, tile in outcome.result.placed.items():
                first_placed[(square, tile)] = outcome
        return [
            f"{tile} on {square} is from {outcome.turn.player}'s illegal turn "
            f"{outcome.number}, which was taken back"
            for (square, tile), outcome in sorted(
                first_placed.items(), key=lambda item: (item[1].number, item[0][0])
            )
            if result.placed.get(square) == tile
        ]

    def _after_play(self, number: int, after: Position, result: TurnResult) -> GameState:
        scores = dict(self.scores)
        scores[result.player] += result.points
        for player, bonus in result.bonus.items():
            scores[player] += bonus
        newly_buried = {
            old for square in result.placed if (old := self.position[square]) is not None
        }
        buried = self.buried | newly_buried
        # Placed tiles leave the hands; the hands refill from the bag, common hand first.
        in_hands = self.in_hands - len(result.placed)
        drawn = min(len(result.placed), self.in_bag)
        in_hands, in_bag = in_hands + drawn, self.in_bag - drawn
        recycled = self.recycled
        if in_bag == 0 and buried:
            # The bag ran empty: every covered tile goes back into it, and the
            # hands finish refilling from it.
            in_bag, buried, recycled = len(buried), frozenset(), recycled + 1
            target = HAND_SIZE * (1 + len(self.setup.seats.players))
            drawn = min(target - in_hands, in_bag)
            in_hands, in_bag = in_hands + drawn, in_bag - drawn
        return replace(
            self,
            position=after,
            scores=scores,
            last_placed={**self.last_placed, result.player: number},
            buried=buried,
            in_hands=in_hands,
            in_bag=in_bag,
            recycled=recycled,
        )

    def _check_ending(self, number: int) -> GameState:
        line = self.setup.finish_line
        reached = self.finish_reached or any(s >= line for s in self.scores.values())
        if not reached:
            return self
        equal_turns = self.setup.options.equal_turns and self.setup.teams is None
        if equal_turns and len(set(self.turns_taken.values())) > 1:
            return replace(self, finish_reached=True)
        winner, reason = self._decide_winner()
        return replace(self, finish_reached=True, ending=Ending(number, winner, reason))

    def _decide_winner(self) -> tuple[str, str]:
        if self.setup.teams:
            return self._decide_team_winner(self.setup.teams)
        best = max(self.scores.values())
        leaders = [p for p in self.setup.turn_cycle if self.scores[p] == best]
        if len(leaders) == 1:
            return leaders[0], f"{leaders[0]} has the most points ({best})"
        winner = self._latest_placer(leaders)
        tied = " and ".join(leaders)
        return winner, f"{tied} tie on {best}; {winner} placed tiles most recently" + (
            f" (turn {self.last_placed[winner]})" if winner in self.last_placed else ""
        )

    def _decide_team_winner(self, teams: Teams) -> tuple[str, str]:
        low, high = min(self.scores.values()), max(self.scores.values())
        pair_a, pair_b = teams.pairs

        def has_score(pair: tuple[str, str], score: int) -> bool:
            return any(self.scores[p] == score for p in pair)

        if has_score(pair_a, low) != has_score(pair_b, low):
            loser, winner = (pair_a, pair_b) if has_score(pair_a, low) else (pair_b, pair_a)
            last = next(p for p in loser if self.scores[p] == low)
            return Teams.name(
                winner
            ), f"{Teams.name(loser)} has the pawn in last place ({last}, {low})"
        if has_score(pair_a, high) != has_score(pair_b, high):
            winner = pair_a if has_score(pair_a, high) else pair_b
            first = next(p for p in winner if self.scores[p] == high)
            return Teams.name(winner), (
                f"both teams have a pawn in last place ({low}); {Teams.name(winner)} "
                f"has the pawn in first place ({first}, {high})"
            )
        latest = self._latest_placer(list(teams.turn_cycle))
        winner = teams.team_of(latest)
        return Teams.name(winner), (
            f"both teams tie for last ({low}) and first ({high}) place; "
            f"{Teams.name(winner)} placed tiles most recently ({latest})"
        )

    def _latest_placer(self, players: list[str]) -> str:
        """Of ``players``, who placed tiles most recently; failing that, the first in turn order."""
        return max(players, key=lambda p: (self.last_placed.get(p, 0), -players.index(p)))


@dataclass(frozen=True)
class GameRecord:
    """The set-up and the turns as recorded. Immutable: edits return a new record."""

    setup: GameSetup
    turns: tuple[Turn, ...] = ()

    def with_turn(self, turn: Turn) -> GameRecord:
        """A new record with ``turn`` added at the end; it is checked only on :meth:`replay`.

        >>> record = GameRecord(GameSetup(Seats.parse("S=red,N=green")))
        >>> record.with_turn(Turn("red", Action.SWAP)).turns
        (Turn(player='red', action=<Action.SWAP: 'swap'>, position=None),)
        >>> record.turns
        ()
        """
        return replace(self, turns=(*self.turns, turn))

    def without_last_turn(self) -> GameRecord:
        """A new record without its last turn (an undo); :class:`GameError` if it has none.

        >>> record = GameRecord(GameSetup(Seats.parse("S=red,N=green")))
        >>> record.with_turn(Turn("red", Action.SWAP)).without_last_turn() == record
        True
        >>> try:
        ...     record.without_last_turn()
        ... except GameError as err:
        ...     print(err)
        there is no turn to undo
        """
        if not self.turns:
            raise GameError("there is no turn to undo")
        return replace(self, turns=self.turns[:-1])

    def with_position(self, turn_number: int, position: Position) -> GameRecord:
        """Correct the position recorded after turn ``turn_number`` (counted from 1;
        0 is the starting board)."""
        if turn_number == 0:
            return replace(self, setup=replace(self.setup, start=position))
        if not 1 <= turn_number <= len(self.turns):
            raise GameError(f"there is no turn {turn_number} to correct")
        old = self.turns[turn_number - 1]
        if old.action is not Action.PLAY:
            raise GameError(f"turn {turn_number} was a swap; it has no position to correct")
        turns = list(self.turns)
        turns[turn_number - 1] = replace(old, position=position)
        return replace(self, turns=tuple(turns))

    def replay(self) -> GameState:
        """Fold every turn into a state; turns after the game's end are ignored."""
        state = GameState.start(self.setup)
        for turn in self.turns:
            if state.finished:
                break
            state = state.apply(turn)
        return state

    @classmethod
    def from_json(cls, data: Any, layout: Layout | None = None) -> GameRecord:
        """Read the contract's GAME.json object (section 5)."""
        if not isinstance(data, dict):
            raise GameError("a game must be a JSON object with seats, start and turns")
        _refuse_unknown_keys(data, _GAME_KEYS, "")
        layout = layout or Layout.load()
        try:
            seats = Seats.from_json(data.get("seats"))
            teams_data = data.get("teams")
            teams = None if teams_data is None else Teams.from_pairs(teams_data, seats)
        except SeatsError as err:
            raise GameError(str(err)) from None
        options_data = data.get("options") or {}
        if not isinstance(options_data, dict):
            raise GameError("'options' must be an object")
        unknown = sorted(set(options_data) - {"equal_turns"})
        if unknown:
            # A misspelt option would otherwise be ignored, and the game scored otherwise.
            raise GameError(f"unknown option {unknown[0]!r} (the options: equal_turns)")
        equal_turns = options_data.get("equal_turns", False)
        if not isinstance(equal_turns, bool):
            raise GameError("options.equal_turns must be true or false")
        if "start" not in data:
            # The game starts with 4 tiles drawn onto the common squares: a missing start
            # would score them to the first player.
            raise GameError(
                "'start' is missing: the position the game started from "
                '({"squares": {}} for an empty board)'
            )
        start = _read_position(data["start"], layout, "start")
        setup = GameSetup(seats, teams, GameOptions(equal_turns=equal_turns), start)
        if "turns" not in data:
            # A misspelt key would otherwise replay as a game with no turns.
            raise GameError("'turns' is missing: the game's turns ([] for none yet)")
        raw_turns = data["turns"]
        if not isinstance(raw_turns, list):
            raise GameError("'turns' must be a list")
        turns = tuple(_read_turn(raw, number, layout) for number, raw in enumerate(raw_turns, 1))
        return cls(setup, turns)

    def to_json(self) -> dict[str, Any]:
        """The contract's GAME.json object (section 5), which :meth:`from_json` reads back.

        >>> setup = GameSetup(Seats.parse("S=red,N=green"))
        >>> record = GameRecord(setup, (Turn("red", Action.SWAP),))
        >>> data = record.to_json()
        >>> data["seats"], data["turns"]
        ({'S': 'red', 'N': 'green'}, [{'player': 'red', 'action': 'swap'}])
        >>> GameRecord.from_json(data) == record
        True
        """
        setup = self.setup
        return {
            "seats": setup.seats.to_json(),
            "teams": setup.teams.to_json() if setup.teams else None,
            "options": {"equal_turns": setup.options.equal_turns},
            "start": setup.start.to_json(),
            "turns": [
                {"player": t.player, "action": t.action.value}
                | ({"position": t.position.to_json()} if t.position else {})
                for t in self.turns
            ],
        }


_GAME_KEYS = ("seats", "teams", "options", "start", "turns")
_TURN_KEYS = ("player", "action", "position")


def _refuse_unknown_keys(data: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    """A misspelt key ("team", "Action") would be ignored, and the game scored
    otherwise than the file means: it is an error instead."""
    unknown = [key for key in data if key not in known]
    if unknown:
        raise GameError(f"{where}unknown key {unknown[0]!r} (the keys: {', '.join(known)})")


def _read_position(data: Any, layout: Layout, where: str) -> Position:
    try:
        return Position.from_json(data, layout, origin=where)
    except PositionError as err:
        raise GameError(str(err)) from None


def _read_turn(raw: Any, number: int, layout: Layout) -> Turn:
    where = f"turn {number}"
    if not isinstance(raw, dict):
        raise GameError(f"{where}: expected an object with player and action")
    _refuse_unknown_keys(raw, _TURN_KEYS, f"{where}: ")
    player = raw.get("player")
    if not isinstance(player, str):
        raise GameError(f"{where}: 'player' must be a colour name")
    try:
        action = Action(raw.get("action"))
    except ValueError:
        raise GameError(
            f'{where}: \'action\' must be "play" or "swap", not {raw.get("action")!r}'
        ) from None
    if action is Action.SWAP:
        return Turn(player, action)
    if "position" not in raw:
        raise GameError(f"{where}: a play needs the 'position' after it")
    return Turn(player, action, _read_position(raw["position"], layout, where))
