"""Deals as a pure function of (game id, seed): SPEC section 3."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .cards import canonical_deck, card_text
from .errors import InvalidSeedError
from .rng import SEED_MAX, shuffle
from .rules import Layout, Rules, find_rules


@dataclass(frozen=True, slots=True)
class Deal:
    """The opening position, with full knowledge (server and solver side only)."""

    rules: Rules
    seed: int
    tableau: tuple[tuple[int, ...], ...]  # each column bottom to top
    face_down: tuple[int, ...]  # how many cards at the bottom of each column are face down
    stock: tuple[int, ...]  # in the order the cards will be drawn
    foundations: tuple[int, ...]  # top card of each foundation, -1 when empty
    # A position in the middle of a game as a starting point (``State.as_deal``): the waste, bottom to
    # top, and the redeals left (-1: unlimited). A deal proper has an empty waste and the game's passes.
    waste: tuple[int, ...] = ()
    passes_left: int | None = None

    @property
    def game(self) -> str:
        return self.rules.game

    def to_json(self) -> dict[str, object]:
        """The ``deal`` command's shape: every card, face-down ones included."""
        return {
            "game": self.rules.game,
            "seed": self.seed,
            "tableau": [
                [{"card": card_text(c), "up": i >= down} for i, c in enumerate(col)]
                for col, down in zip(self.tableau, self.face_down, strict=True)
            ],
            "stock": [card_text(c) for c in self.stock],
            "foundations": [[] if top < 0 else [card_text(top)] for top in self.foundations],
        }


def check_seed(seed: object) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise InvalidSeedError(seed)
    return seed


def shuffled_deck(decks: int, seed: int) -> list[int]:
    deck = canonical_deck(decks)
    shuffle(deck, check_seed(seed))
    return deck


def deal(game: str | Rules, seed: int) -> Deal:
    rules = game if isinstance(game, Rules) else find_rules(game)
    return _deal(rules, check_seed(seed))


@lru_cache(maxsize=512)
def _deal(rules: Rules, seed: int) -> Deal:
    deck = shuffled_deck(rules.decks, seed)
    foundations = [-1] * rules.foundations
    if rules.aces_start_on_foundations:
        aces = [c for c in deck if c < 4]
        foundations[: len(aces)] = aces
        deck = [c for c in deck if c >= 4]
    columns: list[list[int]] = [[] for _ in range(rules.columns)]
    if rules.layout is Layout.KLONDIKE:
        k = 0
        for row in range(rules.columns):
            for col in range(row, rules.columns):
                columns[col].append(deck[k])
                k += 1
        face_down = tuple(range(rules.columns))
    else:
        k = rules.columns * rules.rows
        for i in range(k):
            columns[i % rules.columns].append(deck[i])
        face_down = (0,) * rules.columns
    return Deal(
        rules=rules,
        seed=seed,
        tableau=tuple(tuple(col) for col in columns),
        face_down=face_down,
        stock=tuple(deck[k:]),
        foundations=tuple(foundations),
    )
