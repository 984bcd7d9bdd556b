"""The solver's entry points: ``solve(game, seed)`` and ``solve_deal(deal)``."""

from __future__ import annotations

import dataclasses
import gc
import random
import time

from engine import MAX_LOG_LENGTH, Deal
from engine import deal as make_deal
from engine.rules import Build, Layout, Unit, as_game, stronger_game

from .abstract import realize
from .beam import beam_applies
from .core import Compiled
from .dead import never_all_up
from .log import SolverBug, log_length, to_log, wins
from .result import SolveResult
from .search import NO_LINE, SOLVED, UNKNOWN, UNSOLVABLE, Searcher
from .shortcut import shortcut
from .shorten import shorten
from .state import SearchMove, SearchState

# The schedule (docs/solver.md, "The schedule's constants", says why each figure; the runs are in
# docs/winnability/measurements.md): Lemma S first (``dead.never_all_up``: a proof of loss without
# search, a few ms, in the one-pass games), then one complete depth-first search (outside Klondike
# the only other phase that proves a loss), then in Klondike the image game (Lemma A: it decides won
# and lost alike) and in draw 3 the draw-1 search, in the games with a limited stock and no
# face-down cards the stock-step beam, then restarts.
DEPTH_FIRST_SHARE = 0.25
KLONDIKE_DEPTH_FIRST_SHARE = 0.1  # then Lemma A's image game (IMAGE_SHARE) decides what is left
# Restarts: capped dives with the move order jittered (seeded by the restart's number, so
# deterministic under a node budget); half start from a prefix of the best line so far.
RESTART_NODES = 3000
RESTART_NOISE = 2000
PREFIX_SHARE = 0.5
BEAM_SHARE = 0.4  # then up to this share goes to the beam (0 turns it off); the restarts get the rest
# Lemma S at every position the complete search enters (one card drawn, passes limited; elsewhere it
# returns at once): a lost subtree is cut at its root. The search enters about a third as many
# positions a second, so the restarts, which only look for wins, go without it. Only where one card
# moves at a time onto its own suit: in Maria (alternate colours: four possible hosts a card) and
# Josephine (runs move whole) it proved no deal the root check had not, and only cost time.
# Measurements in docs/winnability/measurements.md. Lemma S at the root stays, in every game.
PRUNE = True
# Lemma W (``dominance``) in the complete search: a position with dead-weight cards buried in its
# waste is left out when the position with them up is in the table (two decks, one card drawn at
# a time; elsewhere it does nothing). Forty Thieves seed 97 is proven lost in 119,652 nodes
# instead of 1,292,676. Measurements in docs/winnability/measurements.md ("Rules measured").
DOMINATE = True

# Klondike draw 3 is lost when the same deal is lost drawing one card at a time
# (``engine.rules.weaker_game``: every draw-3 line is a draw-1 line). Drawing one with unlimited
# redeals, every stock card is always within reach, so where the stock stands is no part of a
# position and the complete search ends in far fewer positions: the study's draw-1 search proved
# 34 deals lost in 0.3-7 s that draw 3's own search left undecided after 10 s. So where there is
# such a relaxation (``relaxation``) its complete search runs after the game's own, which gets
# RELAXED_DEPTH_FIRST_SHARE instead of the Klondike share; it only proves losses, and ends at
# its first win. Measured at 10 s (docs/winnability/measurements.md): it proves 17 of those 34 deals lost, against
# 4 without it; the share it takes costs the proofs that need 6-7 s (15 in the study's 10,000).
RELAXED_SHARE = 0.15
RELAXED_DEPTH_FIRST_SHARE = 0.1  # draw 3's own complete search, before the image game

# Lemma A (``abstract``, docs/solver-proofs.md): Klondike's image game, which forgets where face-up cards
# lie, is won exactly when the deal is (a won image's line is realized as the deal's win), and its
# complete search ends in far fewer positions than the deal's own. It runs after a short complete
# search (which wins most deals in a millisecond), within IMAGE_SHARE.
IMAGE_SHARE = 0.75

# Log shortening: this share of the budget, within it; wins longer than SHORTCUT_FROM moves
# first take the shortcuts ``shortcut`` finds (a depth-first line can wander for thousands).
SHORTEN_SHARE = 0.2
SHORTEN_MAX = 2.0
SHORTCUT_FROM = 1000
# Klondike's wins hardly have detours: on 49 study wins found after 0.3-10 s the passes took out
# 0.5-0.7% of the moves (median 1, at most 6), at 13-22 ms of Python, most of a median call
# (docs/solver.md, "Shortening"). So there they run only for a log the service would refuse.


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
    table_mb: float | None = None,
    searcher: Searcher | None = None,
) -> SolveResult:
    """Find a winning log for ``deal`` or prove there is none, within the budget.

    Every phase runs on the one ``searcher``: the compiled core (``core.Compiled``, with its
    table bounded by ``table_mb`` MiB, default SOLVER_TABLE_MB; a clear error when it is not
    built, never a silent slow fallback), or what a test hands in (``reference.PYTHON``)."""
    if searcher is None:
        searcher = Compiled(table_mb)
    # The search makes millions of small objects and no reference cycles: the cyclic
    # collector would only rescan them (seconds at a time, breaking the time budget).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _Schedule(deal, searcher, seconds, max_nodes).run(shorten_log)
    finally:
        if enabled:
            gc.enable()


