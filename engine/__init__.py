"""The rules of the games setupcam scores: pure Python, no camera, disk or network.

The SETUP vocabulary: :class:`Tile`, :class:`Layout`, :class:`Position`, seats and
teams, turn analysis and the game record. Coloretto scoring lives in
:mod:`engine.coloretto`.
"""

from engine.layout import CLOCKWISE, DEFAULT_LAYOUT, Edge, Layout, LayoutError, Rect
from engine.position import Position, PositionError
from engine.tiles import ALL_TILES, Suit, Tile, TileError

__all__ = [
    "ALL_TILES",
    "CLOCKWISE",
    "DEFAULT_LAYOUT",
    "Edge",
    "Layout",
    "LayoutError",
    "Position",
    "PositionError",
    "Rect",
    "Suit",
    "Tile",
    "TileError",
]
