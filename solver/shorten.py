"""Removing detours from a winning log, every candidate checked by the engine's replay.

Two passes, repeated while they help and time remains:

1. Detours: a card goes X -> Y and later, as the next move out of Y, Y -> Z. Try playing
   it X -> Z at the later point instead (or dropping both moves when Z is X).
2. Deletions: try dropping each single entry.

A candidate is kept only when the whole log still replays to a win, so the result is
always a valid winning log, never longer than the input.
"""

from __future__ import annotations

import re
import time

from engine import Deal, State
from engine.moves import DRAW, REDEAL, T2F, T2T, W2F, W2T, Move

from .log import wins

_PILE = re.compile(r"^(w|t\d+|f\d+)(t\d+|f\d+)(:\d+)?$")


def _trace(deal: Deal, log: list[str]) -> list[tuple[int, str, str, int]]:
    """For each entry: (card moved or -1, source pile text, destination pile text, count)."""
    state = State(deal)
    out = []
    for text in log:
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
    return out


def _detour_pass(deal: Deal, log: list[str], deadline: float) -> list[str]:
    trace = _trace(deal, log)
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
                candidate = log[:i] + log[i + 1 : j] + log[j + 1 :]
            elif x[0] == "f" and z[0] == "f":
                candidate = []
            else:
                candidate = log[:i] + log[i + 1 : j] + [x + z] + log[j + 1 :]
            if candidate and wins(deal, candidate, limit=False):
                log = candidate
                trace = _trace(deal, log)
                continue
        i += 1
    return log


def _deletion_pass(deal: Deal, log: list[str], deadline: float) -> list[str]:
    i = len(log) - 1
    while i >= 0 and time.perf_counter() < deadline:
        candidate = log[:i] + log[i + 1 :]
        if wins(deal, candidate, limit=False):
            log = candidate
        i -= 1
    return log


def shorten(deal: Deal, log: list[str], seconds: float = 1.0) -> list[str]:
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        before = len(log)
        log = _detour_pass(deal, log, deadline)
        log = _deletion_pass(deal, log, deadline)
        if len(log) == before:
            break
    return log
