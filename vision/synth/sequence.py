"""A simulated game as a stream of camera frames with ground-truth events.

The engine plays a game (:func:`engine.simulate.random_game`, or any record with a
start position and turns); for each turn a hand comes in from the active player's
edge, puts the tiles down one by one and leaves, while the camera shakes a pixel or
two and the light flickers. Every frame comes with the events that happened at it::

    >>> stream = GameStream.random(3, resolution=(320, 180), max_turns=1)
    >>> kinds = [e.kind for _, events in stream for e in events]
    >>> kinds[0], kinds[-1]
    ('turn_start', 'turn_end')

Events: ``turn_start`` (turn number, player, action), ``tile_placed`` (square, tile)
at the frame the tile lands, and ``turn_end`` (turn number, the position after the
turn). A swap is a ``turn_start`` and a ``turn_end`` a moment later with the board
unchanged.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from engine import Edge, Layout, Position, Tile
from vision.synth.camera import random_camera
from vision.synth.hands import HandSpec, random_hand
from vision.synth.photo import sample_photo_effects
from vision.synth.scene import BoardCache, Frame, Scene, render_frame
from vision.synth.styles import FAMILIES, TRAINING_FAMILIES, sample_style
from vision.synth.table_art import random_clutter


class TurnLike(Protocol):
    player: str
    action: Any  # engine.game.Action or "play"/"swap"
    position: Position | None


@dataclass(frozen=True)
class Event:
    """One ground-truth event. ``kind`` is ``turn_start``, ``tile_placed`` or ``turn_end``."""

    kind: str
    turn: int
    player: str
    time_s: float
    action: str | None = None
    square: str | None = None
    tile: Tile | None = None
    position: Position | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"event": self.kind, "turn": self.turn, "player": self.player}
        data["time_s"] = round(self.time_s, 3)
        if self.action is not None:
            data["action"] = self.action
        if self.square is not None:
            data["square"] = self.square
        if self.tile is not None:
            data["tile"] = str(self.tile)
        if self.position is not None:
            data["position"] = self.position.to_json()
        return data


def _action_name(action: Any) -> str:
    return str(getattr(action, "value", action))


@dataclass(frozen=True)
class Timing:
    """How long each part of a turn takes, in seconds."""

    # Nothing happens between turns: the next player looks at the board and decides.
    # SETUP players take a few seconds; 1.2 s is a quick table.
    pause: float = 1.2
    enter: float = 0.7  # the hand comes in
    lower: float = 0.35  # the hand goes down onto a square
    lift: float = 0.25  # ... and up again
    move: float = 0.4  # from one square to the next
    leave: float = 0.7  # the hand goes away
    swap: float = 1.0  # a swap turn, seen from above: nothing


class GameStream:
    """Frames of a whole game at ``fps``; iterate for ``(Frame, [Event, ...])``.

    ``record`` needs ``turns`` (each with ``player``, ``action``, ``position``) and a
    start position (``record.start`` or ``record.setup.start``); ``seats`` maps each
    player to the edge they sit at (taken from ``record.setup.seats`` when there).
    """

    def __init__(
        self,
        record: Any,
        *,
        seed: int = 0,
        seats: Mapping[str, Edge] | None = None,
        family: str | None = None,
        hands: bool = True,
        resolution: tuple[int, int] = (1280, 720),
        fps: float = 15.0,
        shake_px: float = 1.0,
        flicker: float = 0.03,
        timing: Timing | None = None,
        thinking: Mapping[int, float] | None = None,
    ) -> None:
        if family is not None and family not in FAMILIES:
            raise ValueError(f"unknown art family {family!r}; families: {', '.join(FAMILIES)}")
        self.record = record
        self.turns: Sequence[TurnLike] = tuple(record.turns)
        setup = getattr(record, "setup", None)
        self.start: Position = getattr(record, "start", None) or setup.start
        if seats is None and setup is not None:
            seats = {player: setup.seats.edge_of(player) for player in setup.seats.players}
        self.seats: dict[str, Edge] = dict(seats or {})
        self.seed = seed
        self.hands = hands
        self.fps = fps
        self.shake_px = shake_px
        self.flicker = flicker
        self.timing = timing or Timing()
        self.thinking = dict(thinking or {})
        """Turn number -> seconds its player takes the hand away after the first tile,
        to think, before putting down the rest (with hands only)."""
        rng = np.random.default_rng(seed)
        family = family or TRAINING_FAMILIES[int(rng.integers(len(TRAINING_FAMILIES)))]
        self.base = Scene(
            position=self.start,
            stacks={},
            camera=random_camera(rng, resolution),
            style=sample_style(family, rng),
            resolution=resolution,
            photo=replace(sample_photo_effects(rng, strength=0.6), jpeg_quality=None),
            clutter=random_clutter(rng) if rng.random() < 0.6 else (),
            jitter_seed=int(rng.integers(1 << 30)),
        )
        self._hand_look = random_hand(rng)
        self._rng = rng

    @classmethod
    def random(
        cls,
        seed: int,
        *,
        players: str = "S=red,W=green,N=yellow,E=purple",
        strategy: str = "greedy",
        max_turns: int = 400,
        **kwargs: Any,
    ) -> GameStream:
        """A stream of a game the engine plays with ``seed`` (greedy or random plays)."""
        from engine.seats import Seats
        from engine.simulate import random_game

        record = random_game(
            random.Random(seed), Seats.parse(players), strategy=strategy, max_turns=max_turns
        )  # type: ignore[arg-type]
        return cls(record, seed=seed, **kwargs)

    @property
    def layout(self) -> Layout:
        return self.start.layout

    def __iter__(self) -> Iterator[tuple[Frame, list[Event]]]:
        rng = np.random.default_rng([self.seed, 1])
        cache = BoardCache()
        position = self.start
        stacks: dict[str, tuple[Tile, ...]] = {}
        frame_no = 0
        for number, turn in enumerate(self.turns, start=1):
            for state in self._turn_states(number, turn, position, stacks):
                position, stacks, hand, events = state
                t = frame_no / self.fps
                light = 1 + self.flicker * (0.6 * math.sin(t * 4.1) + 0.4 * rng.uniform(-1, 1))
                scene = replace(
                    self.base,
                    position=position,
                    stacks=dict(stacks),
                    hand=hand,
                    camera=self.base.camera.shaken(rng, self.shake_px),
                )
                frame = render_frame(scene, rng, flicker=light, encode_jpeg=False, cache=cache)
                stamped = [replace(e, time_s=t) for e in events]
                yield frame, stamped
                frame_no += 1

    # One turn as a list of (position, stacks, hand, events) per frame.
    def _turn_states(
        self,
        number: int,
        turn: TurnLike,
        position: Position,
        stacks: dict[str, tuple[Tile, ...]],
    ) -> Iterator[tuple[Position, dict[str, tuple[Tile, ...]], HandSpec | None, list[Event]]]:
        timing = self.timing
        action = _action_name(turn.action)
        n = self._frames
        start = Event("turn_start", number, turn.player, 0.0, action=action)
        for _ in range(n(timing.pause)):
            yield position, stacks, None, []
        after = turn.position
        if action != "play" or after is None:
            yield position, stacks, None, [start]
            for _ in range(n(timing.swap) - 1):
                yield position, stacks, None, []
            yield (
                position,
                stacks,
                None,
                [Event("turn_end", number, turn.player, 0.0, action, position=position)],
            )
            return
        placed = [
            (s, after[s])
            for s in self.layout.squares
            if after[s] != position[s] and after[s] is not None
        ]
        edge = self.seats.get(turn.player, Edge.SOUTH)
        pending = [start]
        if not self.hands:
            for square, tile in placed:
                for _ in range(n(timing.move)):
                    yield position, stacks, None, pending
                    pending = []
                position, stacks = _put(position, stacks, square, tile)  # type: ignore[arg-type]
                yield (
                    position,
                    stacks,
                    None,
                    [
                        *pending,
                        Event("tile_placed", number, turn.player, 0.0, square=square, tile=tile),
                    ],
                )
                pending = []
        else:
            outside = _outside_point(edge)
            where = outside
            for square, tile in placed:
                centre = self.layout.rects[square].center
                duration = timing.enter if where == outside else timing.move
                for k in range(n(duration)):
                    f = _ease((k + 1) / n(duration))
                    hand = self._hand(edge, _lerp(where, centre, f), 0.09)
                    yield position, stacks, hand, pending
                    pending = []
                for k in range(n(timing.lower)):
                    f = _ease((k + 1) / n(timing.lower))
                    yield position, stacks, self._hand(edge, centre, 0.09 - 0.075 * f), pending
                    pending = []
                position, stacks = _put(position, stacks, square, tile)  # type: ignore[arg-type]
                event = Event("tile_placed", number, turn.player, 0.0, square=square, tile=tile)
                for k in range(n(timing.lift)):
                    f = _ease((k + 1) / n(timing.lift))
                    yield (
                        position,
                        stacks,
                        self._hand(edge, centre, 0.015 + 0.075 * f),
                        [event] if k == 0 else [],
                    )
                where = centre
                if square == placed[0][0] and len(placed) > 1 and self.thinking.get(number):
                    for k in range(n(timing.leave)):
                        f = _ease((k + 1) / n(timing.leave))
                        yield position, stacks, self._hand(edge, _lerp(where, outside, f), 0.09), []
                    for _ in range(n(self.thinking[number])):
                        yield position, stacks, None, []
                    where = outside
            for k in range(n(timing.leave)):
                f = _ease((k + 1) / n(timing.leave))
                yield position, stacks, self._hand(edge, _lerp(where, outside, f), 0.09), pending
                pending = []
        if position != after:
            # Whatever the hand did, the truth after the turn is the record's position.
            position = after
        yield (
            position,
            stacks,
            None,
            [*pending, Event("turn_end", number, turn.player, 0.0, action, position=position)],
        )

    def _frames(self, seconds: float) -> int:
        return max(1, round(seconds * self.fps))

    def _hand(self, edge: Edge, target: tuple[float, float], height: float) -> HandSpec:
        return replace(
            self._hand_look,
            edge=edge,
            target=target,
            height_m=height,
            yaw_deg=self._hand_look.yaw_deg * 0.5,
        )


def _put(
    position: Position, stacks: dict[str, tuple[Tile, ...]], square: str, tile: Tile
) -> tuple[Position, dict[str, tuple[Tile, ...]]]:
    """Put ``tile`` on top of ``square``; the old top joins the stack beneath."""
    stacks = dict(stacks)
    if any(tile in below for below in stacks.values()):
        # The bag ran out and the buried tiles went back into it: the stacks are cleared.
        stacks = {}
    old = position[square]
    if old is not None:
        stacks[square] = (*stacks.get(square, ()), old)
    return position.place({square: tile}), stacks


def _outside_point(edge: Edge) -> tuple[float, float]:
    return {
        Edge.SOUTH: (0.5, 1.9),
        Edge.NORTH: (0.5, -0.9),
        Edge.WEST: (-0.9, 0.5),
        Edge.EAST: (1.9, 0.5),
    }[edge]


def _lerp(a: tuple[float, float], b: tuple[float, float], f: float) -> tuple[float, float]:
    return (a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f)


def _ease(f: float) -> float:
    return 0.5 - 0.5 * math.cos(math.pi * min(1.0, max(0.0, f)))
