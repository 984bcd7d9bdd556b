"""Hints from what the player can see: they rank the legal moves by visible features only.

Legal moves depend only on visible information (column tops, face-up runs, the waste's
top card, the foundations, whether the stock is empty), and so does every feature used
here: how many face-down cards a column has is visible, what they are is not. So a hint
discloses nothing that the player could not work out, unlike a solver's move, which
would leak the stock order and the face-down cards.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import KING_RANK, card_text
from .moves import DRAW, F2T, REDEAL, T2F, T2T, W2F, W2T, Move
from .state import State


@dataclass(frozen=True, slots=True)
class Hint:
    move: Move
    reason: str


def _reverses(move: Move, last: Move | None) -> bool:
    """Moving the same cards straight back between the same two columns."""
    if last is None or last.kind != T2T or move.kind != T2T:
        return False
    return last.src == move.dst and last.dst == move.src and last.n == move.n


def _rate(state: State, move: Move) -> tuple[int, str]:
    kind, src, dst, n = move
    tab, down, found = state.tab, state.down, state.found
    if kind in (W2F, T2F):
        card = state.waste[-1] if kind == W2F else tab[src][-1]
        if kind == T2F and down[src] and len(tab[src]) - 1 == down[src]:
            return 100, f"{card_text(card)} goes to a foundation and turns up the card under it"
        lowest = min((top >> 2) + 1 if top >= 0 else 0 for top in found)
        bonus = 10 if (card >> 2) <= lowest + 1 else 0  # low cards are never needed on the table
        return 80 + bonus, f"{card_text(card)} can go to a foundation"
    if kind == T2T:
        col = tab[src]
        first = len(col) - n
        card = col[first]
        if down[src] and first == down[src]:
            return 90, f"moving {card_text(card)} turns up a face-down card"
        if first == 0:
            if not tab[dst]:
                return -100, "moving a whole column to an empty one changes nothing"
            return 60, f"moving {card_text(card)} empties column {src + 1}"
        under = col[first - 1]
        if state.builds_on(card, under) and first - 1 >= down[src]:
            return -40, f"{card_text(card)} already sits on {card_text(under)}"
        if any(under == top + 4 or (under < 4 and top < 0) for top in found):
            return 70, f"moving {card_text(card)} frees {card_text(under)} for a foundation"
        if not tab[dst]:
            return 5 if (card >> 2) == KING_RANK else -5, f"{card_text(card)} can fill the empty column {dst + 1}"
        return 30, f"{card_text(card)} builds on {card_text(tab[dst][-1])}"
    if kind == W2T:
        card = state.waste[-1]
        if not tab[dst]:
            return 15, f"{card_text(card)} from the waste can fill the empty column {dst + 1}"
        return 45, f"{card_text(card)} from the waste builds on {card_text(tab[dst][-1])}"
    if kind == F2T:
        return -60, "bring a card back from a foundation"
    if kind == DRAW:
        return 10, "nothing better on the table: draw from the stock"
    if kind == REDEAL:
        return 8, "turn the waste over and go through the stock again"
    return 0, str(move)


def hint(state: State) -> Hint | None:
    """The most promising legal move by visible features, or None when no move is left."""
    last = state.last_move
    best: tuple[int, str, Move] | None = None
    for move in state.legal_moves():
        if _reverses(move, last):
            score, reason = -200, "only moving those cards back is left: undo, or give up"
        else:
            score, reason = _rate(state, move)
        if best is None or score > best[0]:
            best = (score, reason, move)
    if best is None:
        return None
    return Hint(move=best[2], reason=best[1])
