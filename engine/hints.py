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


# --- looking ahead over what the player can see --------------------------------------------------------

DEPTH = 3  # moves looked ahead (the first one included)
BUDGET = 6000  # positions looked at, at most: a hint stays fast in the biggest two-deck position


def _value(state: State) -> int:
    """A position's worth by visible counts only: cards home, face-down cards left, empty columns."""
    empty = sum(1 for col in state.tab if not col)
    return 10 * state.on_foundations - 6 * sum(state.down) + 4 * empty


class _Search:
    """Sequences of up to DEPTH moves whose outcome the player can see: a draw or a redeal is never
    searched, and a move that turns a card up ends its line (what turns up is not looked at)."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.left = BUDGET

    def best(self, depth: int, last: Move | None) -> tuple[int, int]:
        """The best value reachable within ``depth`` moves, and how many moves reach it."""
        state = self.state
        here = (_value(state), 0)
        if depth == 0 or state.won:
            return here
        best = here
        for move in list(state.legal_moves()):
            if move.kind in (DRAW, REDEAL) or _reverses(move, last) or self.left <= 0:
                continue
            value, length = self.after(move, depth)
            if value > best[0] or (value == best[0] and length + 1 < best[1]):
                best = (value, length + 1)
        return best

    def after(self, move: Move, depth: int) -> tuple[int, int]:
        """Play ``move``, look further (unless it turned a card up), take it back."""
        state = self.state
        self.left -= 1
        score, moves, down = state.score, state.moves, sum(state.down)
        state.play(move)
        try:
            if sum(state.down) != down or state.won:
                return _value(state), 0
            return self.best(depth - 1, move)
        finally:
            state._undo()  # the raw take-back: a won line is taken back too, and nothing is marked
            state.won = False
            state.score, state.moves = score, moves


def hint(state: State) -> Hint | None:
    """The move that starts the most promising line of up to DEPTH visible moves, ties broken by the
    move's own features; a draw, or plainly "nothing helps", when no line on the table gains anything.
    None when no move is left."""
    last = state.last_move
    moves = list(state.legal_moves())
    if not moves:
        return None
    # The search plays and takes back moves: on a copy, so that the caller's state (its undo stack,
    # its assisted mark) is never touched.
    search = _Search(State.restore(state.deal, state.snapshot()))
    start = _value(state)
    ranked: list[tuple[int, int, int, str, Move]] = []
    stock: Move | None = None
    for move in moves:
        if move.kind in (DRAW, REDEAL):
            stock = move
            continue
        if _reverses(move, last):
            ranked.append((start - 1, -1, -200, "only moving those cards back is left: undo, or give up", move))
            continue
        rate, reason = _rate(state, move)
        value, length = search.after(move, DEPTH)
        ranked.append((value, -length, rate, reason, move))
    ranked.sort(key=lambda entry: entry[:3], reverse=True)
    if ranked and ranked[0][0] > start:
        value, length, _, reason, move = ranked[0]
        if -length > 0:
            return Hint(move=move, reason=f"{reason}: the first of {1 - length} moves that gain something here")
        return Hint(move=move, reason=reason)
    if stock is not None:
        what = "draw from the stock" if stock.kind == DRAW else "turn the waste over and go through the stock again"
        return Hint(move=stock, reason=f"no move on the table helps here: {what}")
    best = max(ranked, key=lambda entry: entry[2])
    return Hint(move=best[4], reason=f"no move helps here: undo, or give up ({best[3]})")
