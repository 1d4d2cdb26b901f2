"""`setupcam coloretto score`: the contract's JSON, --explain, and bad input (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from setupcam.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "coloretto"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, data: Any) -> str:
    path = tmp_path / "tableaus.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_contract_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(
        tmp_path,
        {
            "table": "brown",
            "players": {
                "anna": {
                    "green": 6,
                    "yellow": 4,
                    "red": 3,
                    "blue": 2,
                    "joker": 1,
                    "golden_joker": 0,
                    "+2": 1,
                }
            },
        },
    )
    code, out, err = run(["coloretto", "score", path], capsys)
    assert (code, err) == (0, "")
    assert json.loads(out) == {
        "players": {
            "anna": {
                "total": 41,
                "positive": ["green", "red", "yellow"],
                "jokers": {"yellow": 1},
                "by_colour": {"blue": -3, "green": 21, "red": 6, "yellow": 15},
            }
        }
    }


def test_rulebook_example_file(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["coloretto", "score", str(EXAMPLES / "rulebook.json")], capsys)
    assert code == 0
    result = json.loads(out)["players"]["andrzej"]
    assert result["total"] == 41
    assert result["jokers"] == {"yellow": 1}


def test_rulebook_example_explained(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "rulebook.json")
    code, out, err = run(["coloretto", "score", path, "--explain"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "andrzej: 41 points (brown table)",
        "  green    6 cards             +21  positive",
        "  red      3 cards              +6  positive",
        "  yellow   5 cards (1 joker)   +15  positive",
        "  blue     2 cards              -3  negative",
        '  "+2"     1 card               +2',
        "  the joker becomes yellow",
    ]


def test_colour_names_that_look_like_typos_are_scored_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Colour names are free (the contract): scored as written, the doubt on stderr."""
    path = write(
        tmp_path, {"table": "brown", "players": {"anna": {"golden": 2, "Red": 1, "red": 1}}}
    )
    code, out, err = run(["coloretto", "score", path], capsys)
    assert code == 0
    assert json.loads(out)["players"]["anna"]["by_colour"] == {"Red": 1, "golden": 3, "red": 1}
    assert err.splitlines() == [
        "note: 'Red' and 'red' are scored as two colours: "
        "if they are one, write it the same way everywhere",
        "note: 'golden' is scored as a colour: did you mean the special card 'golden_joker'?",
    ]


@pytest.mark.parametrize("example", sorted(EXAMPLES.glob("*.json")), ids=lambda p: p.name)
def test_every_example_scores(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["coloretto", "score", str(example)], capsys)
    assert (code, err) == (0, "")
    players = json.loads(out)["players"]
    assert list(players) == list(json.loads(example.read_text(encoding="utf-8"))["players"])
    for result in players.values():
        assert set(result) == {"total", "positive", "jokers", "by_colour"}
        assert result["positive"] == sorted(result["positive"])
    code, out, _ = run(["coloretto", "score", str(example), "--explain"], capsys)
    assert code == 0
    if len(players) > 1:
        assert out.splitlines()[-1].startswith(("winner: ", "tie between: "))


def test_explain_names_the_winner_and_ties(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = {"table": "brown", "players": {"a": {"red": 2}, "b": {"blue": 2}, "c": {"green": 1}}}
    code, out, _ = run(["coloretto", "score", write(tmp_path, data), "--explain"], capsys)
    assert code == 0
    assert out.splitlines()[-1] == "tie between: a, b with 3 points"


def test_non_ascii_names_are_printed_as_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = {"table": "purple", "players": {"Łucja": {"żółty": 3, "zielony": 1}}}
    code, out, _ = run(["coloretto", "score", write(tmp_path, data)], capsys)
    assert code == 0
    assert '"Łucja"' in out and '"żółty": 8' in out


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"table": "brown", "players": {"a": {"red": 1, "red": 2}}}', "'red' is given twice"),
        ({"table": "pink", "players": {"a": {"red": 1}}}, "unknown table 'pink'"),
        ({"table": "brown", "players": {"anna": {"red": -2}}}, "player 'anna': 'red' cannot be"),
        ({"table": "brown", "players": {"anna": {"red": 10}}}, "player 'anna': 'red': 10"),
        ({"table": "brown", "players": {"anna": {"joker": 3}}}, "player 'anna': 'joker': 3"),
        (
            {"table": "brown", "players": {"anna": {"red": 1, "golden_joker": 2}}},
            "player 'anna': 'golden_joker': 2",
        ),
        ({"table": "brown", "players": {"anna": {"+2": 11}}}, "player 'anna': '+2': 11"),
        (
            {"table": "brown", "players": {"anna": {c: 1 for c in "abcdefgh"}}},
            "player 'anna': 8 colours",
        ),
        (
            {"table": "brown", "players": {"a": {"red": 5}, "b": {"red": 5}}},
            "'red': 10 across all players",
        ),
        (
            {"table": "brown", "removed": ["red"], "players": {"anna": {"red": 1}}},
            "player 'anna': 'red' was removed",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], data: Any, message: str
) -> None:
    code, out, err = run(["coloretto", "score", write(tmp_path, data)], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("setupcam coloretto: error: ")
    assert "tableaus.json" in err
    assert message in err


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["coloretto", "score", str(tmp_path / "nope.json")], capsys)
    assert (code, out) == (2, "")
    assert "nope.json: no such file" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["coloretto"])
    assert exited.value.code == 2
    with pytest.raises(SystemExit) as exited:
        main(["coloretto", "score"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.count("\n") == 2
