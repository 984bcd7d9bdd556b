"""The solver's own compact position: plain lists of ints, played and undone in place.

This is not the engine's ``State``: it keeps only what decides the future, in the
shapes the search loop wants.

* ``cols``: tableau columns bottom to top (real column indexes are kept, so moves
  translate straight to SPEC notation; only the *key* forgets column order).
* ``down``: face-down counts (Klondike; zeros elsewhere).
* ``found``: cards on the foundations per suit. One deck: ``found[suit]`` is a count.
  Two decks: ``found[2*suit]`` and ``found[2*suit+1]`` are the counts of the suit's two
  foundations, kept in non-increasing order; the two foundations of a suit are
  interchangeable, so this pair is the multiset of their counts.
* ``talon``: stock and waste as one sequence in draw order; the first ``p`` cards have
  been drawn (``talon[p-1]`` is the waste's top card) and the rest is the stock.
  Playing the waste's top card deletes it from the talon and sets ``p`` to its index.
* ``passes``: redeals left (-1: unlimited).

A move is a tuple ``(kind, a, b, n, j, draws, redeal, draws_after)``; waste moves name
the talon index ``j`` of the card they play and how it is reached: ``draws`` draws, then
optionally a redeal and ``draws_after`` more draws (the "K+" stock moves).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from engine import Deal
from engine.moves import F2T, T2F, T2T, W2F, W2T
from engine.rules import Build, Layout, Unit


class SearchMove(NamedTuple):
    """One move of the solver's search: a plain 8-tuple (the compiled core reads and returns the
    same fields in this order), named for the Python code. Unused fields are -1 (``src``, ``dst``,
    ``talon``) or 0."""

    kind: int  # T2F, T2T, W2F, W2T or F2T (``engine.moves``' kinds), DRAW or REDEAL (the beam's)
    src: int  # the source column (T2F, T2T) or the foundation's suit (F2T)
    dst: int  # the destination column (T2T, W2T, F2T)
    cards: int  # how many cards move (T2T: a run's length)
    talon: int  # W2F, W2T: the talon index of the card played
    draws: int  # stock draws before the card is on the waste's top...
    redeal: int  # ...then 1 if the waste is turned over...
    draws_after: int  # ...then the draws after that redeal


def column_to_foundation(a: int) -> SearchMove:
    return SearchMove(T2F, a, -1, 1, -1, 0, 0, 0)


def column_to_column(a: int, b: int, n: int) -> SearchMove:
    return SearchMove(T2T, a, b, n, -1, 0, 0, 0)


def foundation_to_column(suit: int, b: int) -> SearchMove:
    return SearchMove(F2T, suit, b, 1, -1, 0, 0, 0)


RED = (False, True, True, False)


@functools.cache
def build_table(build: Build) -> bytes:
    """``table[top * 52 + card]`` is 1 when ``card`` may go onto ``top`` in a column."""
    table = bytearray(52 * 52)
    for top in range(52):
        for card in range(52):
            if (card >> 2) + 1 != (top >> 2):
                continue
            ok = (card & 3) == (top & 3) if build is Build.SUIT else RED[card & 3] != RED[top & 3]
            table[top * 52 + card] = ok
    return bytes(table)


class SearchState:
    __slots__ = (
        "builds",
        "cols",
        "down",
        "draw",
        "found",
        "hist",
        "king_only",
        "klondike",
        "left",
        "ncols",
        "p",
        "p_in_key",
        "passes",
        "runs",
        "suit_build",
        "talon",
        "two",
    )

    def __init__(self, deal: Deal) -> None:
        rules = deal.rules
        self.two = rules.decks == 2
        self.klondike = rules.layout is Layout.KLONDIKE
        self.draw = rules.draw
        self.runs = rules.unit is Unit.RUN
        self.king_only = rules.empty_takes_king_only
        self.suit_build = rules.build is Build.SUIT
        self.builds = build_table(rules.build)
        self.cols: list[list[int]] = [list(c) for c in deal.tableau]
        self.ncols = len(self.cols)
        self.down: list[int] = list(deal.face_down)
        counts: list[list[int]] = [[] for _ in range(4)]
        for top in deal.foundations:
            if top >= 0:
                counts[top & 3].append((top >> 2) + 1)
        if self.two:
            self.found = [0] * 8
            for s in range(4):
                c = [*sorted(counts[s], reverse=True), 0, 0]
                self.found[2 * s], self.found[2 * s + 1] = c[0], c[1]
        else:
            self.found = [sum(counts[s]) for s in range(4)]
        # A mid-game position (``State.as_deal``) has drawn the waste's cards already.
        self.talon: list[int] = [*deal.waste, *deal.stock]
        self.p = len(deal.waste)
        self.passes = -1 if rules.passes is None else rules.passes - 1
        if deal.passes_left is not None:
            self.passes = deal.passes_left
        self.left = rules.cards - sum(self.found)
        self.hist: list[tuple[int, ...]] = []
        # With draw 1 and unlimited redeals every talon card is reachable from any p, so
        # positions that differ only in p have the same successors: p leaves the key.
        self.p_in_key = not (self.draw == 1 and self.passes < 0)

    def copy(self) -> SearchState:
        """A position of its own, equal to this one (no history)."""
        st = SearchState.__new__(SearchState)
        for name in SearchState.__slots__:
            setattr(st, name, getattr(self, name))
        st.cols = [list(c) for c in self.cols]
        st.down, st.found, st.talon, st.hist = list(self.down), list(self.found), list(self.talon), []
        return st

    # -- foundations --------------------------------------------------------------------------

    def found_slot(self, card: int) -> int:
        """The foundation slot ``card`` can go onto, or -1."""
        r = card >> 2
        s = card & 3
        f = self.found
        if self.two:
            i = 2 * s
            if f[i] == r:
                return i
            if f[i + 1] == r:
                return i + 1
            return -1
        return s if f[s] == r else -1

    # -- play and undo --------------------------------------------------------------------------

    def play(self, m: SearchMove) -> None:
        # By position (SearchMove's fields): a move may also be the core's plain 8-tuple.
        kind, a, b, n, j, _draws, redeal, _after = m
        if kind == T2F:
            col = self.cols[a]
            slot = self.found_slot(col[-1])
            col.pop()
            self.found[slot] += 1
            self.left -= 1
            flip = 0
            d = self.down[a]
            if d and len(col) == d:
                self.down[a] = d - 1
                flip = 1
            self.hist.append((slot, flip))
        elif kind == T2T:
            src = self.cols[a]
            if n == 1:
                self.cols[b].append(src.pop())
            else:
                self.cols[b].extend(src[-n:])
                del src[-n:]
            flip = 0
            d = self.down[a]
            if d and len(src) == d:
                self.down[a] = d - 1
                flip = 1
            self.hist.append((flip,))
        elif kind in (W2F, W2T):
            card = self.talon.pop(j)
            slot = -1
            if kind == W2F:
                slot = self.found_slot(card)
                self.found[slot] += 1
                self.left -= 1
            else:
                self.cols[b].append(card)
            self.hist.append((self.p, self.passes, card, slot))
            self.p = j
            if redeal and self.passes > 0:
                self.passes -= 1
        else:  # F2T (one deck)
            s = a
            self.found[s] -= 1
            self.left += 1
            self.cols[b].append(self.found[s] * 4 + s)
            self.hist.append(())

    def undo(self, m: SearchMove) -> None:
        # By position (SearchMove's fields): a move may also be the core's plain 8-tuple.
        kind, a, b, n, j, _draws, _redeal, _after = m
        h = self.hist.pop()
        if kind == T2F:
            slot, flip = h
            if flip:
                self.down[a] += 1
            self.found[slot] -= 1
            self.left += 1
            self.cols[a].append(self.found[slot] * 4 + (slot >> 1 if self.two else slot))
        elif kind == T2T:
            if h[0]:
                self.down[a] += 1
            dst = self.cols[b]
            if n == 1:
                self.cols[a].append(dst.pop())
            else:
                self.cols[a].extend(dst[-n:])
                del dst[-n:]
        elif kind in (W2F, W2T):
            p, passes, card, slot = h
            if kind == W2F:
                self.found[slot] -= 1
                self.left += 1
            else:
                self.cols[b].pop()
            self.talon.insert(j, card)
            self.p = p
            self.passes = passes
        else:
            s = a
            self.cols[b].pop()
            self.found[s] += 1
            self.left -= 1

    # -- key ------------------------------------------------------------------------------------

    def key(self) -> bytes:
        """Canonical key: columns sorted (column order never matters), foundations as per-suit
        count multisets, the talon with the waste/stock split and passes left."""
        if self.klondike:
            cols = sorted([bytes((d,)) + bytes(c) for c, d in zip(self.cols, self.down, strict=True)])
        else:
            cols = sorted([bytes(c) for c in self.cols])
        tail = bytes(self.found) + b"\xfe" + bytes(self.talon)
        if self.p_in_key:
            tail += bytes((255, self.p, self.passes + 1))
        return b"\xff".join(cols) + b"\xfe" + tail


def stock_positions(st: SearchState) -> list[tuple[int, int, int, int]]:
    """``(j, draws, redeal, draws_after)`` for every talon card that can be brought to the
    waste's top, cheapest route only."""
    talon, p, draw = st.talon, st.p, st.draw
    size = len(talon)
    out: list[tuple[int, int, int, int]] = []
    if p:
        out.append((p - 1, 0, 0, 0))
    if draw == 1:
        for j in range(p, size):
            out.append((j, j - p + 1, 0, 0))
        if st.passes != 0:
            for j in range(0, p - 1):
                out.append((j, size - p, 1, j + 1))
        return out
    seen = {p - 1}
    k = 1
    while p + draw * (k - 1) < size:
        j = min(p + draw * k, size) - 1
        out.append((j, k, 0, 0))
        seen.add(j)
        k += 1
    if st.passes != 0 and size:
        to_end = k - 1
        k = 1
        while draw * (k - 1) < size:
            j = min(draw * k, size) - 1
            if j not in seen:
                out.append((j, to_end, 1, k))
            k += 1
    return out
