"""Coloretto end-of-game scoring: tableaus, the two tables, the best legal total.

A :class:`Tableau` is the cards in front of one player: so many cards of each
colour, jokers, the golden joker and "+2" cards. It does not care where the counts
came from (typed in, a JSON file, a photo). :func:`best_score` finds the highest
total a player can legally reach and the choice that reaches it: which 3 colours
score positive and which colour each joker becomes. The rulebook's example::

    >>> andrzej = Tableau.of({"green": 6, "yellow": 4, "red": 3, "blue": 2}, jokers=1, plus_two=1)
    >>> best = best_score(andrzej, Table.BROWN)
    >>> best.total, best.choice.positive, best.joker_counts
    (41, ('green', 'red', 'yellow'), {'yellow': 1})

Decisions the rulebook leaves open, made here once:

- **Jokers.** The golden joker is a joker too. Each joker becomes one colour, and
  may become a colour the player holds none of (it then makes a 1-card colour).
  Colours are free names, so a joker becomes a colour the scorer knows: the
  player's own colours plus a *palette*. For a :class:`Scoresheet` the palette is
  its ``colours`` list when it gives one; else every colour any player holds, plus
  colours nobody named (:data:`UNNAMED_COLOURS`) up to the number the game surely
  has, since a colour nobody holds is still in the game. A colour removed from the
  game is never in the palette.
- **Fewer than 3 colours.** All of them score positive: nobody is forced to score
  a colour negative. A choice may name fewer than 3 positive colours; every colour
  not named scores negative.
- **More than 6 cards** of a colour, jokers included, score as 6.
- **Ties.** Of the choices reaching the best total, the one whose sorted positive
  colours come first alphabetically wins; if those are equal too, the one whose
  sorted joker colours come first. Colours nobody named come after all named ones.
  :attr:`Score.ties` says how many others tie.
- **Brute force.** At most 3 jokers over at most 7 colours (84 ways) times at most
  35 choices of positive colours: every choice is tried, which is clearly right
  and fast (about 4 ms in that worst case, 0.1 ms for the rulebook's example).
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations, combinations_with_replacement
from typing import Any

CARDS_PER_COLOUR = 9
COLOURS_IN_GAME = 7
JOKERS_IN_GAME = 2
GOLDEN_JOKERS_IN_GAME = 1
PLUS_TWO_IN_GAME = 10
POSITIVE_COLOURS = 3
PLUS_TWO_POINTS = 2
MIN_PLAYERS, MAX_PLAYERS = 2, 5

JOKER = "joker"
GOLDEN_JOKER = "golden_joker"
PLUS_TWO = "+2"
SPECIAL_CARDS = (JOKER, GOLDEN_JOKER, PLUS_TWO)
SPECIAL_COPIES = {
    JOKER: JOKERS_IN_GAME,
    GOLDEN_JOKER: GOLDEN_JOKERS_IN_GAME,
    PLUS_TWO: PLUS_TWO_IN_GAME,
}
"""How many of each special card the game has (a colour has :data:`CARDS_PER_COLOUR`)."""

# Spellings that look like a special card. The contract lets a colour have any name,
# so these are scored as colours, with a note that asks whether a special was meant.
_SPECIAL_LOOKALIKES = {
    "joker": JOKER,
    "jokers": JOKER,
    "goldenjoker": GOLDEN_JOKER,
    "goldenjokers": GOLDEN_JOKER,
    "golden": GOLDEN_JOKER,
    "+2": PLUS_TWO,
    "+2s": PLUS_TWO,
    "plus2": PLUS_TWO,
    "plustwo": PLUS_TWO,
    "2": PLUS_TWO,
}


UNNAMED_COLOURS = ("another colour", "a second other colour", "a third other colour")
"""What a joker may become besides the colours a scoresheet names (one per joker)."""


class ColorettoError(ValueError):
    """Coloretto input or an action that breaks the rules, with the reason."""


class Table(enum.Enum):
    """The two scoring tables: points for 1, 2, ..., 6 or more cards of a colour.

    >>> Table.parse("Purple").points(3), Table.BROWN.points(9)
    (8, 21)
    """

    BROWN = "brown"
    PURPLE = "purple"

    @classmethod
    def parse(cls, text: object) -> Table:
        """Read ``brown`` or ``purple`` (any case); :class:`ColorettoError` otherwise.

        >>> Table.parse(" Brown ")
        <Table.BROWN: 'brown'>
        >>> try:
        ...     Table.parse("green")
        ... except ColorettoError as err:
        ...     print(err)
        unknown table 'green' (use brown or purple)
        """
        if isinstance(text, str):
            for table in cls:
                if text.strip().lower() == table.value:
                    return table
        raise ColorettoError(f"unknown table {text!r} (use brown or purple)")

    @property
    def values(self) -> tuple[int, ...]:
        """Points for 1..6 cards; more than 6 score as 6."""
        return _TABLE_VALUES[self]

    def points(self, cards: int) -> int:
        """The (unsigned) value of ``cards`` cards of one colour; 0 for none."""
        if cards <= 0:
            return 0
        return self.values[min(cards, len(self.values)) - 1]


_TABLE_VALUES = {
    Table.BROWN: (1, 3, 6, 10, 15, 21),
    Table.PURPLE: (1, 4, 8, 7, 6, 5),
}


def colours_in_play(players: int) -> int:
    """How many colours the deck holds: 2 players remove 2 colours, 3 players remove 1.

    >>> [colours_in_play(n) for n in range(2, 6)]
    [5, 6, 7, 7]
    """
    _check_players_count(players)
    return {2: 5, 3: 6}.get(players, COLOURS_IN_GAME)


def row_capacities(players: int) -> tuple[int, ...]:
    """The rows in play: the green rows (1, 2, 3) for 2 players, else one brown row of 3 each.

    >>> row_capacities(2), row_capacities(4)
    ((1, 2, 3), (3, 3, 3, 3))
    """
    _check_players_count(players)
    return (1, 2, 3) if players == 2 else (3,) * players


def _check_players_count(players: object) -> None:
    if (
        not isinstance(players, int)
        or isinstance(players, bool)
        or not MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise ColorettoError(f"Coloretto is for 2 to 5 players, not {players!r}")


def check_colour_name(colour: object) -> str:
    """A colour name as given, or :class:`ColorettoError` if it is empty or is the
    name of a special card (``joker``, ``golden_joker``, ``+2``).

    Any other name is a colour, however odd: :func:`spelling_notes` says which look
    like a mistake.
    """
    if not isinstance(colour, str) or not colour.strip():
        raise ColorettoError(f"a colour must be a non-empty name, not {colour!r}")
    if colour in SPECIAL_CARDS:
        raise ColorettoError(f"{colour!r} is a special card, not a colour")
    return colour


def same_colour_key(colour: str) -> str:
    """What two spellings of one colour share: "Red", "red" and " red " are one colour.

    >>> same_colour_key(" Red ") == same_colour_key("red")
    True
    """
    return colour.strip().casefold()


def spelling_notes(colours: Iterable[str]) -> tuple[str, ...]:
    """What looks like a typo among colour names, in words, one note per doubt.

    The names are still scored as written (colour names are free), but a colour
    spelt two ways is scored as two colours, and ``golden`` is not the golden
    joker, so a player who meant otherwise should know.

    >>> for note in spelling_notes(["red", "Red", "golden", "red"]):
    ...     print(note)
    'red' and 'Red' are scored as two colours: if they are one, write it the same way everywhere
    'golden' is scored as a colour: did you mean the special card 'golden_joker'?
    """
    notes: list[str] = []
    first_spelling: dict[str, str] = {}
    for colour in dict.fromkeys(colours):
        other = first_spelling.setdefault(same_colour_key(colour), colour)
        if other != colour:
            notes.append(
                f"{other!r} and {colour!r} are scored as two colours: "
                "if they are one, write it the same way everywhere"
            )
    for colour in dict.fromkeys(colours):
        special = _SPECIAL_LOOKALIKES.get(colour.lower().replace(" ", "").replace("_", ""))
        if special is not None:
            notes.append(
                f"{colour!r} is scored as a colour: did you mean the special card {special!r}?"
            )
    return tuple(notes)


def _check_count(name: str, value: object, most: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ColorettoError(f"{name!r} must be a whole number of cards, not {value!r}")
    if value < 0:
        raise ColorettoError(f"{name!r} cannot be negative ({value})")
    if value > most:
        raise ColorettoError(f"{name!r}: {value}, but the game has only {most} {what}")
    return value


@dataclass(frozen=True, slots=True)
class Tableau:
    """The cards in front of one player; colours with 0 cards are dropped, the rest sorted."""

    counts: tuple[tuple[str, int], ...] = ()
    jokers: int = 0
    golden_joker: int = 0
    plus_two: int = 0

    def __post_init__(self) -> None:
        seen: dict[str, int] = {}
        for colour, cards in self.counts:
            check_colour_name(colour)
            if colour in seen:
                raise ColorettoError(f"colour {colour!r} is listed twice")
            seen[colour] = _check_count(colour, cards, CARDS_PER_COLOUR, f"{colour} cards")
        held = {c: n for c, n in sorted(seen.items()) if n > 0}
        if len(held) > COLOURS_IN_GAME:
            raise ColorettoError(
                f"{len(held)} colours ({', '.join(held)}), but the game has only {COLOURS_IN_GAME}"
            )
        object.__setattr__(self, "counts", tuple(held.items()))
        _check_count(JOKER, self.jokers, JOKERS_IN_GAME, "jokers (plus the golden joker)")
        _check_count(GOLDEN_JOKER, self.golden_joker, GOLDEN_JOKERS_IN_GAME, "golden joker")
        _check_count(PLUS_TWO, self.plus_two, PLUS_TWO_IN_GAME, '"+2" cards')

    @classmethod
    def of(
        cls,
        colours: Mapping[str, int] | None = None,
        *,
        jokers: int = 0,
        golden_joker: int = 0,
        plus_two: int = 0,
    ) -> Tableau:
        """A tableau from colour -> cards.

        >>> Tableau.of({"red": 2, "blue": 0}, golden_joker=1).counts
        (('red', 2),)
        """
        return cls(tuple((colours or {}).items()), jokers, golden_joker, plus_two)

    @property
    def colours(self) -> tuple[str, ...]:
        """The colours the player holds at least one card of, sorted."""
        return tuple(colour for colour, _ in self.counts)

    @property
    def all_jokers(self) -> int:
        """Jokers to place, the golden joker included."""
        return self.jokers + self.golden_joker

    def count(self, colour: str) -> int:
        """The player's cards of ``colour``, jokers not included; 0 for a colour not held.

        >>> t = Tableau.of({"red": 2}, jokers=1)
        >>> t.count("red"), t.count("blue")
        (2, 0)
        """
        return dict(self.counts).get(colour, 0)


@dataclass(frozen=True, slots=True)
class Choice:
    """What a player decides at the end: the positive colours and one colour per joker.

    Both are kept sorted, so equal decisions compare equal.

    >>> Choice(("red", "green"), ("red",))
    Choice(positive=('green', 'red'), jokers=('red',))
    """

    positive: tuple[str, ...]
    jokers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for colour in (*self.positive, *self.jokers):
            check_colour_name(colour)
        if len(set(self.positive)) != len(self.positive):
            raise ColorettoError(f"a positive colour is named twice: {self.positive}")
        if len(self.positive) > POSITIVE_COLOURS:
            raise ColorettoError(
                f"at most {POSITIVE_COLOURS} colours score positive, not {len(self.positive)}"
            )
        object.__setattr__(self, "positive", tuple(sorted(self.positive)))
        object.__setattr__(self, "jokers", tuple(sorted(self.jokers)))


@dataclass(frozen=True, slots=True)
class Score:
    """A player's total for one choice, colour by colour."""

    total: int
    choice: Choice
    counts: tuple[tuple[str, int], ...]
    """Cards of each colour after the jokers joined, sorted by colour."""
    by_colour: tuple[tuple[str, int], ...]
    """The signed points of each colour held, sorted by colour."""
    plus_two_points: int
    ties: int = field(default=0, compare=False)
    """How many other choices reach the same total (set by :func:`best_score`)."""

    @property
    def joker_counts(self) -> dict[str, int]:
        """Colour -> jokers it receives (golden included), colours receiving none left out."""
        return dict(sorted(Counter(self.choice.jokers).items()))

    def as_dict(self) -> dict[str, Any]:
        """The contract's JSON object for one player (``setupcam coloretto score``)."""
        return {
            "total": self.total,
            "positive": list(self.choice.positive),
            "jokers": self.joker_counts,
            "by_colour": dict(self.by_colour),
        }


