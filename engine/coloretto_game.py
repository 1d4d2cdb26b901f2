"""Following a Coloretto game at a real table, round by round.

The tracker never shuffles: the caller says which card came up, so it can follow
the cards a real table turns over (typed in, or later read by the camera). A
:class:`GameState` is immutable; every action returns a new state or raises
:class:`ColorettoError` with the reason. Rows are numbered from 0. ::

    >>> colours = ["blue", "brown", "green", "grey", "orange", "red"]  # 3 players: 6
    >>> g = GameState.new(["anna", "ben", "carla"], colours,
    ...                   starting={"anna": ["green"], "ben": ["red"], "carla": ["blue"]})
    >>> g = g.draw("anna", "grey", row=0).draw("ben", "+2", row=0)
    >>> g = g.take_row("carla", 0)
    >>> g.cards_of("carla"), g.current
    (('blue', 'grey', '+2'), 'anna')
    >>> g.draw("carla", "red", row=1)
    Traceback (most recent call last):
    ...
    engine.coloretto.ColorettoError: carla has taken a row and sits out the rest of this round

The rules followed (COLORETTO.md): a turn is *draw and place* (a row holds at most
its capacity: 3, or 1/2/3 for the 2-player green rows) or *take a row* with at least
one card; taking the golden joker means turning up one more card of the deck and
taking it too; a player who took a row sits out the rest of the round; the round
ends when every player has taken a row, and the player who took the last row
starts the next one. Drawing the "last round" card sets it aside (the same player
draws again) and makes this round the last. With 2 players, the third row's cards
leave the game at the end of each round. Every card drawn must still exist: no
10th card of a colour, no 3rd joker, no colour outside the game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from engine.coloretto import (
    CARDS_PER_COLOUR,
    GOLDEN_JOKER,
    JOKER,
    PLUS_TWO,
    SPECIAL_COPIES,
    ColorettoError,
    Scoresheet,
    Table,
    Tableau,
    check_colour_name,
    colours_in_play,
    row_capacities,
)

LAST_ROUND = "last_round"

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class Row:
    """A row card: the cards placed beside it, or who took it (and its cards) this round."""

    capacity: int
    cards: tuple[str, ...] = ()
    taken_by: str | None = None

    @property
    def is_full(self) -> bool:
        """Whether the row holds its capacity of cards: no more may be placed beside it.

        >>> Row(3, ("red", "joker")).is_full, Row(1, ("red",)).is_full
        (False, True)
        """
        return len(self.cards) >= self.capacity

    @property
    def is_open(self) -> bool:
        """Still in the middle this round (not taken)."""
        return self.taken_by is None


@dataclass(frozen=True, slots=True)
class GameState:
    """One moment of a game. Build it with :meth:`new`; change it only through actions."""

    players: tuple[str, ...]
    """In seating order: play passes to the next player in this order (to the left)."""
    colours: tuple[str, ...]
    rows: tuple[Row, ...]
    taken: tuple[tuple[str, ...], ...]
    """The cards in front of each player (starting cards first), parallel to ``players``."""
    current: str | None
    """Whose move it is; ``None`` once the game is over."""
    starter: str
    """Who started the current round."""
    round: int = 1
    last_round: bool = False
    """The "last round" card has come up: the game ends with this round."""
    awaiting_extra: bool = False
    """The current player took the golden joker and must turn up one more card."""
    out_of_game: tuple[str, ...] = ()
    """Cards that left the game (2 players: the third row at each round's end)."""

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        colours: Iterable[str],
        starting: Mapping[str, Sequence[str]],
        first: str | None = None,
    ) -> GameState:
        """A game about to start: ``colours`` are those left in the deck (7, 6 for 3
        players, 5 for 2), ``starting`` the face-up cards each player was dealt (one,
        two with 2 players), ``first`` who begins (the first player by default)."""
        players = tuple(players)
        row_caps = row_capacities(len(players))
        for name in players:
            if not isinstance(name, str) or not name.strip():
                raise ColorettoError(f"a player needs a non-empty name, not {name!r}")
        if len(set(players)) != len(players):
            raise ColorettoError(f"a player is named twice: {', '.join(players)}")
        colours = tuple(check_colour_name(c) for c in colours)
        expected = colours_in_play(len(players))
        if len(set(colours)) != len(colours) or len(colours) != expected:
            raise ColorettoError(
                f"{len(players)} players play with {expected} different colours, "
                f"not {len(colours)} ({', '.join(colours)})"
            )
        taken = tuple(_starting_cards(players, colours, starting))
        first = players[0] if first is None else first
        if first not in players:
            raise ColorettoError(f"{first!r} is not playing ({', '.join(players)})")
        rows = tuple(Row(cap) for cap in row_caps)
        return cls(players, colours, rows, taken, first, first)

    # --- what the state says --------------------------------------------------------

    @property
    def finished(self) -> bool:
        """Whether the game is over: the last round has ended and nobody is to move."""
        return self.current is None

    @property
    def sitting_out(self) -> tuple[str, ...]:
        """The players who have taken a row this round, in the order they took it."""
        return tuple(row.taken_by for row in self.rows if row.taken_by is not None)

    def cards_of(self, player: str) -> tuple[str, ...]:
        """The cards in front of ``player``: the starting cards, then those taken, in order.

        >>> g = GameState.new(["anna", "ben"], ["blue", "brown", "green", "grey", "red"],
        ...                   starting={"anna": ["green", "red"], "ben": ["blue", "grey"]})
        >>> g.draw("anna", "joker", row=0).take_row("ben", 0).cards_of("ben")
        ('blue', 'grey', 'joker')
        """
        return self.taken[self._index(player)]

    def tableau(self, player: str) -> Tableau:
        """The player's cards as a :class:`Tableau`, ready to score."""
        counts = Counter(self.cards_of(player))
        return Tableau.of(
            {c: n for c, n in counts.items() if c in self.colours},
            jokers=counts[JOKER],
            golden_joker=counts[GOLDEN_JOKER],
            plus_two=counts[PLUS_TWO],
        )

    def scoresheet(self, table: Table) -> Scoresheet:
        """Every player's tableau, to score (normally once the game is finished)."""
        players = {name: self.tableau(name) for name in self.players}
        return Scoresheet(table, players, self.colours, players_count=len(self.players))

    # --- actions --------------------------------------------------------------------

    def draw(self, player: str, card: str, row: int | None = None) -> GameState:
        """``player`` turns up ``card`` and places it beside ``row``.

        The "last round" card takes no row (pass ``row=None``): it is set aside and
        the same player draws again.
        """
        self._check_turn(player)
        self._check_not_awaiting_extra()
        self._check_exists(card)
        if card == LAST_ROUND:
            if row is not None:
                raise ColorettoError("the last round card is set aside, not placed in a row")
            return replace(self, last_round=True)
        if row is None:
            raise ColorettoError(f"say which row the {card} card goes to")
        target = self._open_row(row)
        if target.is_full:
            raise ColorettoError(
                f"row {row} is full ({len(target.cards)} of {target.capacity}); "
                "place the card elsewhere or take a row"
            )
        rows = _replace_at(self.rows, row, replace(target, cards=(*target.cards, card)))
        return replace(self, rows=rows, current=self._next_player(player, rows))

    def take_row(self, player: str, row: int) -> GameState:
        """``player`` takes ``row`` and its cards, and sits out the rest of the round.

        With the golden joker among them, the player must next turn up one more
        card (:meth:`take_extra`) before play goes on.
        """
        self._check_turn(player)
        self._check_not_awaiting_extra()
        target = self._open_row(row)
        if not target.cards:
            raise ColorettoError(f"row {row} is empty: a row needs at least one card to be taken")
        rows = _replace_at(self.rows, row, Row(target.capacity, taken_by=player))
        state = replace(self, rows=rows, taken=self._give(player, target.cards))
        if GOLDEN_JOKER in target.cards:
            return replace(state, awaiting_extra=True)
        return state._after_take(player)

    def take_extra(self, player: str, card: str) -> GameState:
        """``player``, who just took the golden joker, turns up ``card`` and takes it.

        If that card is "last round", it is set aside (this round becomes the last)
        and the player turns up another: call again.
        """
        self._check_turn(player)
        if not self.awaiting_extra:
            raise ColorettoError(
                f"{player} has no extra card to take (only after taking the golden joker)"
            )
        self._check_exists(card)
        if card == LAST_ROUND:
            return replace(self, last_round=True)
        state = replace(self, taken=self._give(player, (card,)), awaiting_extra=False)
        return state._after_take(player)

    # --- helpers ----------------------------------------------------------------------

    def _after_take(self, player: str) -> GameState:
        if len(self.sitting_out) < len(self.players):
            return replace(self, current=self._next_player(player, self.rows))
        # Every player has a row: the round is over. With 2 players the third row leaves.
        leftover = tuple(card for row in self.rows if row.is_open for card in row.cards)
        out = self.out_of_game + leftover
        if self.last_round:
            rows = tuple(replace(row, cards=()) if row.is_open else row for row in self.rows)
            return replace(self, rows=rows, current=None, out_of_game=out)
        fresh = tuple(Row(row.capacity) for row in self.rows)
        return replace(
            self, rows=fresh, current=player, starter=player, round=self.round + 1, out_of_game=out
        )

    def _next_player(self, player: str, rows: tuple[Row, ...]) -> str:
        """The next player in seating order who has not taken a row (maybe ``player``)."""
        out = {row.taken_by for row in rows}
        start = self._index(player)
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(start + step) % len(self.players)]
            if candidate not in out:
                return candidate
        raise AssertionError("every player has taken a row")  # the round would have ended

    def _index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise ColorettoError(f"{player!r} is not playing ({', '.join(self.players)})") from None

    def _give(self, player: str, cards: Iterable[str]) -> tuple[tuple[str, ...], ...]:
        i = self._index(player)
        return _replace_at(self.taken, i, (*self.taken[i], *cards))

    def _check_turn(self, player: str) -> None:
        self._index(player)
        if self.current is None:
            raise ColorettoError("the game is over")
        if player in self.sitting_out and player != self.current:
            raise ColorettoError(f"{player} has taken a row and sits out the rest of this round")
        if player != self.current:
            raise ColorettoError(f"it is {self.current}'s turn, not {player}'s")

    def _check_not_awaiting_extra(self) -> None:
        if self.awaiting_extra:
            raise ColorettoError(
                f"{self.current} took the golden joker and must first turn up the extra card"
            )

    def _open_row(self, row: int) -> Row:
        if not isinstance(row, int) or isinstance(row, bool) or not 0 <= row < len(self.rows):
            raise ColorettoError(f"there is no row {row!r} (rows 0 to {len(self.rows) - 1})")
        target = self.rows[row]
        if not target.is_open:
            raise ColorettoError(f"row {row} was already taken this round by {target.taken_by}")
        return target

    def _check_exists(self, card: str) -> None:
        """``card`` must be a card of this game with a copy still unseen."""
        if card == LAST_ROUND:
            if self.last_round:
                raise ColorettoError("the last round card has already come up")
            return
        if card in SPECIAL_COPIES:
            most = SPECIAL_COPIES[card]
        elif card in self.colours:
            most = CARDS_PER_COLOUR
        else:
            raise ColorettoError(
                f"{card!r} is not a card of this game (colours: {', '.join(self.colours)}; "
                f"or {JOKER}, {GOLDEN_JOKER}, {PLUS_TWO}, {LAST_ROUND})"
            )
        seen = sum(hand.count(card) for hand in self.taken)
        seen += sum(row.cards.count(card) for row in self.rows) + self.out_of_game.count(card)
        if seen >= most:
            raise ColorettoError(f"all {most} {card!r} cards are already out: this one cannot be")


