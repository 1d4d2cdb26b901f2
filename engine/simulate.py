"""Simulated games: players who draw real tiles from a bag and make legal plays.

The simulated table renders these games, the property tests check the rules on
them, and the benchmarks replay them. The simulation knows what the camera never
sees (the bag, the hands), so it also checks the engine's tile accounting::

    >>> import random
    >>> from engine.seats import Seats
    >>> record = random_game(random.Random(7), Seats.parse("S=red,N=green"))
    >>> state = record.replay()
    >>> state.finished, max(state.scores.values()) >= 31
    (True, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal

from engine.game import HAND_SIZE, Action, GameOptions, GameRecord, GameSetup, GameState, Turn
from engine.layout import Layout
from engine.position import Position
from engine.seats import Seats, Teams
from engine.tiles import ALL_TILES, Tile

Strategy = Literal["greedy", "random"]


@dataclass
class TableTiles:
    """The tiles the camera cannot see: bag, common hand, personal hands, buried tiles."""

    bag: list[Tile]
    common_hand: list[Tile]
    hands: dict[str, list[Tile]]
    buried: list[Tile] = field(default_factory=list)

    def take(self, player: str, tiles: list[Tile]) -> None:
        """Remove ``player``'s placed ``tiles`` from the common hand, or else from their own.

        >>> h4, d4 = Tile.parse("4h"), Tile.parse("4d")
        >>> table = TableTiles(bag=[], common_hand=[h4], hands={"red": [d4]})
        >>> table.take("red", [h4, d4])
        >>> table.common_hand, table.hands
        ([], {'red': []})
        """
        for tile in tiles:
            source = self.common_hand if tile in self.common_hand else self.hands[player]
            source.remove(tile)

    def refill(self, player: str, rng: random.Random) -> None:
        """Common hand first, then the player's hand; an empty bag takes back the buried tiles."""
        self._draw_up(player)
        if not self.bag and self.buried:
            self.bag, self.buried = self.buried, []
            rng.shuffle(self.bag)
            self._draw_up(player)

    def _draw_up(self, player: str) -> None:
        for hand in (self.common_hand, self.hands[player]):
            while len(hand) < HAND_SIZE and self.bag:
                hand.append(self.bag.pop())


def random_game(
    rng: random.Random,
    seats: Seats,
    teams: Teams | None = None,
    *,
    options: GameOptions | None = None,
    strategy: Strategy = "greedy",
    max_turns: int = 400,
    attempts: int = 60,
    layout: Layout | None = None,
) -> GameRecord:
    """Play a whole game; ``greedy`` players take the best play they find, ``random`` any."""
    layout = layout or Layout.load()
    bag = list(ALL_TILES)
    rng.shuffle(bag)
    start = Position({s: bag.pop() for s in layout.squares if layout.is_common(s)}, layout)
    common_hand = [bag.pop() for _ in range(HAND_SIZE)]
    hands = {p: [bag.pop() for _ in range(HAND_SIZE)] for p in seats.players}
    table = TableTiles(bag, common_hand, hands)

    record = GameRecord(GameSetup(seats, teams, options or GameOptions(), start))
    return _play(rng, record, table, strategy, attempts, max_turns)


def play_on(
    rng: random.Random,
    record: GameRecord,
    *,
    strategy: Strategy = "greedy",
    max_turns: int = 400,
    attempts: int = 60,
) -> GameRecord:
    """Go on with a game played elsewhere, ``max_turns`` more turns at most.

    The players' hands were never recorded, so the tiles neither on the board nor
    buried under it are shuffled and dealt again.

    >>> import random
    >>> from engine.seats import Seats
    >>> begun = random_game(random.Random(7), Seats.parse("S=red,N=green"), max_turns=4)
    >>> ended = play_on(random.Random(8), begun)
    >>> ended.turns[:4] == begun.turns, ended.replay().finished
    (True, True)
    """
    state = record.replay()
    seen = set(state.position.tiles()) | state.buried
    bag = [t for t in ALL_TILES if t not in seen]
    rng.shuffle(bag)
    common_hand = [bag.pop() for _ in range(min(HAND_SIZE, len(bag)))]
    players = state.setup.seats.players
    hands = {p: [bag.pop() for _ in range(min(HAND_SIZE, len(bag)))] for p in players}
    table = TableTiles(bag, common_hand, hands)
    return _play(rng, record, table, strategy, attempts, len(record.turns) + max_turns)


def _play(
    rng: random.Random,
    record: GameRecord,
    table: TableTiles,
    strategy: Strategy,
    attempts: int,
    max_turns: int,
) -> GameRecord:
    """The game's turns until it ends or has ``max_turns`` turns."""
    state = record.replay()
    while not state.finished and len(record.turns) < max_turns:
        player = state.next_player
        assert player is not None
        placement = _choose_play(rng, state, player, table, strategy, attempts)
        if placement is None:
            turn = Turn(player, Action.SWAP)
            _swap(rng, table, player)
        else:
            turn = Turn(player, Action.PLAY, state.position.place(placement))
            table.buried.extend(t for s in placement if (t := state.position[s]) is not None)
            table.take(player, list(placement.values()))
            table.refill(player, rng)
        state = state.apply(turn)
        record = record.with_turn(turn)
    return record


def _swap(rng: random.Random, table: TableTiles, player: str) -> None:
    hand = table.hands[player]
    count = min(rng.randint(1, HAND_SIZE), len(hand), len(table.bag))
    out = rng.sample(hand, count)
    for tile in out:
        hand.remove(tile)
    hand.extend(table.bag.pop() for _ in range(count))
    table.bag.extend(out)
    rng.shuffle(table.bag)


def _choose_play(
    rng: random.Random,
    state: GameState,
    player: str,
    table: TableTiles,
    strategy: Strategy,
    attempts: int,
) -> dict[str, Tile] | None:
    """Try random candidate plays (tiles of one value or one suit on allowed squares)."""
    available = table.common_hand + table.hands[player]
    layout = state.position.layout
    squares = [s for s in layout.squares if state.setup.seats.may_use(player, s, layout)]
    if not available or (strategy == "random" and rng.random() < 0.05):
        return None
    best: list[dict[str, Tile]] = []
    best_points = 0
    for _ in range(attempts):
        anchor = rng.choice(available)
        if rng.random() < 0.5:
            family = [t for t in available if t.value == anchor.value]
        else:
            family = [t for t in available if t.suit == anchor.suit]
        count = rng.randint(1, min(3, len(family), len(squares)))
        tiles = [anchor, *rng.sample([t for t in family if t != anchor], count - 1)]
        placement = dict(zip(rng.sample(squares, count), tiles, strict=True))
        result = state.analyse(player, state.position.place(placement))
        if not result.legal:
            continue
        if strategy == "random":
            return placement
        if result.points > best_points:
            best, best_points = [placement], result.points
        elif result.points == best_points:
            best.append(placement)
    return rng.choice(best) if best else None