def score_choice(tableau: Tableau, table: Table, choice: Choice) -> Score:
    """The total ``tableau`` makes with ``choice``; the choice must place every joker.

    >>> t = Tableau.of({"green": 3, "red": 1}, jokers=1)
    >>> score_choice(t, Table.PURPLE, Choice(("green",), ("red",))).total
    4
    """
    if len(choice.jokers) != tableau.all_jokers:
        raise ColorettoError(
            f"the tableau has {tableau.all_jokers} joker(s) to place, "
            f"but the choice places {len(choice.jokers)}"
        )
    counts = Counter(dict(tableau.counts))
    counts.update(choice.jokers)
    if len(counts) > COLOURS_IN_GAME:
        raise ColorettoError(
            f"the jokers make {len(counts)} colours; the game has only {COLOURS_IN_GAME}"
        )
    by_colour = tuple(
        (colour, table.points(cards) * (1 if colour in choice.positive else -1))
        for colour, cards in sorted(counts.items())
    )
    plus_two_points = PLUS_TWO_POINTS * tableau.plus_two
    total = sum(points for _, points in by_colour) + plus_two_points
    return Score(total, choice, tuple(sorted(counts.items())), by_colour, plus_two_points)


def best_score(tableau: Tableau, table: Table, palette: Iterable[str] = ()) -> Score:
    """The highest total ``tableau`` can reach, with the choice that reaches it.

    Jokers may become the player's own colours or any colour of ``palette``. Ties
    go to the alphabetically first positive colours, then joker colours.

    >>> t = Tableau.of({"green": 6, "red": 6}, jokers=1)
    >>> best = best_score(t, Table.BROWN, palette=["blue"])
    >>> best.total, best.joker_counts, best.ties
    (43, {'blue': 1}, 0)
    """
    named = {*tableau.colours, *(check_colour_name(c) for c in palette)}
    unnamed = [c for c in UNNAMED_COLOURS if c in named]
    # Ties go to the colours named first: a joker becomes "another colour" only for more.
    candidates = [*sorted(named - set(unnamed)), *unnamed]
    rank = {colour: i for i, colour in enumerate(candidates)}
    if len(candidates) > COLOURS_IN_GAME:
        raise ColorettoError(
            f"{len(candidates)} colours in play ({', '.join(candidates)}), "
            f"but the game has only {COLOURS_IN_GAME}"
        )
    if tableau.all_jokers and not candidates:
        raise ColorettoError("there are jokers but no colour they could become; name the colours")
    held = dict(tableau.counts)
    best_key: tuple[int, tuple[int, ...], tuple[int, ...]] | None = None
    best: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())
    ties = 0
    for jokers in combinations_with_replacement(candidates, tableau.all_jokers):
        counts = Counter(held)
        counts.update(jokers)
        points = {colour: table.points(cards) for colour, cards in counts.items()}
        negative_all = -sum(points.values())
        colours = sorted(counts, key=rank.__getitem__)
        for positive in combinations(colours, min(POSITIVE_COLOURS, len(colours))):
            total = negative_all + 2 * sum(points[c] for c in positive)
            key = (
                -total,
                tuple(map(rank.__getitem__, positive)),
                tuple(map(rank.__getitem__, jokers)),
            )
            if best_key is None or key < best_key:
                ties = 0 if best_key is None or key[0] < best_key[0] else ties + 1
                best_key, best = key, (positive, jokers)
            elif key[0] == best_key[0]:
                ties += 1
    assert best_key is not None  # there is always at least one choice
    positive, jokers = best
    return replace(score_choice(tableau, table, Choice(positive, jokers)), ties=ties)