def _starting_cards(
    players: tuple[str, ...], colours: tuple[str, ...], starting: Mapping[str, Sequence[str]]
) -> list[tuple[str, ...]]:
    """Check the dealt cards: 1 per player (2 with 2 players), colours in play, all different
    (with 2 players, each player's two differ)."""
    per_player = 2 if len(players) == 2 else 1
    unknown = [name for name in starting if name not in players]
    if unknown:
        raise ColorettoError(f"starting cards for {unknown[0]!r}, who is not playing")
    hands: list[tuple[str, ...]] = []
    for name in players:
        hand = tuple(starting.get(name, ()))
        if len(hand) != per_player or len(set(hand)) != len(hand):
            wanted = "1 colour card" if per_player == 1 else "2 cards of different colours"
            raise ColorettoError(
                f"{name} must start with {wanted}, not {', '.join(hand) or 'none'}"
            )
        for card in hand:
            if card not in colours:
                raise ColorettoError(f"{name} starts with {card!r}, which is not a colour in play")
        hands.append(hand)
    dealt = [card for hand in hands for card in hand]
    if per_player == 1 and len(set(dealt)) != len(dealt):
        raise ColorettoError(f"the starting cards must all be different colours: {dealt}")
    return hands


def _replace_at(items: tuple[_T, ...], index: int, value: _T) -> tuple[_T, ...]:
    return (*items[:index], value, *items[index + 1 :])
