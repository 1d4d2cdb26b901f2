"""The `setupcam score` and `setupcam replay` commands, as users and scripts call them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import Seats
from engine.simulate import random_game
from setupcam.cli import main


def write(tmp_path: Path, name: str, data: object) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return str(path)


@pytest.fixture
def positions(tmp_path: Path) -> tuple[str, str]:
    before = write(tmp_path, "before.json", {"squares": {"b3": "5♥", "b1": "4D", "a2": "4c"}})
    after = write(
        tmp_path,
        "after.json",
        {
            "layout": "setup-standard",
            "squares": {"b3": "5h", "b1": "4♦", "a2": "4♣", "b2": "4♥", "c3": "6H"},
        },
    )
    return before, after


def test_score_prints_the_contract_object(
    positions: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["score", *positions, "--seats", "S=red,W=green,N=yellow,E=purple", "--active", "yellow"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert json.loads(out) == {
        "legal": True,
        "errors": [],
        "placed": {"b2": "4♥", "c3": "6♥"},
        "points": 5,
        "scoring_tiles": ["4♣", "4♦", "4♥", "5♥", "6♥"],
        "sets": [["4♥", "5♥", "6♥"], ["4♣", "4♦", "4♥"]],
        "bonus": {"red": 1, "green": 1},
    }
    assert "♥" in out  # canonical Unicode, not escapes


def test_score_explain(positions: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    main(["score", *positions, "--seats", "S=red,W=green", "--active", "red", "--explain"])
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[1].startswith("4♥ 6♥ join 5♥ (run) and 4♣ 4♦ (same value): 5 points")
    assert "+1 bonus for green" in lines[1]


def test_illegal_play_exits_zero(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = write(tmp_path, "b.json", {"squares": {"b2": "5h"}})
    after = write(tmp_path, "a.json", {"squares": {"b2": "5h", "c2": "9c"}})
    assert main(["score", before, after, "--seats", "S=red,W=green", "--active", "red"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["legal"] is False
    assert result["errors"] == ["9♣ on c2 is in no set"]


@pytest.mark.parametrize(
    ("before", "after", "extra", "message"),
    [
        ("missing.json", None, [], "missing.json: no such file"),
        ('{"squares": {"b2": "5q"}}', None, [], "square b2: not a tile: '5q'"),
        ('{"squares": {"z9": "5h"}}', None, [], "unknown square 'z9'"),
        ('{"squares": {"b2": "5h", "c2": "5H"}}', None, [], "5♥ appears twice"),
        ("{nope", None, [], "not valid JSON"),
        (None, None, ["--seats", "S=red,Q=blue"], "not a board edge: 'Q'"),
        (None, None, ["--active", "blue"], "no player 'blue'"),
        (None, None, ["--layout", "nowhere.json"], "nowhere.json"),
        ("photo.png", None, [], "photo.png"),
        # The board after the turn is read as carefully as the one before it.
        (None, "missing.json", [], "missing.json: no such file"),
        (None, '{"squares": {"b2": "5q"}}', [], "square b2: not a tile: '5q'"),
        (None, '{"squares": {"b2": "5h", "c2": "5H"}}', [], "5♥ appears twice"),
        (None, "{nope", [], "not valid JSON"),
        (None, "photo.png", [], "photo.png"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    before: str | None,
    after: str | None,
    extra: list[str],
    message: str,
) -> None:
    good = write(tmp_path, "good.json", {"squares": {"b2": "5h"}})

    def board_file(text: str | None, name: str) -> str:
        if text is None:
            return good
        if text.endswith((".json", ".png")):
            if text.endswith(".png"):
                (tmp_path / text).write_bytes(b"\x89PNG")
            return str(tmp_path / text)
        (tmp_path / name).write_text(text)
        return str(tmp_path / name)

    before_path, after_path = board_file(before, "before.json"), board_file(after, "after.json")
    args = ["score", before_path, after_path, "--seats", "S=red,W=green", "--active", "red"]
    for i in range(0, len(extra), 2):
        flag = extra[i]
        if flag in args:
            args[args.index(flag) + 1] = extra[i + 1]
        else:
            args += extra[i : i + 2]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1, err
    assert message in err
    assert "Traceback" not in err


def test_missing_required_option_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["score", "a.json", "b.json"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_replay_prints_turns_then_final(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = random_game(random.Random(11), Seats.parse("S=red,W=green,N=yellow"))
    state = record.replay()
    game = write(tmp_path, "game.json", record.to_json())
    assert main(["replay", game]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    turns, final = lines[:-1], lines[-1]["final"]
    assert len(turns) == len(record.turns)
    assert [t["turn"] for t in turns] == list(range(1, len(turns) + 1))
    assert all(
        {"player", "action", "scores", "points", "legal", "bonus", "sets"} <= t.keys()
        for t in turns
    )
    assert turns[-1]["scores"] == final["scores"] == dict(state.scores)
    assert final["winner"] == state.ending.winner  # type: ignore[union-attr]
    assert final["ended_after_turn"] == len(record.turns)
    assert final["finished"] is True


def test_replay_of_a_record_stopped_early_names_the_leader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = random_game(random.Random(11), Seats.parse("S=red,W=green,N=yellow"))
    stopped = record
    while stopped.replay().finished:
        stopped = stopped.without_last_turn()
    state = stopped.replay()
    assert main(["replay", write(tmp_path, "game.json", stopped.to_json())]) == 0
    final = json.loads(capsys.readouterr().out.splitlines()[-1])["final"]
    best = max(state.scores.values())
    assert state.scores[final["winner"]] == best
    assert (final["ended_after_turn"], final["finished"]) == (len(stopped.turns), False)
    assert final["reason"].startswith("nobody reached the finish line (27)")


def test_replay_of_the_example_game(capsys: pytest.CaptureFixture[str]) -> None:
    example = Path(__file__).parents[1] / "examples" / "game-three-players.json"
    assert main(["replay", str(example), "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Turn 1 (red): ")
    assert "Game over after turn" in out


def test_replay_team_game_and_ascii_tiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = {
        "seats": {"S": "red", "W": "green", "N": "yellow", "E": "purple"},
        "teams": [["red", "yellow"], ["green", "purple"]],
        "options": {"equal_turns": True},
        "start": {"squares": {"b2": "5h", "c2": "9c", "b3": "1s", "c3": "2d"}},
        "turns": [
            {
                "player": "red",
                "action": "play",
                "position": {"squares": {"b2": "5h", "c2": "6h", "b3": "1s", "c3": "2d"}},
            },
            {"player": "green", "action": "swap"},
        ],
    }
    assert main(["replay", write(tmp_path, "g.json", game)]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["points"] == 2 and lines[0]["scores"]["red"] == 2
    assert lines[1]["action"] == "swap" and lines[1]["points"] == 0
    # Nobody reached the line: the record still names the leader by the team rules
    # (both teams have a pawn on 0; red+yellow has the pawn in first place).
    final = lines[2]["final"]
    assert final["winner"] == "team red+yellow"
    assert (final["ended_after_turn"], final["finished"]) == (2, False)
    assert final["reason"].startswith("nobody reached the finish line (23)")


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ({"seats": {"S": "red"}}, "2 to 4 players"),
        (
            {
                "seats": {"S": "red", "W": "green"},
                "start": {"squares": {}},
                "turns": [{"player": "blue", "action": "swap"}],
            },
            "no player 'blue'",
        ),
        ({"seats": {"S": "red", "W": "green"}, "turns": []}, "'start' is missing"),
        (
            {"seats": {"S": "red", "W": "green"}, "start": {"squares": {}}},
            "'turns' is missing",
        ),
        (
            {
                "seats": {"S": "red", "W": "green"},
                "start": {"squares": {}},
                "turns": [],
                "options": {"x": 1},
            },
            "unknown option 'x'",
        ),
        (
            {
                "seats": {"S": "red", "W": "green"},
                "start": {"squares": {}},
                "turns": [],
                "team": [["red", "green"]],
            },
            "unknown key 'team'",
        ),
        (
            {
                "seats": {"S": "red", "W": "green"},
                "start": {"squares": {}},
                "turns": [{"player": "red", "action": "swap", "Action": "play"}],
            },
            "turn 1: unknown key 'Action'",
        ),
        ([1, 2], "JSON object"),
    ],
)
def test_replay_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], game: object, message: str
) -> None:
    assert main(["replay", write(tmp_path, "g.json", game)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "g.json" in err


def test_replay_of_a_file_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"seats": {"S": "red"', encoding="utf-8")
    for path, message in (
        (tmp_path / "missing.json", "missing.json: no such file"),
        (broken, "broken.json: not valid JSON"),
        (tmp_path, "is a folder, not a file"),
    ):
        assert main(["replay", str(path)]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err
        assert err.startswith("setupcam replay: error: ") and message in err


def test_replay_explain_says_the_turn_warnings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = {
        "seats": {"S": "red", "W": "green"},
        "start": {"squares": {"b2": "4h"}},
        "turns": [
            {"player": "red", "action": "play", "position": {"squares": {"b2": "4h", "c2": "6h"}}},
            {
                "player": "green",
                "action": "play",
                "position": {"squares": {"b2": "4h", "c2": "6h", "c3": "5h"}},
            },
        ],
    }
    assert main(["replay", write(tmp_path, "g.json", game), "--explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "Check: 6♥ on c2 is from red's illegal turn 1, which was taken back." in lines[1]
