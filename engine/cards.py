"""Cards as small integers, and their notation.

A card is ``rank * 4 + suit`` with rank 0 (ace) .. 12 (king) and suit 0..3 for
clubs, diamonds, hearts, spades (SPEC section 2). With this layout the card one
rank higher in the same suit is ``card + 4``, which keeps the hot checks to one
addition.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
HIDDEN = "??"

CARDS_PER_DECK = 52
KING_RANK = 12

__all__ = [
    "CARDS_PER_DECK",
    "CARD_TEXT",
    "HIDDEN",
    "KING_RANK",
    "RANKS",
    "SUITS",
    "canonical_deck",
    "card_text",
    "is_red",
    "parse_card",
    "rank_of",
    "suit_of",
]


def rank_of(card: int) -> int:
    return card >> 2


def suit_of(card: int) -> int:
    return card & 3


def is_red(card: int) -> bool:
    return (card & 3) in (1, 2)


CARD_TEXT: tuple[str, ...] = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in range(CARDS_PER_DECK))
_TEXT_TO_CARD = {text: card for card, text in enumerate(CARD_TEXT)}


def card_text(card: int) -> str:
    """``card_text(parse_card("TH")) == "TH"``."""
    return CARD_TEXT[card]


def parse_card(text: str) -> int:
    try:
        return _TEXT_TO_CARD[text]
    except KeyError:
        raise ValueError(f"{text!r} is not a card: expected rank A23456789TJQK then suit CDHS, like 'TH'") from None


def canonical_deck(decks: int) -> list[int]:
    """SPEC 3.1: for each deck, suits C, D, H, S, each ace to king."""
    one = [rank * 4 + suit for suit in range(4) for rank in range(13)]
    return one * decks
