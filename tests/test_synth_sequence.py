"""Game streams: events match the positions, tiles land one by one, swaps change nothing."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engine import Edge, Position, Tile
from vision.synth.sequence import GameStream

SMALL = (320, 180)


@dataclass(frozen=True)
class _Turn:
    player: str
    action: str
    position: Position | None = None


@dataclass(frozen=True)
class _Record:
    start: Position
    turns: tuple[_Turn, ...]


def _stand_in_game() -> _Record:
    start = Position.from_json({"squares": {"b2": "5h", "c2": "6h", "b3": "1s", "c3": "9d"}})
    after_1 = start.place({"c1": Tile.parse("7h"), "b2": Tile.parse("4h")})
    after_3 = after_1.place({"a2": Tile.parse("7s")})
    return _Record(
        start,
        (
            _Turn("red", "play", after_1),
            _Turn("green", "swap"),
            _Turn("red", "play", after_3),
        ),
    )


def _check_stream(stream: GameStream, record) -> list:
    frames = list(stream)
    assert frames
    events = [e for _, evs in frames for e in evs]
    position = stream.start
    turn_no = 0
    for event in events:
        if event.kind == "turn_start":
            turn_no += 1
            assert event.turn == turn_no
            placed: dict[str, Tile] = {}
        elif event.kind == "tile_placed":
            assert event.turn == turn_no
            placed[event.square] = event.tile
        else:
            assert event.kind == "turn_end" and event.turn == turn_no
            turn = record.turns[turn_no - 1]
            if turn.position is None:
                assert not placed and event.position == position
            else:
                assert event.position == turn.position
                assert position.place(placed) == turn.position
                position = turn.position
    assert turn_no == len(record.turns)
    # Frame truth: a tile appears when its event says so, and never twice on the board.
    shown = stream.start
    for frame, evs in frames:
        for event in evs:
            if event.kind == "tile_placed":
                shown = shown.place({event.square: event.tile})
        assert frame.truth.position == shown
        all_tiles = [t for t in frame.truth.position.squares.values() if t is not None]
        for below in frame.truth.stacks.values():
            all_tiles.extend(below)
        assert max(Counter(all_tiles).values()) == 1
    return frames


def test_stand_in_game_with_hands() -> None:
    record = _stand_in_game()
    stream = GameStream(
        record, seed=1, seats={"red": Edge.SOUTH, "green": Edge.NORTH}, resolution=SMALL, fps=8
    )
    frames = _check_stream(stream, record)
    kinds = [e.kind for _, evs in frames for e in evs]
    assert kinds == [
        "turn_start", "tile_placed", "tile_placed", "turn_end",
        "turn_start", "turn_end",
        "turn_start", "tile_placed", "turn_end",
    ]  # fmt: skip
    # The hand covers squares while it works, and is gone at each turn's end.
    assert any(frame.truth.covered for frame, _ in frames)
    for frame, evs in frames:
        if any(e.kind == "turn_end" for e in evs):
            assert frame.hand_mask is None
    # The replaced tile 5♥ on b2 now lies beneath 4♥.
    assert frames[-1][0].truth.stacks.get("b2") == (Tile.parse("5h"),)


def test_stand_in_game_without_hands() -> None:
    record = _stand_in_game()
    _check_stream(GameStream(record, seed=2, hands=False, resolution=SMALL, fps=6), record)


def test_engine_game_stream() -> None:
    stream = GameStream.random(5, resolution=SMALL, fps=5, max_turns=4)
    _check_stream(stream, stream.record)


def test_same_seed_same_stream() -> None:
    record = _stand_in_game()
    a = [f.image for f, _ in GameStream(record, seed=3, resolution=SMALL, fps=4)]
    b = [f.image for f, _ in GameStream(record, seed=3, resolution=SMALL, fps=4)]
    assert len(a) == len(b) and all((x == y).all() for x, y in zip(a, b, strict=True))


def test_cli_game_writes_frames_and_events(tmp_path) -> None:
    import json

    from setupcam.cli import main

    out = tmp_path / "game"
    args = ["synth", "--game", "--seed", "2", "--out", str(out), "--hands"]
    code = main([*args, "--resolution", "320x180", "--fps", "4", "--max-turns", "2"])
    assert code == 0
    lines = (out / "events.jsonl").read_text(encoding="utf-8").splitlines()
    events = [json.loads(line) for line in lines]
    assert events[0]["event"] == "turn_start" and events[-1]["event"] == "turn_end"
    assert "position" in events[-1]
    frames = sorted(out.glob("frame_*.jpg"))
    assert len(frames) > events[-1]["frame"]
