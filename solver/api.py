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

# Schedule: the first share of the budget goes to one complete depth-first search (the
# only phase that can prove a deal lost, and often the quickest win); the rest to restarts:
# depth-first searches of at most RESTART_NODES nodes each, with the move order jittered
# (a random bonus below RESTART_NOISE on every move's score, seeded by the restart's
# number, so results stay deterministic under a node budget). A restart can only find
# wins. Measured at 4 s on seeds 1-10/1-20 it beat both plain depth-first search and a
# best-first search in every game (e.g. Klondike 19/20 vs 16/20, Josephine 4/10 vs 2/10).
# In the games with a limited stock and no face-down cards the stock-step beam (``beam``,
# BEAM_SHARE below) runs between the two.
DEPTH_FIRST_SHARE = 0.25
# Klondike: most deals not won at once are lost, and only the complete search proves it.
# Measured on the 96 draw-3 deals the study had left undecided, 400,000 nodes each: the
# complete search alone decided 18 (4 won, 14 lost), the 25% split 13 (6 won, 7 lost);
# 70% keeps all but one of the first's decisions and room for the restarts' wins.
# Those deals were a biased sample (the restarts had failed on them). On fresh deals
# (seeds 1001000-1001099, 500,000 nodes each) draw 3 decided 81 with 70% and 80 with 25%,
# but draw 1 decided 81 with 70% and 85 with 25%: so at first only draw 3 got the larger share.
# With Corollary S (``safe``: draw 1's safe cards from anywhere in the talon) draw 1's proofs of
# loss got cheaper, and at the service's budget the share pays there too (eighth session):
# seeds 1-100 at 10 s decide 95 / 3 / 2 with 25% and 95 / 4 / 1 with 70% (seed 25 is lost in
# 17 M nodes of complete search), and seeds 1000000-1000299 at 2 s 269 / 11 / 20 and 269 / 12 / 19:
# no win lost either way. So both Klondikes give the complete search 70%.
KLONDIKE_DEPTH_FIRST_SHARE = 0.7
# Restarts of 3,000 nodes with a jitter below 2,000 (eighth session; before: 1,000 and 400),
# measured at 2 s per deal on fresh seeds 2001-2040 (solved of 40, old -> new): Forty Thieves
# 13 -> 19 (and seeds 2041-2080: 10 -> 15), Maria 19 -> 27, Josephine 19 -> 21, Forty and Eight
# 33 -> 37, Limited 35 -> 38; Klondike (seeds 1000000-1000299) 269 -> 272 won, Klondike draw 3
# (seeds 1000000-1000199) 154 -> 161, proofs of loss unchanged. Around it (Forty Thieves and
# Maria, solved of 40): jitter 1,000 17 and -, 1,500 18 and 27, 2,500 18 and 27, 4,000 14,
# 8,000 11; 2,000 nodes 18 and 28, 5,000 16 and 25, 10,000 (jitter 1,000) 16. The scores
# being jittered span about 2,000, so the dives follow the order only loosely.
RESTART_NODES = 3000
RESTART_NOISE = 2000
# Half the restarts (drawn by the restart's own generator) do not start from the deal but
# from a random-length prefix of the *best line* so far: the line of the restart that got
# the most cards up (ties: the latest). Progress then accumulates over restarts instead of
# every dive starting over. A prefix is a line of legal moves from the deal, so a win from
# it is prefix + the restart's line, replayed by the engine like every win.
PREFIX_SHARE = 0.5

# Lemma D (``dead``) at every new position of the complete search, not only at the root.
# Measured with the core (seeds 1-20 of every game, 3,000,000 nodes each): the same decided
# counts in every game, 1.5 to 10 times fewer nodes per second, and on the first 1,000,000
# nodes of 30 real Klondike, Klondike-3 and Forty Thieves deals not one cut. So it is off;
# the option stays tested (both searches, random small positions where it does cut).
DEAD_EVERY_NODE = False