@dataclass(frozen=True)
class Scoresheet:
    """The end of a game: the table in use and every player's tableau, checked together.

    ``colours`` optionally names the colours in play (jokers may become any of them);
    ``removed`` names colours taken out of the game, which then cannot appear;
    ``players_count`` optionally gives the number of players at the table (the file
    may score only some of them), which fixes how many colours are in play.

    >>> sheet = Scoresheet.from_dict(
    ...     {"table": "brown", "players": {"anna": {"green": 6, "joker": 1, "+2": 1}}})
    >>> best = sheet.best_scores()["anna"]  # green 21, a 1-card colour 1, "+2" 2
    >>> best.total, best.joker_counts
    (24, {'another colour': 1})
    """

    table: Table
    players: Mapping[str, Tableau]
    colours: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    players_count: int | None = None

    def __post_init__(self) -> None:
        if not self.players:
            raise ColorettoError("there are no players to score")
        most_players = MAX_PLAYERS if self.players_count is None else self.players_count
        if self.players_count is not None:
            try:
                _check_players_count(self.players_count)
            except ColorettoError as err:
                raise ColorettoError(f"'players_count': {err}") from None
        if len(self.players) > most_players:
            raise ColorettoError(f"{len(self.players)} players, but at most {most_players} play")
        for name in self.players:
            if not isinstance(name, str) or not name.strip():
                raise ColorettoError(f"a player needs a non-empty name, not {name!r}")
        for key, names in (("colours", self.colours), ("removed", self.removed)):
            for colour in names:
                try:
                    check_colour_name(colour)
                except ColorettoError as err:
                    raise ColorettoError(f"{key!r}: {err}") from None
            if len(set(names)) != len(names):
                raise ColorettoError(f"{key!r} names a colour twice")
        self._check_removed()
        self._check_declared_colours()
        self._check_totals()

    def _check_removed(self) -> None:
        most_removed = COLOURS_IN_GAME - colours_in_play(MIN_PLAYERS)
        if len(self.removed) > most_removed:
            raise ColorettoError(
                f"'removed': at most {most_removed} colours are taken out of the game "
                f"(with 2 players), not {len(self.removed)}"
            )
        if self.players_count is not None and self.removed:
            expected = COLOURS_IN_GAME - colours_in_play(self.players_count)
            if len(self.removed) != expected:
                raise ColorettoError(
                    f"'removed': {self.players_count} players remove {expected} colour(s) "
                    f"from the game, not {len(self.removed)}"
                )
        for colour in self.removed:
            if colour in self.colours:
                raise ColorettoError(f"'colours': {colour!r} was removed from the game")
            for name, tableau in self.players.items():
                if tableau.count(colour):
                    raise ColorettoError(
                        f"player {name!r}: {colour!r} was removed from the game ('removed')"
                    )

    def _check_declared_colours(self) -> None:
        if not self.colours:
            return
        for name, tableau in self.players.items():
            for colour in tableau.colours:
                if colour not in self.colours:
                    raise ColorettoError(
                        f"player {name!r}: colour {colour!r} is not one of 'colours' "
                        f"({', '.join(self.colours)})"
                    )

    def _check_totals(self) -> None:
        in_play = self.palette
        if self.players_count is not None:
            most = colours_in_play(self.players_count)
            reason = f"{self.players_count} players play with {most}"
        else:
            most = COLOURS_IN_GAME - len(self.removed)
            reason = f"the game has only {most}" + (" left" if self.removed else "")
        if len(in_play) > most:
            raise ColorettoError(f"{len(in_play)} colours in play ({', '.join(in_play)}): {reason}")
        totals: Counter[str] = Counter()
        for tableau in self.players.values():
            totals.update(dict(tableau.counts))
            totals[JOKER] += tableau.jokers
            totals[GOLDEN_JOKER] += tableau.golden_joker
            totals[PLUS_TWO] += tableau.plus_two
        for key, total in totals.items():
            most = SPECIAL_COPIES.get(key, CARDS_PER_COLOUR)
            if total > most:
                raise ColorettoError(
                    f"{key!r}: {total} across all players, but the game has only {most}"
                )

    @classmethod
    def from_dict(cls, data: Any) -> Scoresheet:
        """Read the contract's file: ``{"table": ..., "players": {name: {colour: n, ...}}}``."""
        if not isinstance(data, dict):
            raise ColorettoError("expected a JSON object with 'table' and 'players'")
        unknown = sorted(set(data) - set(_SHEET_FIELDS))
        if unknown:
            raise ColorettoError(
                f"unknown field {unknown[0]!r} (expected {', '.join(_SHEET_FIELDS)})"
            )
        if "table" not in data:
            raise ColorettoError("missing 'table' (brown or purple)")
        table = Table.parse(data["table"])
        raw_players = data.get("players")
        if not isinstance(raw_players, dict):
            raise ColorettoError("'players' must be an object of player name -> cards")
        players = {name: _tableau_from_dict(name, cards) for name, cards in raw_players.items()}
        return cls(
            table,
            players,
            _colour_list(data, "colours"),
            _colour_list(data, "removed"),
            data.get("players_count"),
        )

    @property
    def palette(self) -> tuple[str, ...]:
        """The colours named: every colour held, plus the declared ones."""
        held = {colour for tableau in self.players.values() for colour in tableau.colours}
        return tuple(sorted(held | set(self.colours)))

    @property
    def notes(self) -> tuple[str, ...]:
        """Colour names that look like a typo (:func:`spelling_notes`); scored as written.

        >>> Scoresheet.from_dict({"table": "brown", "players": {"anna": {"golden": 1}}}).notes
        ("'golden' is scored as a colour: did you mean the special card 'golden_joker'?",)
        """
        held = [colour for tableau in self.players.values() for colour in tableau.colours]
        return spelling_notes([*held, *self.colours, *self.removed])

    @property
    def surely_in_play(self) -> int:
        """How many colours the game has at least: all 7 less those removed, and fewer
        with 2 or 3 players (a file may score only some of the players)."""
        if self.players_count is not None:
            return colours_in_play(self.players_count)
        return min(
            colours_in_play(max(MIN_PLAYERS, len(self.players))),
            COLOURS_IN_GAME - len(self.removed),
        )

    @property
    def joker_palette(self) -> tuple[str, ...]:
        """The colours a joker may become: the declared ones if the sheet lists them;
        else those named, plus one unnamed colour per joker while the game surely has
        colours nobody named."""
        named = self.palette
        if self.colours:
            return named
        taken = {same_colour_key(colour) for colour in (*named, *self.removed)}
        unnamed = [c for c in UNNAMED_COLOURS if same_colour_key(c) not in taken]
        room = self.surely_in_play - len(named)
        return (*named, *unnamed[: max(0, room)])

    def best_scores(self) -> dict[str, Score]:
        """Each player's best score, in the order the players were given."""
        palette = self.joker_palette
        return {name: best_score(t, self.table, palette) for name, t in self.players.items()}

    def as_dict(self) -> dict[str, Any]:
        """The contract's output object: ``{"players": {name: {...}}}``."""
        return {"players": {name: s.as_dict() for name, s in self.best_scores().items()}}