class _Schedule:
    """One solve: the phases, each a use of the one ``searcher``, and what they found."""

    def __init__(self, deal: Deal, searcher: Searcher, seconds: float, max_nodes: int | None) -> None:
        self.deal, self.searcher, self.seconds, self.max_nodes = deal, searcher, seconds, max_nodes
        self.start = time.perf_counter()
        self.deadline = self.start + seconds
        self.share = KLONDIKE_DEPTH_FIRST_SHARE if deal.rules.layout is Layout.KLONDIKE else DEPTH_FIRST_SHARE
        self.relaxed_deal = relaxation(deal) if RELAXED_SHARE > 0 else None
        if self.relaxed_deal is not None:
            self.share = RELAXED_DEPTH_FIRST_SHARE
        self.prune = PRUNE and deal.rules.build is Build.SUIT and deal.rules.unit is Unit.CARD
        self.root = SearchState(deal)  # the searches only read it: every phase starts from it
        self.nodes = self.depth = self.restarts = self.beams = 0
        self.lost = False
        self.win: list[SearchMove] | None = None  # a win whose log the service accepts
        self.long_win: list[SearchMove] = []  # the shortest win so far whose log is too long
        self.found_length = 0  # the log length of the first win found, before any shortening
        self.best_line: list[SearchMove] = []  # the line that got the most cards up (restarts grow it)
        self.line_left = self.first_left = NO_LINE
        self.stats: dict[str, int] = {}

    def open(self) -> bool:
        return self.win is None and not self.lost

    def run(self, shorten_log: bool) -> SolveResult:
        if never_all_up(self.root):  # Lemma S: some card can never go up, whatever is played
            self.lost = True
            self.stats["lemma_s"] = 1
            return self.result(shorten_log)
        self.complete()
        if self.open() and IMAGE_SHARE > 0 and self.deal.rules.layout is Layout.KLONDIKE:
            self.image()
        if self.open() and self.relaxed_deal is not None:
            self.relaxed(self.relaxed_deal)
        if self.open() and BEAM_SHARE > 0 and beam_applies(self.root):
            self.beam()
        if self.open():
            self.restart()
        return self.result(shorten_log)

    def settle(self, win: list[SearchMove]) -> None:
        """Keep ``win``, its shortcuts taken, if its log is one the service accepts; else (won,
        but too long a log) the search goes on, and the shortest such win waits in ``long_win``."""
        self.found_length = self.found_length or log_length(win)
        if len(win) > SHORTCUT_FROM:
            win = shortcut(SearchState(self.deal), win, self.deadline)
        if log_length(win) <= MAX_LOG_LENGTH:
            self.win = win
        elif not self.long_win or len(win) < len(self.long_win):
            self.long_win = win

    def complete(self) -> None:
        """One complete depth-first search: the only phase that proves a loss."""
        cap = None if self.max_nodes is None else max(1, int(self.share * self.max_nodes))
        out = self.searcher.search(
            self.root,
            deadline=self.start + self.share * self.seconds,
            max_nodes=cap,
            prune=self.prune,
            dominate=DOMINATE,
        )
        self.nodes, self.depth, self.first_left = out.nodes, out.depth, out.best_left
        # its table: what it stored, its capacity, entries it had to replace
        self.stats.update(table_stored=out.stored, table_slots=out.slots, evictions=out.evictions)
        self.lost = out.status == UNSOLVABLE
        if out.status == SOLVED:
            self.settle(out.path)

    def image(self) -> None:
        """Lemma A: a complete search of the image game (``abstract``); if that is lost, so is the deal."""
        cap = None if self.max_nodes is None else max(1, int(IMAGE_SHARE * self.max_nodes))
        end = min(self.deadline, time.perf_counter() + IMAGE_SHARE * self.seconds)
        out = self.searcher.image(self.root, deadline=end, max_positions=cap)
        self.nodes += out.positions
        self.stats["image_positions"] = out.positions
        if out.status == "lost":
            self.lost = True
            self.stats["image"] = 1
        elif out.status == "won":  # Claim 2: the image's line made of the deal's own moves
            self.stats["image_won"] = 1
            line = realize(self.root, out.line)
            try:  # the engine has the last word on every move (result() replays the win again)
                real = line is not None and bool(to_log(self.deal, line))
            except SolverBug:
                real = False
            if line is not None and real:
                self.settle(line)
            else:
                self.stats["image_unrealized"] = 1

    def relaxed(self, deal: Deal) -> None:
        """A complete search of ``relaxation(deal)``: if that game is lost, so is this one."""
        cap = None if self.max_nodes is None else max(1, int(RELAXED_SHARE * self.max_nodes))
        end = min(self.deadline, time.perf_counter() + RELAXED_SHARE * self.seconds)
        out = self.searcher.search(SearchState(deal), deadline=end, max_nodes=cap, prune=False)
        self.nodes += out.nodes
        self.stats["relaxed_nodes"] = out.nodes
        if out.status == UNSOLVABLE:
            self.lost = True
            self.stats["relaxed"] = 1

    def beam(self) -> None:
        """Stock-step beams of growing width, within BEAM_SHARE of the budget: win-finders."""
        end = self.start + (self.share + BEAM_SHARE) * self.seconds
        nodes = None if self.max_nodes is None else int(BEAM_SHARE * self.max_nodes)
        for width in self.searcher.beam_widths():
            if time.perf_counter() >= end or (nodes is not None and nodes <= 0):
                break
            b = self.searcher.beam(self.root, deadline=end, max_nodes=nodes, width=width)
            self.nodes += b.nodes
            if nodes is not None:
                nodes -= b.nodes
            self.beams += 1
            if b.status == SOLVED:
                self.settle(b.path)
                if self.win is not None:
                    break
            elif b.best_left < self.line_left and b.best_path:
                self.best_line, self.line_left = b.best_path, b.best_left

    def restart(self) -> None:
        """Capped dives with a jittered move order until the budget is spent: win-finders."""
        while self.win is None and time.perf_counter() < self.deadline:
            cap = RESTART_NODES if self.max_nodes is None else min(RESTART_NODES, self.max_nodes - self.nodes)
            if cap <= 0:
                break
            self.restarts += 1
            rng = random.Random(self.restarts)
            prefix: list[SearchMove] = []
            if self.best_line and rng.random() < PREFIX_SHARE:
                prefix = self.best_line[: rng.randint(0, len(self.best_line))]
            # the core plays the prefix and draws the same numbers from ``rng`` as the reference
            out = self.searcher.search(
                self.root,
                deadline=self.deadline,
                max_nodes=cap,
                rng=rng,
                noise=RESTART_NOISE,
                keep_best=True,
                prefix=prefix,
                prune=False,  # a win-finder: the pruning's cost, not its proofs (PRUNE)
            )
            self.nodes += out.nodes
            self.depth = max(self.depth, out.depth)
            if out.status == SOLVED:
                self.settle(prefix + out.path)
            elif out.best_left <= self.line_left:
                self.best_line = prefix + out.best_path
                self.line_left = out.best_left

    def result(self, shorten_log: bool) -> SolveResult:
        """The verdict, and for a win its log: translated, shortened, and replayed by the engine."""
        deal, rules = self.deal, self.deal.rules
        won = self.win is not None or bool(self.long_win)  # the shortening below may yet fit a long win
        path = self.win if self.win is not None else self.long_win
        status = SOLVED if won else UNSOLVABLE if self.lost else UNKNOWN
        decided_at = time.perf_counter()  # the verdict is known: the rest is the log's translation and shortening
        result = SolveResult(
            game=rules.game,
            seed=deal.seed,
            status=status,
            nodes=self.nodes,
            depth=self.depth,
            stats={
                **self.stats,
                "restarts": self.restarts,
                "beams": self.beams,
                "decide_us": int((decided_at - self.start) * 1e6),
            },
        )
        # fewest cards off the foundations on any line searched (0: won); none when no line was
        # followed (a proof of loss before any search, or a search that kept no count)
        left = 0 if status == SOLVED else min(self.line_left, self.first_left)
        if left < NO_LINE:
            result.stats["best_left"] = left
        if status == SOLVED:
            log = to_log(deal, path)  # replays every entry with the engine
            result.found_length = self.found_length
            too_long = len(log) > MAX_LOG_LENGTH
            wanted = shorten_log and rules.layout is not Layout.KLONDIKE  # Klondike: the note at SHORTEN_SHARE
            if wanted or too_long:
                allowed = min(SHORTEN_MAX, SHORTEN_SHARE * self.seconds)
                budget = min(allowed, self.deadline - time.perf_counter())
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
                result.difficulty = difficulty(self.nodes, log, rules.cards)
        result.seconds = time.perf_counter() - self.start
        return result


def relaxation(deal: Deal) -> Deal | None:
    """The same deal (or mid-game position) under the rules of its stronger game, when a complete
    search of that game keeps no place in the stock in its positions and this game's does: Klondike
    (draw 1) for Klondike draw 3. Else None: Josephine holds every Forty Thieves line, but its
    search is the larger one (and the study has no Josephine loss Forty Thieves lacked)."""
    rules = deal.rules
    game = stronger_game(rules)
    if game is None:
        return None
    strong = as_game(rules, game)  # on this deal's shape (a test's variant may have fewer columns)
    if not (rules.draw > 1 and strong.draw == 1 and strong.passes is None):
        return None
    return dataclasses.replace(deal, rules=strong)


def solve(
    game: str, seed: int, *, seconds: float = 10, max_nodes: int | None = None, searcher: Searcher | None = None
) -> SolveResult:
    """Solve the deal of (game, seed); ``UnknownGameError``/``InvalidSeedError`` on bad input."""
    return solve_deal(make_deal(game, seed), seconds=seconds, max_nodes=max_nodes, searcher=searcher)
