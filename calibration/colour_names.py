"""What the players' colour names look like, to tell the board's edges apart.

Players are named by their colour (``S=red,W=green,...``), and each edge's bonus
squares are framed in the colour of the player sitting there. So the seats alone
say which way round the board lies: the edge whose frames look red is the red
player's. Only the hue matters here (a lamp changes lightness, not hue), so a
typical shade per name will do::

    >>> named_bgr("Red"), named_bgr("#00ff00"), named_bgr("tartan")
    ((40, 40, 210), (0, 255, 0), None)
"""

from __future__ import annotations

NAMED_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 210),
    "green": (60, 160, 50),
    "yellow": (30, 210, 240),
    "purple": (150, 50, 130),
    "blue": (200, 90, 30),
    "orange": (30, 130, 240),
    "pink": (180, 120, 240),
    "brown": (40, 80, 130),
    "cyan": (210, 200, 40),
    "teal": (140, 140, 20),
    "violet": (200, 80, 150),
    "magenta": (200, 40, 200),
    "white": (235, 235, 235),
    "black": (30, 30, 30),
    "grey": (128, 128, 128),
    "gray": (128, 128, 128),
}
"""BGR of the colour names players use, as printed colours look to a webcam."""


def named_bgr(name: str) -> tuple[int, int, int] | None:
    """The BGR of a colour name or ``#rrggbb``; ``None`` for a name we do not know."""
    text = name.strip().lower()
    if text.startswith("#") and len(text) == 7:
        try:
            r, g, b = (int(text[i : i + 2], 16) for i in (1, 3, 5))
        except ValueError:
            return None
        return (b, g, r)
    return NAMED_BGR.get(text)
