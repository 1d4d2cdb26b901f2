"""Fonts for tile art: TrueType files found on the machine at run time, by kind.

The Debian font packages come from ``scripts/apt-packages.sh``; a machine without
them still renders tiles (numbers fall back to OpenCV's Hershey fonts and suits to
drawn shapes), so nothing here ever fails for lack of fonts::

    >>> pool = font_pool()
    >>> sorted(pool) == sorted(FONT_KINDS)
    True
    >>> all(isinstance(path, str) for paths in pool.values() for path in paths)
    True
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.fonts"))
SUIT_SYMBOLS = "★♥♦♣♠"

FONT_KINDS = ("sans", "sans_bold", "serif", "serif_bold", "mono", "condensed", "suit_glyphs")

# Families whose names say they are Latin text faces we want for numbers; anything
# else (Arabic, Thai, music, script faces) would only give tofu or odd digits.
_LATIN_PREFIXES = (
    "DejaVu",
    "Liberation",
    "Free",
    "Nimbus",
    "URWBookman",
    "URWGothic",
    "C059",
    "P052",
    "NotoSans-",
    "NotoSerif-",
    "NotoSansMono-",
    "NotoSansDisplay-",
    "NotoSerifDisplay-",
    "Carlito",
)


_SLANTED_OR_ODD = ("Italic", "Oblique", "Ita.", "Math", "ExtraLight")


def _kind_of(name: str) -> str | None:
    if not name.startswith(_LATIN_PREFIXES) or any(w in name for w in _SLANTED_OR_ODD):
        return None
    low = name.lower()
    bold = "bold" in low or "black" in low or "demi" in low
    if "mono" in low:
        return "mono"
    if "condensed" in low or "narrow" in low:
        return "condensed"
    serif = any(word in low for word in ("serif", "roman", "bookman", "c059", "p052"))
    if "sansserif" in low.replace(" ", "") or "sans" in low:
        serif = False
    if serif:
        return "serif_bold" if bold else "serif"
    return "sans_bold" if bold else "sans"


def _render_glyph(font: ImageFont.FreeTypeFont, text: str) -> np.ndarray:
    canvas = Image.new("L", (64, 64))
    ImageDraw.Draw(canvas).text((8, 8), text, font=font, fill=255)
    return np.asarray(canvas)


def has_glyphs(path: str, text: str) -> bool:
    """Whether the font draws every character of ``text`` (not the missing-glyph box)."""
    try:
        font = ImageFont.truetype(path, 32)
    except OSError:
        return False
    missing = _render_glyph(font, "\uffff")
    for char in text:
        drawn = _render_glyph(font, char)
        if not drawn.any() or np.array_equal(drawn, missing):
            return False
    return True


@functools.cache
def font_pool() -> dict[str, tuple[str, ...]]:
    """Font file paths by kind (``FONT_KINDS``); kinds with no font map to ``()``."""
    pool: dict[str, list[str]] = {kind: [] for kind in FONT_KINDS}
    files: list[Path] = []
    for folder in FONT_DIRS:
        if os.path.isdir(folder):
            files.extend(Path(folder).rglob("*.[ot]tf"))
    for path in sorted(set(files)):
        kind = _kind_of(path.name)
        if kind is not None and has_glyphs(str(path), "0123456789"):
            pool[kind].append(str(path))
        # Suit glyphs come from any face that has all five (DejaVu, FreeSerif, Noto Symbols2).
        if (kind is not None or "Symbols" in path.name) and has_glyphs(str(path), SUIT_SYMBOLS):
            pool["suit_glyphs"].append(str(path))
    return {kind: tuple(paths) for kind, paths in pool.items()}


@functools.lru_cache(maxsize=256)
def load_font(path: str, size: int) -> ImageFont.FreeTypeFont:
    """A cached Pillow font object."""
    return ImageFont.truetype(path, size)
