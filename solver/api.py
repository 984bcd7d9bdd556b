"""The solver's entry points: ``solve(game, seed)`` and ``solve_deal(deal)``."""

from __future__ import annotations

import gc
import random
import time

from engine import MAX_LOG_LENGTH, Deal
from engine import deal as make_deal
from engine.rules import Layout

from . import core as c_core
from .beam import BEAM_SHARE as _BEAM_SHARE
from .beam import BEAM_WIDTHS, beam_applies, beam_search, widths_within
from .log import SolverBug, log_length, to_log, wins
from .result import SolveResult
from .search import SOLVED, UNKNOWN, search
from .shortcut import shortcut
from .shorten import shorten
from .state import SearchMove, SearchState

# The schedule (docs/solver.md, "The schedule's constants", has the measurements behind each
# figure): one complete depth-first search first (the only phase that proves a loss), then, in
# the games with a limited stock and no face-down cards, the stock-step beam, then restarts.
DEPTH_FIRST_SHARE = 0.25
KLONDIKE_DEPTH_FIRST_SHARE = 0.7  # most Klondike deals not won at once are lost: proofs need room
# Restarts: capped dives with the move order jittered (seeded by the restart's number, so
# deterministic under a node budget); half start from a prefix of the best line so far.
RESTART_NODES = 3000
RESTART_NOISE = 2000
PREFIX_SHARE = 0.5
BEAM_SHARE = _BEAM_SHARE  # 0 turns the beam off

# Which search loop runs: "c" (the compiled core, ``core``: the service's) or "python"
# (``search``: the reference the tests hold the core to). Same moves, order and verdicts.
CORES = ("c", "python")

# Log shortening: this share of the budget, within it; wins longer than SHORTCUT_FROM moves
# first take the shortcuts ``shortcut`` finds (a depth-first line can wander for thousands).
SHORTEN_SHARE = 0.2
SHORTEN_MAX = 2.0
SHORTCUT_FROM = 1000


def difficulty(nodes: int, log: list[str], cards: int) -> int:
    """1 (easy) .. 5 (hard) from search effort and solution length; see docs/solver.md.

    Effort: nodes the depth-first search needed, by decades (<=100 -> 1, <=1,000 -> 2,
    <=10,000 -> 3, <=100,000 -> 4, more -> 5). Length: playing moves (draws and redeals
    aside) per card; a line longer than 1.6 moves per card adds one, shorter than 1.2
    takes one away. Clamped to 1..5.
    """
    level = 1
    bound = 100
    while nodes > bound and level < 5:
        level += 1
        bound *= 10
    plays = sum(1 for t in log if t not in ("s", "r"))
    ratio = plays / cards
    if ratio > 1.6:
        level += 1
    elif ratio < 1.2:
        level -= 1
    return max(1, min(5, level))


def solve_deal(
    deal: Deal,
    *,
    seconds: float = 10,
    max_nodes: int | None = None,
    shorten_log: bool = True,
    core: str = "c",
    table_mb: float | None = None,
) -> SolveResult:
    """Find a winning log for ``deal`` or prove there is none, within the budget.

    ``core`` picks the search loop (``CORES``); ``table_mb`` bounds the compiled core's table in
    MiB (default: SOLVER_TABLE_MB, see ``core``)."""
    if core not in CORES:
        raise ValueError(f"core must be one of {CORES}, not {core!r}")
    if core == "c":
        c_core.require()  # a clear error, not a silent slow fallback
    # The search makes millions of small objects and no reference cycles: the cyclic
    # collector would only rescan them (seconds at a time, breaking the time budget).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _solve_deal(
            deal,
            seconds=seconds,
            max_nodes=max_nodes,
            shorten_log=shorten_log,
            core=core,
            table_mb=table_mb,
        )
    finally:
        if enabled:
            gc.enable()


