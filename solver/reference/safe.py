"""The safe foundation moves in Python (``solver.safe`` has their proofs; ``csrc/state.c`` plays them
in the service's searches): which card a position may put up without branching, and the move."""

from __future__ import annotations

from engine.moves import W2F

from ..safe import OTHER_COLOUR, klondike_safe
from ..state import SearchMove, SearchState, column_to_foundation, stock_positions


def is_safe(st: SearchState, card: int) -> bool:
    r = card >> 2
    s = card & 3
    f = st.found
    if st.two:
        if r == 0:
            return True  # an ace: its suit's second pile is empty (the other ace at most is up)
        if st.suit_build:
            return f[2 * s + 1] == r  # both piles of the suit at r (the lower one is the second)
        if f[2 * s + 1] != r:
            return False  # both piles of its own suit must be at r too (see the lemma)
        t, u = OTHER_COLOUR[s]
        return f[2 * t + 1] >= r and f[2 * u + 1] >= r
    return f[s] == r and klondike_safe(f, r, s)


def safe_cards(st: SearchState) -> list[int]:
    """The cards ``is_safe`` accepts in this position (at most one per suit: a safe card
    has the rank of its suit's lower pile), for scanning the tops quickly."""
    f = st.found
    if st.two and st.suit_build:  # the card at each suit's lower pile (see is_safe)
        return [r * 4 + s for s, r in enumerate(f[1::2]) if r < 13]
    out = []
    if st.two:
        for s in range(4):
            r = f[2 * s + 1]
            if r < 13 and is_safe(st, r * 4 + s):
                out.append(r * 4 + s)
        return out
    for s in range(4):
        r = f[s]
        if r < 13 and klondike_safe(f, r, s):
            out.append(r * 4 + s)
    return out


def safe_move(st: SearchState) -> SearchMove | None:
    cards = safe_cards(st)
    if not cards:
        return None
    for i, col in enumerate(st.cols):
        if col and col[-1] in cards:
            return column_to_foundation(i)
    p = st.p
    if p and st.draw == 1 and st.talon[p - 1] in cards:
        return SearchMove(W2F, -1, -1, 1, p - 1, 0, 0, 0)
    if st.klondike and st.draw == 1 and st.passes < 0:
        # the worry-back safe move for any talon card (the safe move from the talon): brought up by
        # its K+ move, the stock first
        for j, draws, redeal, after in stock_positions(st):
            if st.talon[j] in cards:
                return SearchMove(W2F, -1, -1, 1, j, draws, redeal, after)
    return None
