"""Klondike decided in the image game, which forgets where face-up cards lie.

docs/solver-proofs.md, "The image game", has the arguments. A position's *image* keeps the foundations, the talon,
and for each column how many of its dealt cards are still in place (face down, or the face-up card
turned where it was dealt); which parent a moved face-up run lies on is forgotten. The search here
is exhaustive over images: "lost" proves the position lost (the image game), and a won image's line is made
into a winning line of the position's own moves by ``realize`` ("a won image is a win"). This is the Python
reference; ``core.Compiled.image`` (``csrc/image.c``) is the same search, position for position.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.moves import W2F, W2T

from .state import (
    RED,
    SearchMove,
    SearchState,
    column_to_column,
    column_to_foundation,
    foundation_to_column,
    stock_positions,
)


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


TYPE = [_mask(x for x in range(52) if x >> 2 == c >> 2 and RED[x & 3] == RED[c & 3]) for c in range(52)]
PAR = [_mask(x for x in range(52) if x >> 2 == (c >> 2) + 1 and RED[x & 3] != RED[c & 3]) for c in range(52)]
KIDS = [_mask(x for x in range(52) if x >> 2 == (c >> 2) - 1 and RED[x & 3] != RED[c & 3]) for c in range(52)]
KINGS = _mask(range(48, 52))


@dataclass
class Outcome:
    status: str  # "won" (``realize`` makes a win of the deal from ``line``), "lost" (the deal is lost), "unknown"
    positions: int
    seconds: float
    line: list[tuple[int, int, int]] = field(default_factory=list)  # a won image's moves: (kind, a, redeal)


def pop(m: int) -> int:
    return m.bit_count()


def realize(root: SearchState, line: list[tuple[int, int, int]]) -> list[SearchMove] | None:
    """The deal's own moves that play the won image line ``line`` from ``root`` (docs/solver-proofs.md,
    the image game, "a won image is a win"): each image move is one move, an *Up* at most two (what
    lies on the card first goes onto its twin, which then has nothing on it). None if a step cannot
    be made (the argument says it always can;
    the schedule replays every win with the engine all the same)."""
    st = root.copy()
    out: list[SearchMove] = []

    def host(x: int, avoid: int = -1) -> int:
        """A column ``x`` can go onto: its top a parent of ``x``, or empty for a king; -1 if none."""
        for b, col in enumerate(st.cols):
            if b != avoid and ((col and PAR[x] >> col[-1] & 1) or (not col and x >= 48)):
                return b
        return -1

    def play(m: SearchMove) -> None:
        st.play(m)
        out.append(m)

    for kind, a, redeal in line:
        if kind == 0:  # Up
            spot = [(c, i) for c, col in enumerate(st.cols) for i, y in enumerate(col) if y == a and i >= st.down[c]]
            if not spot or st.found_slot(a) < 0:
                return None
            c, i = spot[0]
            lying = len(st.cols[c]) - i - 1
            if lying:
                twin = (a & ~3) | (3 - (a & 3))
                b = next((b for b, col in enumerate(st.cols) if col and col[-1] == twin), -1)
                if b < 0:
                    return None
                play(column_to_column(c, b, lying))
            play(column_to_foundation(c))
        elif kind == 1:  # Down
            b = host(a)
            if b < 0 or st.found[a & 3] != (a >> 2) + 1:
                return None
            play(foundation_to_column(a & 3, b))
        elif kind == 2:  # Reveal
            col = st.cols[a]
            if not col:
                return None
            b = host(col[st.down[a]], avoid=a)
            if b < 0:
                return None
            play(column_to_column(a, b, len(col) - st.down[a]))
        else:  # a talon card, by the route the image search took
            route = next((r for r in stock_positions(st) if r[0] == a and r[2] == redeal), None)
            if route is None:
                return None
            j, draws, rd, after = route
            w = st.talon[j]
            if kind == 3:
                if st.found_slot(w) < 0:
                    return None
                play(SearchMove(W2F, -1, -1, 1, j, draws, rd, after))
            else:
                b = host(w)
                if b < 0:
                    return None
                play(SearchMove(W2T, -1, b, 1, j, draws, rd, after))
    return out if st.left == 0 else None
