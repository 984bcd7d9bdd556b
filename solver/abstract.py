"""Lemma A: Klondike decided in the image game, which forgets where face-up cards lie.

docs/solver-proofs.md, "Lemma A", has the arguments. A position's *image* keeps the foundations, the talon,
and for each column how many of its dealt cards are still in place (face down, or the face-up card
turned where it was dealt); which parent a moved face-up run lies on is forgotten. The search here
is exhaustive over images: "lost" proves the position lost (Lemma A), and a won image's line is made
into a winning line of the position's own moves by ``realize`` (Claim 2). This is the Python
reference; ``core.Compiled.image`` (``csrc/image.c``) is the same search, position for position.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.moves import W2F, W2T

from .safe import klondike_safe
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


def search(st: SearchState, max_positions: int = 1_000_000, seconds: float = 10.0) -> Outcome:
    """Exhaustive search of the image game from ``st``'s image (one-deck Klondike; face-up cards in one
    run a column). "lost": ``st`` is lost; "won": ``line`` is the image's win, for ``realize``."""
    assert st.klondike and not st.two
    t0 = time.perf_counter()
    ncols = st.ncols
    orig = [tuple(col[: d + 1]) for col, d in zip(st.cols, st.down, strict=True)]
    h = [len(o) for o in orig]
    placed = 0
    for col, d in zip(st.cols, st.down, strict=True):
        for i in range(d + 1, len(col)):
            assert PAR[col[i]] >> col[i - 1] & 1, "a face-up run is built down in alternate colours"
            placed |= 1 << col[i]
    found = list(st.found)
    tal = st.copy()  # its talon, p and passes change as talon cards are played; its columns are not used
    p_in_key = st.p_in_key
    total = 52
    talon_safe = st.draw == 1 and st.passes < 0  # Corollary S: any talon card is at hand

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
        routes = stock_positions(tal)
        # Lemma K: a safe card that is surely on top (what could lie on it is up) goes up, alone.
        for s in range(4):
            r = found[s]
            if r < 13 and klondike_safe(found, r, s):
                x = r * 4 + s
                if vis >> x & 1:
                    return [(0, x)]
                if talon_safe:
                    for j, _d, redeal, _a in routes:
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
            if r and not klondike_safe(found, r - 1, s):  # Corollary K
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
        for j, _draws, redeal, _after in routes:
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
            line = [frame[2] for frame in stack[1:]] + [m]
            won = [(n[0], n[1], n[2] if len(n) > 2 else 0) for n in line if n is not None]
            return Outcome("won", len(seen), time.perf_counter() - t0, won)
        k = key()
        if k in seen:
            undo(m, u)
            continue
        seen.add(k)
        if len(seen) >= max_positions or (len(seen) & 255 == 0 and time.perf_counter() > deadline):
            return Outcome("unknown", len(seen), time.perf_counter() - t0)
        stack.append((moves(), 0, m, u))
    return Outcome("lost", len(seen), time.perf_counter() - t0)


def realize(root: SearchState, line: list[tuple[int, int, int]]) -> list[SearchMove] | None:
    """The deal's own moves that play the won image line ``line`` from ``root`` (docs/solver-proofs.md,
    Lemma A, Claim 2): each image move is one move, an *Up* at most two (what lies on the card first goes onto its
    twin, which then has nothing on it). None if a step cannot be made (the argument says it always can;
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
