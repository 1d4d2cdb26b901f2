"""The rules of the games setupcam scores: pure Python, no camera, disk or network.

The SETUP vocabulary: :class:`Tile`, :class:`Layout`, :class:`Position`, seats and
teams, turn analysis and the game record. Coloretto scoring lives in
:mod:`engine.coloretto`.
"""

from engine.game import Action, GameError, GameOptions, GameRecord, GameSetup, GameState, Turn
from engine.layout import CLOCKWISE, DEFAULT_LAYOUT, Edge, Layout, LayoutError, Rect
from engine.position import Position, PositionError
from engine.seats import Seats, SeatsError, Teams
from engine.sets import SetKind, TileSet, find_sets
from engine.tiles import ALL_TILES, Suit, Tile, TileError
from engine.turn import TurnResult, analyse_turn

__all__ = [
    "ALL_TILES",
    "CLOCKWISE",
    "DEFAULT_LAYOUT",
    "Action",
    "Edge",
    "GameError",
    "GameOptions",
    "GameRecord",
    "GameSetup",
    "GameState",
    "Layout",
    "LayoutError",
    "Position",
    "PositionError",
    "Rect",
    "Seats",
    "SeatsError",
    "SetKind",
    "Suit",
    "Teams",
    "Tile",
    "TileError",
    "TileSet",
    "Turn",
    "TurnResult",
    "analyse_turn",
    "find_sets",
]
