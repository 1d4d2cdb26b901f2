"""Art families: the ways the unknown real tiles, board and table might look.

A *family* is a recipe; a :class:`Style` is one concrete look drawn from it with an
rng (fonts, colours, borders, board and table art). Recognition is trained on
``TRAINING_FAMILIES`` and measured on ``HELDOUT_FAMILIES``, which no training run
may use, to see how well it copes with tile art it never saw::

    >>> import numpy as np
    >>> style = sample_style("classic", np.random.default_rng(0))
    >>> style.family, style.face_layout
    ('classic', 'corner_center')
    >>> set(HELDOUT_FAMILIES).isdisjoint(TRAINING_FAMILIES)
    True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.synth.fonts import font_pool

BGR = tuple[int, int, int]

FAMILIES: tuple[str, ...] = ("classic", "bold", "pips", "minimal", "neon", "split")
"""Every art family, training and held-out."""
HELDOUT_FAMILIES: tuple[str, ...] = ("split",)
"""Never used for training: kept to measure generalisation to unseen tile art."""
TRAINING_FAMILIES: tuple[str, ...] = tuple(f for f in FAMILIES if f not in HELDOUT_FAMILIES)

FACE_LAYOUTS = ("corner_center", "big_number", "pips", "corner_big", "split")
TABLE_TEXTURES = ("wood", "cloth", "plain", "marble")
BOARD_TEXTURES = ("plain", "paper", "linen", "wood")


@dataclass(frozen=True)
class Style:
    """One concrete look of tiles, board and table. All colours are BGR.

    ``suit_bgr`` follows the order of :class:`engine.Suit` (★ ♥ ♦ ♣ ♠);
    ``player_bgr`` follows :class:`engine.Edge` (S, W, N, E). Fractions are of the
    tile face (tile fields) or of the board width (board fields).
    """

    family: str
    variant: int
    # Tile faces.
    face_layout: str
    card_bgr: BGR
    edge_bgr: BGR
    border_bgr: BGR
    border_frac: float
    corner_frac: float
    suit_bgr: tuple[BGR, BGR, BGR, BGR, BGR]
    number_bgr: BGR | None  # None: numbers take their suit's colour
    number_font: str | None  # None: OpenCV Hershey font
    suit_mode: str  # "glyph" (font) or "shape" (drawn polygons)
    suit_font: str | None
    corner_indices: bool
    underline_69: bool
    tile_scale: float  # tile width / square width
    # Board.
    board_bgr: BGR
    board_texture: str
    panel_bgr: BGR
    slot_bgr: BGR
    line_bgr: BGR
    line_frac: float
    frame_frac: float
    player_bgr: tuple[BGR, BGR, BGR, BGR]
    track_bgr: BGR
    track_ink_bgr: BGR
    # Table.
    table_texture: str
    table_bgr: BGR
    table_bgr2: BGR
    # A debug look: black board, white squares, no tiles drawn with art (tests).
    marker: bool = False


def _jitter(rng: np.random.Generator, bgr: BGR, amount: int = 18) -> BGR:
    values = np.clip(np.array(bgr) + rng.integers(-amount, amount + 1, 3), 0, 255)
    return (int(values[0]), int(values[1]), int(values[2]))


def _pick(rng: np.random.Generator, options: tuple | list):
    return options[int(rng.integers(len(options)))]


def _pick_font(rng: np.random.Generator, *kinds: str) -> str | None:
    pool = font_pool()
    paths = [path for kind in kinds for path in pool[kind]]
    return _pick(rng, paths) if paths else None


# Suit colour palettes (★ ♥ ♦ ♣ ♠), BGR: printed 5-suit decks use these kinds of sets.
# Every palette gives each suit its own colour: the original rulebook says the 50
# tiles "sont de cinq couleurs différentes" and runs are of one colour
# (../shared/rules/seeds/004_*.txt). A two-colour deck (session 1-7 palette 2) was
# not a way the real tiles can look. Its replacement keeps the other palettes'
# pairings (red hearts, green clubs, black spades...): a model trained here learns
# them, and a palette that swapped them (session 8's first try: black clubs) is
# read worse (models/HISTORY.md, "Session 8").
_PALETTES: tuple[tuple[BGR, BGR, BGR, BGR, BGR], ...] = (
    (
        (20, 160, 220),
        (40, 30, 200),
        (30, 110, 235),
        (40, 120, 30),
        (40, 35, 35),
    ),  # gold red orange green black
    (
        (0, 180, 230),
        (50, 40, 210),
        (190, 110, 30),
        (50, 140, 40),
        (30, 30, 30),
    ),  # yellow red blue green black
    (
        (150, 60, 140),
        (40, 40, 200),
        (30, 120, 230),
        (60, 130, 40),
        (30, 30, 30),
    ),  # purple red orange green black
    (
        (10, 140, 200),
        (60, 50, 220),
        (200, 130, 40),
        (70, 150, 60),
        (110, 60, 40),
    ),  # amber red blue green navy
)
_NEON: tuple[BGR, BGR, BGR, BGR, BGR] = (
    (60, 230, 255),
    (110, 90, 255),
    (255, 200, 80),
    (120, 255, 120),
    (255, 140, 230),
)
_PLAYER_SETS: tuple[tuple[BGR, BGR, BGR, BGR], ...] = (
    ((40, 40, 210), (60, 160, 50), (30, 210, 240), (150, 50, 130)),  # red green yellow purple
    ((50, 50, 190), (70, 140, 40), (40, 190, 230), (130, 60, 120)),
    ((70, 60, 230), (90, 190, 80), (60, 220, 250), (180, 80, 150)),
)


def sample_style(family: str, rng: np.random.Generator) -> Style:
    """Draw one concrete :class:`Style` of ``family`` (a name in ``FAMILIES``)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown art family {family!r}; families: {', '.join(FAMILIES)}")
    variant = int(rng.integers(1 << 30))
    glyph_font = _pick_font(rng, "suit_glyphs")
    white = _jitter(rng, (238, 242, 245), 12)
    palette = _PALETTES[int(rng.integers(len(_PALETTES)))]
    suits = tuple(_jitter(rng, c, 20) for c in palette)
    number_bgr: BGR | None = None
    card = white
    border = _jitter(rng, (60, 60, 60), 30)
    border_frac = float(rng.uniform(0.0, 0.03))
    underline = bool(rng.random() < 0.6)
    corner_indices = True
    suit_mode = "glyph" if glyph_font and rng.random() < 0.5 else "shape"
    if family == "classic":
        layout, font = "corner_center", _pick_font(rng, "serif", "serif_bold")
        card = _jitter(rng, (225, 240, 248), 14)  # ivory
    elif family == "bold":
        layout, font = "big_number", _pick_font(rng, "sans_bold", "serif_bold")
        corner_indices = bool(rng.random() < 0.4)
        border_frac = float(rng.uniform(0.03, 0.07))
        border = suits[0] if rng.random() < 0.3 else _jitter(rng, (40, 40, 40), 30)
    elif family == "pips":
        layout, font = "pips", _pick_font(rng, "serif", "sans", "condensed")
        suit_mode = "shape" if rng.random() < 0.7 or not glyph_font else "glyph"
    elif family == "minimal":
        layout, font = "big_number", _pick_font(rng, "mono", "condensed", "sans")
        card = _jitter(rng, (200, 228, 240), 20)  # cream / pastel
        number_bgr = _jitter(rng, (45, 40, 40), 20) if rng.random() < 0.5 else None
        underline = True
        corner_indices = False
        border_frac = float(rng.uniform(0.01, 0.025))
    elif family == "neon":
        layout, font = "corner_big", _pick_font(rng, "sans_bold", "sans", "mono")
        card = _jitter(rng, (50, 30, 25), 15)  # navy / near-black card
        suits = tuple(_jitter(rng, c, 25) for c in _NEON)
        border = _jitter(rng, (200, 200, 200), 40)
        border_frac = float(rng.uniform(0.0, 0.02))
        corner_indices = False
    else:  # "split", held out: a suit-coloured band with a white symbol, number below
        layout, font = "split", _pick_font(rng, "serif_bold", "sans_bold", "condensed")
        underline = True
        corner_indices = False
    player = _PLAYER_SETS[int(rng.integers(len(_PLAYER_SETS)))]
    board_base = _pick(
        rng,
        [(60, 50, 40), (40, 80, 40), (120, 80, 40), (70, 40, 90), (200, 210, 215), (35, 35, 45)],
    )
    board = _jitter(rng, board_base, 20)
    panel = _jitter(rng, tuple(int(0.75 * v + 0.25 * 128) for v in board), 25)  # type: ignore[arg-type]
    table_base = _pick(
        rng,
        [
            (40, 80, 130),  # oak
            (30, 50, 80),  # walnut
            (150, 170, 180),  # light grey laminate
            (60, 110, 60),  # green cloth
            (200, 205, 210),  # white
            (90, 60, 40),  # blue cloth
        ],
    )
    table = _jitter(rng, table_base, 20)
    return Style(
        family=family,
        variant=variant,
        face_layout=layout,
        card_bgr=card,
        edge_bgr=_jitter(rng, tuple(int(v * 0.72) for v in card), 10),  # type: ignore[arg-type]
        border_bgr=border,
        border_frac=border_frac,
        corner_frac=float(rng.uniform(0.04, 0.16)),
        suit_bgr=suits,  # type: ignore[arg-type]
        number_bgr=number_bgr,
        number_font=font,
        suit_mode=suit_mode,
        suit_font=glyph_font,
        corner_indices=corner_indices,
        underline_69=underline,
        tile_scale=float(rng.uniform(0.86, 0.96)),
        board_bgr=board,
        board_texture=_pick(rng, BOARD_TEXTURES),
        panel_bgr=panel,
        slot_bgr=_jitter(rng, tuple(int(0.6 * v) for v in board), 10),  # type: ignore[arg-type]
        line_bgr=_jitter(rng, (240, 240, 240), 12),
        line_frac=float(rng.uniform(0.006, 0.012)),
        frame_frac=float(rng.uniform(0.008, 0.016)),
        player_bgr=tuple(_jitter(rng, c, 15) for c in player),  # type: ignore[arg-type]
        track_bgr=_jitter(rng, (225, 230, 235), 20),
        track_ink_bgr=_jitter(rng, (40, 40, 40), 20),
        table_texture=_pick(rng, TABLE_TEXTURES),
        table_bgr=table,
        table_bgr2=_jitter(rng, tuple(int(v * 0.8) for v in table), 10),  # type: ignore[arg-type]
    )


def marker_style() -> Style:
    """A flat debug look for geometry tests: black board and table, white squares."""
    black, white = (0, 0, 0), (255, 255, 255)
    return Style(
        family="marker",
        variant=0,
        face_layout="big_number",
        card_bgr=white,
        edge_bgr=white,
        border_bgr=white,
        border_frac=0.0,
        corner_frac=0.0,
        suit_bgr=(black,) * 5,  # type: ignore[arg-type]
        number_bgr=black,
        number_font=None,
        suit_mode="shape",
        suit_font=None,
        corner_indices=False,
        underline_69=False,
        tile_scale=1.0,
        board_bgr=black,
        board_texture="plain",
        panel_bgr=black,
        slot_bgr=white,
        line_bgr=black,
        line_frac=0.0,
        frame_frac=0.0,
        player_bgr=(black,) * 4,  # type: ignore[arg-type]
        track_bgr=black,
        track_ink_bgr=black,
        table_texture="plain",
        table_bgr=black,
        table_bgr2=black,
        marker=True,
    )
