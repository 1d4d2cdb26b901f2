import itertools
import json
from pathlib import Path

import pytest

from engine import Edge, Layout, LayoutError
from setupcam.cli import UsageError
from setupcam.inputs import read_layout

GRID = {
    f"{col}{row}": (ci, row)
    for ci, col in enumerate("abcd")
    for row in range(1, 5)
    if not (ci in (0, 3) and row in (1, 4))
}


def test_standard_layout_squares_and_owners(layout: Layout) -> None:
    assert layout.name == "setup-standard"
    assert set(layout.squares) == set(GRID)
    assert {s for s in layout.squares if layout.is_common(s)} == {"b2", "b3", "c2", "c3"}
    assert layout.bonus_squares(Edge.SOUTH) == ("b1", "c1")
    assert layout.bonus_squares(Edge.NORTH) == ("b4", "c4")
    assert set(layout.bonus_squares(Edge.WEST)) == {"a2", "a3"}
    assert set(layout.bonus_squares(Edge.EAST)) == {"d2", "d3"}


def test_lines_join_every_grid_neighbour(layout: Layout) -> None:
    expected = {
        frozenset((a, b))
        for a, b in itertools.combinations(GRID, 2)
        if max(abs(GRID[a][0] - GRID[b][0]), abs(GRID[a][1] - GRID[b][1])) == 1
    }
    assert layout.lines == expected


def test_geometry_follows_the_contract(layout: Layout) -> None:
    for square, (col, row) in GRID.items():
        rect = layout.rects[square]
        assert rect.x0 == pytest.approx(0.18 + 0.16 * col + 0.01)
        assert rect.y0 == pytest.approx(0.82 - 0.16 * row + 0.01)
        assert rect.x1 - rect.x0 == pytest.approx(0.14)
        assert rect.y1 - rect.y0 == pytest.approx(0.14)


def test_shipped_layout_is_loaded_once() -> None:
    assert Layout.load() is Layout.load("setup-standard")


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "board.json"
    path.write_text(json.dumps(data))
    return path


def test_user_layout_file(tmp_path: Path) -> None:
    data = json.loads(
        (Path(__file__).parents[1] / "engine/layouts/setup-standard.json").read_text()
    )
    data["name"] = "no-diagonals"
    data["lines"] = [p for p in data["lines"] if p[0][0] == p[1][0] or p[0][1] == p[1][1]]
    layout = read_layout(_write(tmp_path, data))
    assert layout.name == "no-diagonals" and not layout.is_shipped
    assert not layout.is_joined("b2", "c3")
    assert layout.is_joined("b2", "c2")


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "must be a JSON object"),
        ({"squares": {}}, "'name'"),
        ({"name": "x", "squares": {"a1": {"rect": [0, 0, 1], "owner": None}}, "lines": []}, "rect"),
        ({"name": "x", "squares": {"a1": {"rect": [0.5, 0, 0.2, 1]}}, "lines": []}, "x0<x1"),
        (
            {"name": "x", "squares": {"a1": {"rect": [0, 0, 1, 1], "owner": "Q"}}, "lines": []},
            "owner",
        ),
        ({"name": "x", "squares": {"a1": {"rect": [0, 0, 1, 1]}}, "lines": [["a1", "z9"]]}, "'z9'"),
        (
            {"name": "x", "squares": {"a1": {"rect": [0, 0, 1, 1]}}, "lines": [["a1", "a1"]]},
            "itself",
        ),
        ({"name": "x", "squares": {"a1": {"rect": [0, 0, 1, 1]}}}, "'lines'"),
    ],
)
def test_bad_layouts_name_the_problem(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(LayoutError, match=message.replace("[", r"\[")):
        Layout.from_dict(data, origin="board.json")
    # Read from a file, the same problem is one line naming the file.
    with pytest.raises(UsageError, match=message.replace("[", r"\[")) as err:
        read_layout(_write(tmp_path, data))
    assert "board.json" in str(err.value)


def test_missing_and_invalid_files(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="unknown layout"):
        Layout.load("no-such-board")
    with pytest.raises(UsageError, match="unknown layout"):
        read_layout("no-such-board")
    with pytest.raises(UsageError, match="no such file"):
        read_layout(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(UsageError, match="not valid JSON"):
        read_layout(bad)


def test_a_layout_round_trips_through_its_json_form() -> None:
    shipped = Layout.load()
    again = Layout.from_dict(json.loads(json.dumps(shipped.to_dict())))
    assert again == shipped and again.is_shipped
    # A board that only shares the shipped one's name is not the shipped one.
    data = shipped.to_dict()
    data["lines"] = data["lines"][1:]
    assert not Layout.from_dict(data).is_shipped


def test_edge_parse_and_order() -> None:
    assert Edge.parse("s") is Edge.SOUTH
    assert Edge.parse("north") is Edge.NORTH
    assert [e.value for e in Edge] == ["S", "W", "N", "E"]
    assert Edge.EAST.clockwise_next() is Edge.SOUTH
    with pytest.raises(LayoutError):
        Edge.parse("up")
