"""Klondike's image game searched in Python: the reference of ``csrc/image.c`` (``solver.abstract``
has the image, its proof and ``realize``)."""

from __future__ import annotations

import time

from ..abstract import KIDS, KINGS, PAR, TYPE, Outcome, pop
from ..safe import klondike_safe
from ..state import SearchState, stock_positions


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
    talon_safe = st.draw == 1 and st.passes < 0  # The safe move from the talon: any talon card is at hand

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
        # the worry-back safe move: a safe card that is surely on top (what could lie on it is up) goes up, alone.
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
            if r and not klondike_safe(found, r - 1, s):  # safe cards stay up
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
