"""Shortcuts through a winning line: one move in place of a stretch of it.

A depth-first search can wander: its first line to a win may take thousands of moves through
positions it never needed (a Lucas deal of the study was won in 7,460 moves, more than the
service accepts, so the deal stayed undecided). ``shortcut`` walks the line once. At each
position it plays every move ``gen_moves`` offers and looks up the position reached among
the line's later positions, by exact state (columns in order, face-down counts,
foundations, talon, waste/stock split, passes left); it then plays the move that lands
furthest along the line and goes on from there. A position the line passes through twice is
left at its last visit straight away.

Why the result is a win: every move played is legal where it is played (it comes from
``gen_moves`` at that position, or is the line's own next move), and after it the state is
exactly the line's state at the landing point, so the rest of the line applies unchanged
from there. The line only gets shorter: each step moves at least one position on. The log
made from it is replayed by the engine like every win (``log.to_log`` and ``log.wins``).
"""

from __future__ import annotations

import time

from .moves import gen_moves
from .state import SearchMove, SearchState

Exact = tuple[object, ...]


def _exact(st: SearchState) -> Exact:
    return (tuple(map(tuple, st.cols)), tuple(st.down), tuple(st.found), tuple(st.talon), st.p, st.passes)


def shortcut(st: SearchState, path: list[SearchMove], deadline: float) -> list[SearchMove]:
    """``path`` (a line from ``st``, which is left as it was) with shortcuts taken, looking
    for them until ``deadline`` (``time.perf_counter()``); after it the rest is kept as it is."""
    exact = [_exact(st)]
    for m in path:
        st.play(m)
        exact.append(_exact(st))
    for m in reversed(path):
        st.undo(m)
    last = {key: i for i, key in enumerate(exact)}  # each position's last visit
    out: list[SearchMove] = []
    i, n = 0, len(path)
    while True:
        i = last[exact[i]]
        if i >= n:
            break
        best_j, best = i + 1, path[i]
        if time.perf_counter() < deadline:
            for m in gen_moves(st):
                st.play(m)
                j = last.get(_exact(st), -1)
                st.undo(m)
                if j > best_j:
                    best_j, best = j, m
        st.play(best)
        out.append(best)
        i = best_j
    for m in reversed(out):
        st.undo(m)
    return out
