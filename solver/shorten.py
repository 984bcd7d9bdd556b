"""Removing detours from a winning log, every candidate checked by the engine's replay.

Two passes, repeated while they help and time remains:

1. Detours: a card goes X -> Y and later, as the next move out of Y, Y -> Z. Try playing
   it X -> Z at the later point instead (or dropping both moves when Z is X).
2. Deletions: try dropping each single entry.

A candidate is kept only when the whole log still replays to a win, so the result is
always a valid winning log, never longer than the input. A candidate shares the log's entries
before its change, which replay to the same position as in the log (legal, and not yet won: a
winning log wins only at its last entry), so it is replayed from that position
(``State.as_deal``), kept for each entry, not from the deal: the same verdict, and most
candidates fail a few entries after the change, so this is several times faster.
"""

from __future__ import annotations

import re
import time

from engine import Deal, State
from engine.moves import DRAW, REDEAL, T2F, T2T, W2F, W2T, Move

from .log import wins_from

_PILE = re.compile(r"^(w|t\d+|f\d+)(t\d+|f\d+)(:\d+)?$")


def _trace(deal: Deal, log: list[str]) -> tuple[list[tuple[int, str, str, int]], list[Deal]]:
    """For each entry: (card moved or -1, source pile text, destination pile text, count), and
    the position it is played from, as a deal to start from."""
    state = State(deal)
    out = []
    at = []
    for text in log:
        at.append(state.as_deal())
        move = Move.parse(text)
        card = -1
        if move.kind in (T2T, T2F):
            card = state.tab[move.src][-move.n]
        elif move.kind in (W2T, W2F):
            card = state.waste[-1]
        state.play(move)
        m = _PILE.match(text)
        if m is None or move.kind in (DRAW, REDEAL):
            out.append((-1, "", "", 0))
        else:
            out.append((card, m.group(1), m.group(2), move.n))
    return out, at


def _detour_pass(deal: Deal, log: list[str], deadline: float) -> tuple[list[str], list[Deal]]:
    """The log with detours taken out, and the position before each of its entries."""
    trace, at = _trace(deal, log)
    i = 0
    while i < len(log) and time.perf_counter() < deadline:
        card, x, y, n = trace[i]
        j = -1
        if card >= 0 and n == 1 and y[0] == "t":
            for k in range(i + 1, len(log)):
                c2, src, dst, n2 = trace[k]
                if src == y:
                    if c2 == card and n2 == 1:
                        j = k
                    break
                if dst == y:
                    break
        if j >= 0:
            z = trace[j][2]
            if z == x:
                rest = log[i + 1 : j] + log[j + 1 :]
            elif x[0] == "f" and z[0] == "f":
                rest = []
            else:
                rest = [*log[i + 1 : j], x + z, *log[j + 1 :]]
            if rest and wins_from(State(at[i]), rest):
                log = log[:i] + rest
                trace[i:], at[i:] = _trace(at[i], rest)  # the entries before i are as they were
                continue
        i += 1
    return log, at


def _deletion_pass(log: list[str], at: list[Deal], deadline: float) -> list[str]:
    """``at``: the position before each entry (a deletion at i leaves those before i as they are)."""
    i = len(log) - 1
    while i >= 0 and time.perf_counter() < deadline:
        if wins_from(State(at[i]), log[i + 1 :]):
            log = log[:i] + log[i + 1 :]
        i -= 1
    return log


def shorten(deal: Deal, log: list[str], seconds: float = 1.0) -> list[str]:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        before = len(log)
        log, at = _detour_pass(deal, log, deadline)
        log = _deletion_pass(log, at, deadline)
        if len(log) == before:
            break
    return log