# Lemma T (``safe``): in the one-card two-deck games, twin shuffles whose exposed card has no
# use in sight are not generated (complete search and restarts alike). Measured with the
# core (seeds 1-20 of the five games, 3,000,000 nodes each, docs/solver.md): 3 deals more
# decided (68 -> 71 of 100) and 1-31% fewer nodes per game on the deals decided either way,
# for about 10% fewer nodes per second. So it is on.
TWIN_SHUFFLES = True

# Lemma F (``safe``): in Klondike, a foundation's top card is taken down only when a move
# that uses it could follow (complete search and restarts alike). Measured with the core
# (seeds 1-20 and 1000000-1000049 of both Klondikes, 3,000,000 nodes each, docs/solver.md):
# the same decided counts but one draw-3 deal fewer, nodes within 0.1% on the deals decided
# either way, and nodes per second from 18% fewer to 6% more (load). So it is off; the
# option stays tested.
FOUNDATION_POSTPONE = False

# The stock-step beam (``beam``): this share of the budget, between the complete search and the
# restarts, in the games with a limited stock and no face-down cards. 0 turns it off.
BEAM_SHARE = _BEAM_SHARE

# Which search loop runs: "c" (the compiled core, ``core``: the service's) or "python"
# (``search``: the reference the tests hold the core to). Same moves, order and verdicts.
CORES = ("c", "python")

# Share of the budget the log shortening may use (after the search, within the budget).
SHORTEN_SHARE = 0.2
SHORTEN_MAX = 2.0
# Wins of more moves than this first take the shortcuts ``shortcut`` finds through them (a pass
# over a line of this length costs about 0.1 s). A depth-first search's line can wander for
# thousands of moves: a Lucas deal's complete search reached 20 cards left, an empty talon and
# 7 empty columns by move 250, then took 4,700 more moves to dig out a run of 9 clubs one card at
# a time. Before this (ninth session) 18 of the study's 19 undecided Lucas deals (52 rows over its
# runs), and 4 rows of Maria's and 3 of Limited's, were won only by logs longer than the service
# accepts (``MAX_LOG_LENGTH``), so they stayed undecided. A win still too long after its
# shortcuts does not end the search: the restarts go on, and the shortest win is kept.
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
    table_limit: int = 1_500_000,
    shorten_log: bool = True,
    core: str = "c",
    table_mb: float | None = None,
) -> SolveResult:
    """Find a winning log for ``deal`` or prove there is none, within the budget.

    ``core`` picks the search loop (``CORES``); ``table_limit`` bounds the Python table in
    entries, ``table_mb`` the compiled core's in MiB (default: SOLVER_TABLE_MB, see ``core``)."""
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
            table_limit=table_limit,
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
    table_limit: int,
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
            dead=DEAD_EVERY_NODE,
            twins=TWIN_SHUFFLES,
            postpone=FOUNDATION_POSTPONE,
        )
    else:
        outcome = search(
            SearchState(deal),
            deadline=start + share * seconds,
            max_nodes=first_cap,
            table_limit=table_limit,
            dead=DEAD_EVERY_NODE,
            twins=TWIN_SHUFFLES,
            postpone=FOUNDATION_POSTPONE,
        )
    # the complete search's table: what it stored, its capacity, entries it had to replace
    stored, slots, evictions = outcome.stored, outcome.slots, outcome.evictions
    outcome_dead = outcome.dead_cuts
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
            b = beam_search(root, deadline=beam_end, max_nodes=beam_nodes, width=width, twins=TWIN_SHUFFLES, core=core)
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
                twins=TWIN_SHUFFLES,
                postpone=FOUNDATION_POSTPONE,
            )
        else:
            st = SearchState(deal)
            for m in prefix:
                st.play(m)
            outcome = search(
                st,
                deadline=deadline,
                max_nodes=cap,
                table_limit=table_limit,
                rng=rng,
                noise=RESTART_NOISE,
                keep_best=True,
                twins=TWIN_SHUFFLES,
                postpone=FOUNDATION_POSTPONE,
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
            "dead_cuts": outcome_dead,
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