_SHEET_FIELDS = ("table", "players", "colours", "removed", "players_count")


def _colour_list(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ColorettoError(f"{key!r} must be a list of colour names")
    return tuple(value)


def _tableau_from_dict(name: str, cards: Any) -> Tableau:
    if not isinstance(cards, dict):
        raise ColorettoError(f"player {name!r}: expected an object of colour -> number of cards")
    try:
        colours = {check_colour_name(k): v for k, v in cards.items() if k not in SPECIAL_CARDS}
        golden = cards.get(GOLDEN_JOKER, 0)
        if isinstance(golden, bool):  # "golden_joker": true reads naturally
            golden = int(golden)
        return Tableau.of(
            colours,
            jokers=cards.get(JOKER, 0),
            golden_joker=golden,
            plus_two=cards.get(PLUS_TWO, 0),
        )
    except ColorettoError as err:
        raise ColorettoError(f"player {name!r}: {err}") from None


def explain(name: str, score: Score, table: Table) -> list[str]:
    """The choice behind ``score`` in words, one line per item.

    >>> t = Tableau.of({"green": 6, "yellow": 4, "red": 3, "blue": 2}, jokers=1, plus_two=1)
    >>> print("\\n".join(explain("andrzej", best_score(t, Table.BROWN), Table.BROWN)))
    andrzej: 41 points (brown table)
      green    6 cards             +21  positive
      red      3 cards              +6  positive
      yellow   5 cards (1 joker)   +15  positive
      blue     2 cards              -3  negative
      "+2"     1 card               +2
      the joker becomes yellow
    """
    jokers = score.joker_counts
    rows: list[tuple[str, str, int, str]] = []
    points = dict(score.by_colour)
    ordered = [c for c in score.choice.positive if c in points]
    ordered += [c for c, _ in score.by_colour if c not in score.choice.positive]
    counts = dict(score.counts)
    for colour in ordered:
        cards = _plural(counts[colour], "card")
        if colour in jokers:
            cards += f" ({_plural(jokers[colour], 'joker')})"
        sign = "positive" if points[colour] > 0 else "negative"
        rows.append((colour, cards, points[colour], sign))
    plus_two = score.plus_two_points // PLUS_TWO_POINTS
    if plus_two:
        rows.append(('"+2"', _plural(plus_two, "card"), score.plus_two_points, ""))
    width = max([len(r[0]) for r in rows] + [7])
    lines = [f"{name}: {_plural(score.total, 'point')} ({table.value} table)"]
    lines += [
        f"  {colour:<{width}}  {cards:<18} {value:>+4}  {sign}".rstrip()
        for colour, cards, value, sign in rows
    ]
    if jokers:
        one = len(score.choice.jokers) == 1
        places = ", ".join(f"{n} on {colour}" for colour, n in jokers.items())
        lines.append(
            f"  the joker becomes {score.choice.jokers[0]}" if one else f"  jokers: {places}"
        )
    if score.ties:
        verb = "reaches" if score.ties == 1 else "reach"
        lines.append(
            f"  {_plural(score.ties, 'other choice')} also {verb} {score.total}; "
            "this one comes first alphabetically"
        )
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