def _solve_deal(
    deal: Deal,
    *,
    seconds: float,
    max_nodes: int | None,
    shorten_log: bool,
    core: str,
    table_mb: float | None,
) -> SolveResult:
    start = time.perf_counter()
    deadline = start + seconds
    rules = deal.rules
    share = KLONDIKE_DEPTH_FIRST_SHARE if rules.layout is Layout.KLONDIKE else DEPTH_FIRST_SHARE
    first_cap = None if max_nodes is None else max(1, int(share * max_nodes))
    root = SearchState(deal)  # the core only reads it: every restart starts from this one
    if core == "c":
        outcome = c_core.search(
            root,
            deadline=start + share * seconds,
            max_nodes=first_cap,
            mb=table_mb,
        )
    else:
        outcome = search(
            SearchState(deal),
            deadline=start + share * seconds,
            max_nodes=first_cap,
        )
    # the complete search's table: what it stored, its capacity, entries it had to replace
    stored, slots, evictions = outcome.stored, outcome.slots, outcome.evictions
    total, depth, restarts, beams = outcome.nodes, outcome.depth, 0, 0
    first_left = outcome.best_left
    best_line: list[SearchMove] = []
    line_left = 1 << 30
    found_length = 0  # the log length of the first win found, before any shortening
    long_win: list[SearchMove] = []  # the shortest win so far whose log is too long

    def settle(win: list[SearchMove]) -> None:
        """Keep ``win`` as the outcome's line, its shortcuts taken, if its log is one the
        service accepts; else (won, but too long a log) the restarts go on, and the shortest
        such win waits in ``long_win``."""
        nonlocal found_length, long_win
        found_length = found_length or log_length(win)
        if len(win) > SHORTCUT_FROM:
            win = shortcut(SearchState(deal), win, deadline)
        if log_length(win) <= MAX_LOG_LENGTH:
            outcome.path = win
            return
        outcome.status = UNKNOWN
        if not long_win or len(win) < len(long_win):
            long_win = win

    if outcome.status == SOLVED:
        settle(outcome.path)
    if outcome.status == UNKNOWN and BEAM_SHARE > 0 and beam_applies(root):
        beam_end = start + (share + BEAM_SHARE) * seconds
        beam_nodes = None if max_nodes is None else int(BEAM_SHARE * max_nodes)
        mb = (table_mb if table_mb is not None else c_core.table_mb()) if core == "c" else float("inf")
        for width in widths_within(mb, BEAM_WIDTHS):  # the beam stays within the table's memory bound
            if time.perf_counter() >= beam_end or (beam_nodes is not None and beam_nodes <= 0):
                break
            b = beam_search(root, deadline=beam_end, max_nodes=beam_nodes, width=width, core=core)
            total += b.nodes
            if beam_nodes is not None:
                beam_nodes -= b.nodes
            beams += 1
            if b.status == SOLVED:
                outcome.status = SOLVED
                settle(b.path)
                if outcome.status == SOLVED:
                    break
            elif b.best_left < line_left and b.best_path:
                best_line, line_left = b.best_path, b.best_left
    while outcome.status == UNKNOWN and time.perf_counter() < deadline:
        cap = RESTART_NODES if max_nodes is None else min(RESTART_NODES, max_nodes - total)
        if cap <= 0:
            break
        restarts += 1
        rng = random.Random(restarts)
        prefix: list[SearchMove] = []
        if best_line and rng.random() < PREFIX_SHARE:
            prefix = best_line[: rng.randint(0, len(best_line))]
        if core == "c":  # the core plays the prefix and draws the same numbers from ``rng``
            outcome = c_core.search(
                root,
                deadline=deadline,
                max_nodes=cap,
                mb=table_mb,
                rng=rng,
                noise=RESTART_NOISE,
                keep_best=True,
                prefix=prefix,
            )
        else:
            st = SearchState(deal)
            for m in prefix:
                st.play(m)
            outcome = search(
                st,
                deadline=deadline,
                max_nodes=cap,
                rng=rng,
                noise=RESTART_NOISE,
                keep_best=True,
            )
        total += outcome.nodes
        depth = max(depth, outcome.depth)
        if outcome.status == SOLVED:
            settle(prefix + outcome.path)
        elif outcome.best_left <= line_left:
            best_line = prefix + outcome.best_path
            line_left = outcome.best_left
        if outcome.status != SOLVED:
            outcome.status = UNKNOWN  # a restart proves nothing
    if outcome.status != SOLVED and long_win:
        outcome.status, outcome.path = SOLVED, long_win  # the shortening below may yet fit it
    outcome.nodes, outcome.depth = total, depth
    decided_at = time.perf_counter()  # the verdict is known: the rest is the log's translation and shortening
    result = SolveResult(
        game=rules.game,
        seed=deal.seed,
        status=outcome.status,
        nodes=outcome.nodes,
        depth=outcome.depth,
        stats={
            "evictions": evictions,
            "restarts": restarts,
            "beams": beams,
            "table_stored": stored,
            "table_slots": slots,
            "decide_us": int((decided_at - start) * 1e6),
            # fewest cards off the foundations on any line searched (0: won)
            "best_left": 0 if outcome.status == SOLVED else min(line_left, first_left),
        },
    )
    if outcome.status == SOLVED:
        log = to_log(deal, outcome.path)  # replays every entry with the engine
        result.found_length = found_length
        too_long = len(log) > MAX_LOG_LENGTH
        if shorten_log or too_long:
            allowed = min(SHORTEN_MAX, SHORTEN_SHARE * seconds)
            budget = min(allowed, deadline - time.perf_counter())
            if too_long:  # a win in hand is not lost for want of time
                budget = allowed
            if budget > 0:
                log = shorten(deal, log, budget)
        if len(log) > MAX_LOG_LENGTH:
            # Won, but no log the service would accept, even after shortcuts, restarts and
            # shortening: not a usable proof.
            result.status = UNKNOWN
            result.stats["too_long"] = len(log)
        elif not wins(deal, log):  # final self-check, independent of the search
            raise SolverBug("the returned log does not replay to a win")
        else:
            result.moves = log
            result.difficulty = difficulty(outcome.nodes, log, rules.cards)
    result.seconds = time.perf_counter() - start
    return result


def solve(game: str, seed: int, *, seconds: float = 10, max_nodes: int | None = None, core: str = "c") -> SolveResult:
    """Solve the deal of (game, seed); ``UnknownGameError``/``InvalidSeedError`` on bad input."""
    return solve_deal(make_deal(game, seed), seconds=seconds, max_nodes=max_nodes, core=core)
