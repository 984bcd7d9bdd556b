"""Klondike proofs of loss in a smaller game that forgets where the face-up cards lie (prototype).

See docs/solver.md, "Lemma A". A position's *image* keeps the foundations, the talon, and for each
column how many of its dealt cards are still in place (face down, or the face-up card that was
turned over where it was dealt). Which parent a moved face-up card sits on is forgotten.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from engine import Deal
from engine.rules import Layout

from .state import stock_positions

RED = (False, True, True, False)
ALL = (1 << 52) - 1


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


TYPE = [_mask(x for x in range(52) if x >> 2 == c >> 2 and RED[x & 3] == RED[c & 3]) for c in range(52)]
PAR = [_mask(x for x in range(52) if x >> 2 == (c >> 2) + 1 and RED[x & 3] != RED[c & 3]) for c in range(52)]
KIDS = [_mask(x for x in range(52) if x >> 2 == (c >> 2) - 1 and RED[x & 3] != RED[c & 3]) for c in range(52)]
KINGS = _mask(range(48, 52))


def _safe(found: list[int], r: int, s: int, down: bool = False) -> bool:
    """Lemma K for the card of rank ``r`` (0-based) of suit ``s``: both suits of the other colour
    at least ``r`` up, its twin at least ``r - 1``."""
    red = RED[s]
    twin = 3 - s
    for t in range(4):
        if RED[t] != red and found[t] < r:
            return False
    return found[twin] >= r - 1


class _Talon:
    """What ``stock_positions`` reads."""

    __slots__ = ("draw", "p", "passes", "talon")

    def __init__(self, talon: list[int], p: int, passes: int, draw: int) -> None:
        self.talon, self.p, self.passes, self.draw = talon, p, passes, draw


@dataclass
class Outcome:
    status: str  # "won" (the smaller game is won: says nothing of the deal), "lost", "unknown"
    positions: int
    seconds: float


def pop(m: int) -> int:
    return m.bit_count()


def search(deal: Deal, max_positions: int = 1_000_000, seconds: float = 10.0) -> Outcome:
    """Exhaustive search of the image game from ``deal``'s image. "lost" proves the deal lost."""
    rules = deal.rules
    assert rules.layout is Layout.KLONDIKE and rules.decks == 1
    t0 = time.perf_counter()
    ncols = len(deal.tableau)
    orig = [tuple(col[: d + 1]) for col, d in zip(deal.tableau, deal.face_down, strict=True)]
    h = [len(o) for o in orig]
    placed = 0
    for col, d in zip(deal.tableau, deal.face_down, strict=True):
        for i in range(d + 1, len(col)):
            assert PAR[col[i]] >> col[i - 1] & 1, "a face-up run is built down in alternate colours"
            placed |= 1 << col[i]
    found = [0] * 4
    for top in deal.foundations:
        if top >= 0:
            found[top & 3] = (top >> 2) + 1
    passes = -1 if rules.passes is None else rules.passes - 1
    tal = _Talon([*deal.waste, *deal.stock], len(deal.waste), passes, rules.draw)
    if deal.passes_left is not None:
        tal.passes = deal.passes_left
    p_in_key = not (rules.draw == 1 and tal.passes < 0)
    total = rules.cards
    talon_safe = rules.draw == 1 and tal.passes < 0  # Corollary S: any talon card is at hand

    def key() -> tuple[object, ...]:
        k = (tuple(found), tuple(h), tuple(tal.talon))
        return (*k, tal.p, tal.passes) if p_in_key else k

    def moves() -> list[tuple[int, ...]]:
        surf = 0
        empty = 0
        for c in range(ncols):
            if h[c]:
                surf |= 1 << orig[c][h[c] - 1]
            else:
                empty += 1
        vis = placed | surf
        empty -= pop(placed & KINGS)
        out: list[tuple[int, ...]] = []
        # Lemma K: a safe card that is surely on top (what could lie on it is up) goes up, alone.
        for s in range(4):
            r = found[s]
            if r < 13 and _safe(found, r, s):
                x = r * 4 + s
                if vis >> x & 1:
                    return [(0, x)]
                if talon_safe:
                    for j, _d, redeal, _a in stock_positions(tal):  # type: ignore[arg-type]
                        if tal.talon[j] == x:
                            return [(3, j, redeal)]

        def free_parent(x: int) -> bool:
            if x >= 48:
                return empty > 0
            return pop(vis & PAR[x]) - pop(placed & TYPE[x]) > 0

        for s in range(4):
            r = found[s]
            if r < 13:
                x = r * 4 + s
                if vis >> x & 1 and pop(vis & TYPE[x]) - pop(placed & KIDS[x]) > 0:
                    out.append((0, x))
            if r and not _safe(found, r - 1, s, down=True):  # Corollary K
                x = (r - 1) * 4 + s
                if free_parent(x):
                    out.append((1, x))
        for c in range(ncols):
            if h[c]:
                x = orig[c][h[c] - 1]
                if x >= 48 and h[c] == 1:
                    continue  # a king alone where it was dealt: to another empty column is a renaming
                if free_parent(x):
                    out.append((2, c))
        for j, _draws, redeal, _after in stock_positions(tal):  # type: ignore[arg-type]
            w = tal.talon[j]
            if found[w & 3] == w >> 2:
                out.append((3, j, redeal))
            if free_parent(w):
                out.append((4, j, redeal))
        return out

    def play(m: tuple[int, ...]) -> tuple[int, ...]:
        nonlocal placed
        kind = m[0]
        if kind == 0:  # a face-up card to its foundation
            x = m[1]
            found[x & 3] += 1
            if placed >> x & 1:
                placed ^= 1 << x
                return (-1,)
            for c in range(ncols):
                if h[c] and orig[c][h[c] - 1] == x:
                    h[c] -= 1
                    return (c,)
            raise AssertionError("a visible card is placed or in place")
        if kind == 1:  # a foundation's top card down to a column
            x = m[1]
            found[x & 3] -= 1
            placed |= 1 << x
            return ()
        if kind == 2:  # the card in place (and what lies on it) moves to a column
            c = m[1]
            h[c] -= 1
            placed |= 1 << orig[c][h[c]]
            return ()
        j, redeal = m[1], m[2]
        w = tal.talon.pop(j)
        undo = (tal.p, tal.passes, w)
        tal.p = j
        if redeal and tal.passes > 0:
            tal.passes -= 1
        if kind == 3:
            found[w & 3] += 1
        else:
            placed |= 1 << w
        return undo

    def undo(m: tuple[int, ...], u: tuple[int, ...]) -> None:
        nonlocal placed
        kind = m[0]
        if kind == 0:
            x = m[1]
            found[x & 3] -= 1
            if u[0] < 0:
                placed |= 1 << x
            else:
                h[u[0]] += 1
        elif kind == 1:
            x = m[1]
            found[x & 3] += 1
            placed ^= 1 << x
        elif kind == 2:
            c = m[1]
            placed ^= 1 << orig[c][h[c]]
            h[c] += 1
        else:
            p, passes, w = u
            if kind == 3:
                found[w & 3] -= 1
            else:
                placed ^= 1 << w
            tal.talon.insert(m[1], w)
            tal.p, tal.passes = p, passes

    seen = {key()}
    if sum(found) == total:
        return Outcome("won", 1, time.perf_counter() - t0)
    Frame = tuple[list[tuple[int, ...]], int, tuple[int, ...] | None, tuple[int, ...] | None]
    stack: list[Frame] = [(moves(), 0, None, None)]
    deadline = t0 + seconds
    while stack:
        ms, i, m_in, u_in = stack[-1]
        if i == len(ms):
            stack.pop()
            if m_in is not None and u_in is not None:
                undo(m_in, u_in)
            continue
        stack[-1] = (ms, i + 1, m_in, u_in)
        m = ms[i]
        u = play(m)
        if sum(found) == total:
            return Outcome("won", len(seen), time.perf_counter() - t0)
        k = key()
        if k in seen:
            undo(m, u)
            continue
        seen.add(k)
        if len(seen) > max_positions or (len(seen) & 1023 == 0 and time.perf_counter() > deadline):
            return Outcome("unknown", len(seen), time.perf_counter() - t0)
        stack.append((moves(), 0, m, u))
    return Outcome("lost", len(seen), time.perf_counter() - t0)
