import pytest

from engine import ALL_TILES, Position, PositionError, Suit, Tile, TileError


@pytest.mark.parametrize(
    ("text", "value", "suit"),
    [
        ("7♥", 7, Suit.HEART),
        ("10★", 10, Suit.STAR),
        ("7h", 7, Suit.HEART),
        ("7H", 7, Suit.HEART),
        ("10x", 10, Suit.STAR),
        ("1d", 1, Suit.DIAMOND),
        ("3C", 3, Suit.CLUB),
        ("9s", 9, Suit.SPADE),
        (" 4♠ ", 4, Suit.SPADE),
        ("5♥\ufe0f", 5, Suit.HEART),
    ],
)
def test_parse_both_notations(text: str, value: int, suit: Suit) -> None:
    assert Tile.parse(text) == Tile(value, suit)


BAD_TOKENS = ["", "7", "h7", "11h", "0h", "7q", "7 h", "seven♥", "-1h", "7♥♥", "05h", "010x"]
OTHER_GLYPHS = ["5♡", "5☆", "5*", "²h", "５h"]  # only the contract's symbols and letters


@pytest.mark.parametrize("text", BAD_TOKENS + OTHER_GLYPHS)
def test_bad_tokens_are_named(text: str) -> None:
    with pytest.raises(TileError) as err:
        Tile.parse(text)
    assert repr(text) in str(err.value)


def test_canonical_and_ascii_text() -> None:
    tile = Tile.parse("10x")
    assert str(tile) == "10★"
    assert tile.ascii == "10X"
    assert all(Tile.parse(str(t)) == t and Tile.parse(t.ascii) == t for t in ALL_TILES)


def test_fifty_unique_tiles() -> None:
    assert len(ALL_TILES) == 50
    assert len(set(ALL_TILES)) == 50


def test_tiles_sort_by_value_then_suit_name() -> None:
    tiles = [Tile.parse(t) for t in ["4♥", "4♣", "4♦", "3★", "5♠"]]
    assert [str(t) for t in sorted(tiles)] == ["3★", "4♣", "4♦", "4♥", "5♠"]


def test_value_out_of_range_rejected() -> None:
    with pytest.raises(TileError):
        Tile(11, Suit.HEART)


@pytest.mark.parametrize(
    ("squares", "message"),
    [
        ({"b2": ""}, "square b2: not a tile: '' (an empty square is null)"),
        ({"b2": "05h"}, "square b2: not a tile: '05h'"),
        ({"zz": "5h"}, "unknown square 'zz'"),
        ({"b2": 5}, "square b2: not a tile: 5"),
    ],
)
def test_positions_name_the_bad_square(squares: dict[str, object], message: str) -> None:
    with pytest.raises(PositionError) as err:
        Position.from_json({"squares": squares})
    assert message in str(err.value)


def test_positions_read_null_and_omitted_squares_as_empty() -> None:
    position = Position.from_json({"squares": {"b2": None, "c3": "7h"}})
    assert position["b2"] is None and position["a2"] is None
    assert str(position["c3"]) == "7♥"
