"""The eight games as data: one ``Rules`` preset per game id (SPEC section 1)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache

from .errors import UnknownGameError


class Build(StrEnum):
    SUIT = "suit"  # down in the same suit
    ALTERNATE = "alternate"  # down in alternate colours


class Unit(StrEnum):
    CARD = "card"  # one card at a time
    RUN = "run"  # any run that builds by the game's rule


class Layout(StrEnum):
    ROWS = "rows"  # Forty Thieves family: row by row, all face up
    KLONDIKE = "klondike"  # triangle, last card of each column face up


@dataclass(frozen=True, slots=True)
class Rules:
    game: str
    name: str
    decks: int
    columns: int
    rows: int  # cards per column for ROWS layouts; 7 for Klondike's triangle
    layout: Layout
    draw: int
    passes: int | None  # None means unlimited
    build: Build
    unit: Unit
    empty_takes_king_only: bool
    aces_start_on_foundations: bool
    foundation_to_tableau: bool
    redeal_penalty: int
    summary: str

    @property
    def foundations(self) -> int:
        return 4 * self.decks

    @property
    def cards(self) -> int:
        return 52 * self.decks

    @property
    def stock_size(self) -> int:
        if self.layout is Layout.KLONDIKE:
            return self.cards - self.columns * (self.columns + 1) // 2
        aces = 8 if self.aces_start_on_foundations else 0
        return self.cards - aces - self.columns * self.rows

    def as_dict(self) -> dict[str, object]:
        """The rules as JSON-ready data, for ``GET /games`` and tools."""
        return {
            "id": self.game,
            "name": self.name,
            "decks": self.decks,
            "columns": self.columns,
            "foundations": self.foundations,
            "stock": self.stock_size,
            "draw": self.draw,
            "passes": self.passes,
            "build": self.build.value,
            "moves_as_unit": self.unit.value,
            "empty_column_takes": "king" if self.empty_takes_king_only else "any",
            "aces_start_on_foundations": self.aces_start_on_foundations,
            "foundation_to_tableau": self.foundation_to_tableau,
            "summary": self.summary,
        }


def _forty_thieves_like(game: str, name: str, columns: int, rows: int, summary: str, **kw: object) -> Rules:
    base: dict[str, object] = dict(
        game=game,
        name=name,
        decks=2,
        columns=columns,
        rows=rows,
        layout=Layout.ROWS,
        draw=1,
        passes=1,
        build=Build.SUIT,
        unit=Unit.CARD,
        empty_takes_king_only=False,
        aces_start_on_foundations=False,
        foundation_to_tableau=False,
        redeal_penalty=0,
        summary=summary,
    )
    base.update(kw)
    return Rules(**base)  # type: ignore[arg-type]


def _klondike(game: str, name: str, draw: int, penalty: int) -> Rules:
    return Rules(
        game=game,
        name=name,
        decks=1,
        columns=7,
        rows=7,
        layout=Layout.KLONDIKE,
        draw=draw,
        passes=None,
        build=Build.ALTERNATE,
        unit=Unit.RUN,
        empty_takes_king_only=True,
        aces_start_on_foundations=False,
        foundation_to_tableau=True,
        redeal_penalty=penalty,
        summary=(
            f"One deck, seven columns; draw {draw}, unlimited redeals. Build down in alternate colours; "
            "move any face-up run; only a king fills an empty column."
        ),
    )


GAMES: dict[str, Rules] = {
    r.game: r
    for r in (
        _forty_thieves_like(
            "josephine",
            "Josephine",
            10,
            4,
            "Forty Thieves where any same-suit run moves as a unit. Two decks, ten columns of four, one pass.",
            unit=Unit.RUN,
        ),
        _forty_thieves_like(
            "forty-thieves",
            "Forty Thieves",
            10,
            4,
            "Two decks, ten columns of four; build down in suit one card at a time; one pass through the stock.",
        ),
        _forty_thieves_like(
            "lucas",
            "Lucas",
            13,
            3,
            "Forty Thieves with the eight aces already on the foundations and thirteen columns of three.",
            aces_start_on_foundations=True,
        ),
        _forty_thieves_like(
            "limited",
            "Limited",
            12,
            3,
            "Forty Thieves with twelve columns of three.",
        ),
        _forty_thieves_like(
            "maria",
            "Maria",
            9,
            4,
            "Forty Thieves with nine columns of four, building down in alternate colours.",
            build=Build.ALTERNATE,
        ),
        _forty_thieves_like(
            "forty-and-eight",
            "Forty and Eight",
            8,
            5,
            "Forty Thieves with eight columns of five and one redeal.",
            passes=2,
        ),
        _klondike("klondike", "Klondike", 1, 50),
        _klondike("klondike-3", "Klondike (draw 3)", 3, 20),
    )
}

GAME_IDS: tuple[str, ...] = tuple(GAMES)


def find_rules(game: str) -> Rules:
    """The preset for a game id; ``UnknownGameError`` (a ``ValueError``) names the known ones."""
    try:
        return GAMES[game]
    except (KeyError, TypeError):
        raise UnknownGameError(game, GAME_IDS) from None


# The fields in which a game and its weaker game may differ: their names, and how cards move.
_OWN = ("game", "name", "unit", "draw", "redeal_penalty", "summary")


@cache
def weaker_game(rules: Rules) -> str | None:
    """The game whose deal of any seed is this game's and whose every move is a move, or a run of
    moves, of this game, or None. So a win of the weaker game, its log written with this game's
    moves, is a win of this game, and a loss of this game is a loss of the weaker one. Two pairs:

    - Josephine is Forty Thieves where a same-suit run moves as a unit: every other rule is the
      same, and a move of one card is a run of one.
    - Klondike (draw 1) is Klondike draw 3 drawing one card at a time: a draw of three cards (or of
      the one or two left) puts them on the waste one after the other, the last on top, which is
      what that many draws of one card do, and a redeal turns the same waste over in both, as
      often as the player likes. Every other rule is the same; the redeal penalty is score only.

    The deal depends on the rules only through what both share (tested deal by deal)."""
    for game, other in GAMES.items():
        if game != rules.game and _restricts(other, rules):
            return game
    return None


@cache
def stronger_game(rules: Rules) -> str | None:
    """The game whose weaker game this one is (``weaker_game``), or None."""
    return next((game for game, other in GAMES.items() if weaker_game(other) == rules.game), None)


def _restricts(weak: Rules, strong: Rules) -> bool:
    """Is every move of ``weak`` a move or a run of moves of ``strong``, on the same deals?"""
    runs = weak.unit is strong.unit or (weak.unit is Unit.CARD and strong.unit is Unit.RUN)
    draws = weak.draw == strong.draw or strong.draw == 1
    same = all(getattr(weak, f) == getattr(strong, f) for f in Rules.__dataclass_fields__ if f not in _OWN)
    return runs and draws and same


def as_game(rules: Rules, game: str) -> Rules:
    """``rules`` with ``game``'s names and way of moving cards (what a weaker game may change), the
    rest (the layout, a test variant's column count) kept."""
    other = find_rules(game)
    return replace(rules, **{f: getattr(other, f) for f in _OWN})
