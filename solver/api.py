"""The solver's entry points: ``solve(game, seed)`` and ``solve_deal(deal)``."""

from __future__ import annotations

import dataclasses
import gc
import random
import time

from engine import Deal
from engine import deal as make_deal
from engine.rules import Build, Layout, Unit, as_game, stronger_game

from .abstract import realize
from .beam import beam_applies
from .core import Compiled
from .dead import never_all_up
from .log import SolverBug, log_length, to_log, wins
from .options import DEFAULT, SolveOptions
from .result import SolveResult
from .search import NO_LINE, SOLVED, UNKNOWN, UNSOLVABLE, Searcher
from .shortcut import shortcut
from .shorten import shorten
from .state import SearchMove, SearchState


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
    options: SolveOptions = DEFAULT,
) -> SolveResult:
    """Find a winning log for ``deal`` or prove there is none, within the budget.

    Every phase runs on the one ``searcher``: the compiled core (``core.Compiled``, with its
    table bounded by ``table_mb`` MiB, default SOLVER_TABLE_MB; a clear error when it is not
    built, never a silent slow fallback), or what a test hands in (``reference.PYTHON``). ``options``:
    the schedule's tuning (``options.SolveOptions``; the default is the shipped schedule)."""
    if searcher is None:
        searcher = Compiled(table_mb)
    # The search makes millions of small objects and no reference cycles: the cyclic
    # collector would only rescan them (seconds at a time, breaking the time budget).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _Schedule(deal, searcher, seconds, max_nodes, options).run(shorten_log)
    finally:
        if enabled:
            gc.enable()


class _Schedule:
    """One solve: the phases, each a use of the one ``searcher``, and what they found."""

    def __init__(
        self, deal: Deal, searcher: Searcher, seconds: float, max_nodes: int | None, options: SolveOptions
    ) -> None:
        self.deal, self.searcher, self.seconds, self.max_nodes = deal, searcher, seconds, max_nodes
        self.options = o = options
        self.start = time.perf_counter()
        self.deadline = self.start + seconds
        self.share = o.klondike_depth_first_share if deal.rules.layout is Layout.KLONDIKE else o.depth_first_share
        self.relaxed_deal = relaxation(deal) if o.relaxed_share > 0 else None
        if self.relaxed_deal is not None:
            self.share = o.relaxed_depth_first_share
        self.prune = o.prune and deal.rules.build is Build.SUIT and deal.rules.unit is Unit.CARD
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
        if never_all_up(self.root):  # never-all-up: some card can never go up, whatever is played
            self.lost = True
            self.stats["never_all_up"] = 1
            return self.result(shorten_log)
        self.complete()
        if self.open() and self.options.image_share > 0 and self.deal.rules.layout is Layout.KLONDIKE:
            self.image()
        if self.open() and self.relaxed_deal is not None:
            self.relaxed(self.relaxed_deal)
        if self.open() and self.options.beam_share > 0 and beam_applies(self.root):
            self.beam()
        if self.open():
            self.restart()
        return self.result(shorten_log)

    def settle(self, win: list[SearchMove]) -> None:
        """Keep ``win``, its shortcuts taken, if its log is one the service accepts; else (won,
        but too long a log) the search goes on, and the shortest such win waits in ``long_win``."""
        self.found_length = self.found_length or log_length(win)
        if len(win) > self.options.shortcut_from:
            win = shortcut(SearchState(self.deal), win, self.deadline)
        if log_length(win) <= self.options.max_log_length:
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
            dominate=self.options.dominate,
        )
        self.nodes, self.depth, self.first_left = out.nodes, out.depth, out.best_left
        # its table: what it stored, its capacity, entries it had to replace
        self.stats.update(table_stored=out.stored, table_slots=out.slots, evictions=out.evictions)
        self.lost = out.status == UNSOLVABLE
        if out.status == SOLVED:
            self.settle(out.path)

    def image(self) -> None:
        """A complete search of the image game (``abstract``); if that is lost, so is the deal."""
        cap = None if self.max_nodes is None else max(1, int(self.options.image_share * self.max_nodes))
        end = min(self.deadline, time.perf_counter() + self.options.image_share * self.seconds)
        out = self.searcher.image(self.root, deadline=end, max_positions=cap)
        self.nodes += out.positions
        self.stats["image_positions"] = out.positions
        if out.status == "lost":
            self.lost = True
            self.stats["image"] = 1
        elif out.status == "won":  # "a won image is a win": the image's line made of the deal's own moves
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
        cap = None if self.max_nodes is None else max(1, int(self.options.relaxed_share * self.max_nodes))
        end = min(self.deadline, time.perf_counter() + self.options.relaxed_share * self.seconds)
        out = self.searcher.search(SearchState(deal), deadline=end, max_nodes=cap, prune=False)
        self.nodes += out.nodes
        self.stats["relaxed_nodes"] = out.nodes
        if out.status == UNSOLVABLE:
            self.lost = True
            self.stats["relaxed"] = 1

    def beam(self) -> None:
        """Stock-step beams of growing width, within ``beam_share`` of the budget: win-finders."""
        end = self.start + (self.share + self.options.beam_share) * self.seconds
        nodes = None if self.max_nodes is None else int(self.options.beam_share * self.max_nodes)
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
        o = self.options
        while self.win is None and time.perf_counter() < self.deadline:
            cap = o.restart_nodes if self.max_nodes is None else min(o.restart_nodes, self.max_nodes - self.nodes)
            if cap <= 0:
                break
            self.restarts += 1
            rng = random.Random(self.restarts)
            prefix: list[SearchMove] = []
            if self.best_line and rng.random() < o.prefix_share:
                prefix = self.best_line[: rng.randint(0, len(self.best_line))]
            # the core plays the prefix and draws the same numbers from ``rng`` as the reference
            out = self.searcher.search(
                self.root,
                deadline=self.deadline,
                max_nodes=cap,
                rng=rng,
                noise=o.restart_noise,
                keep_best=True,
                prefix=prefix,
                prune=False,  # a win-finder: the pruning's cost, not its proofs (``prune``)
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
            too_long = len(log) > self.options.max_log_length
            wanted = shorten_log and rules.layout is not Layout.KLONDIKE  # Klondike: the note at ``shorten_share``
            if wanted or too_long:
                allowed = min(self.options.shorten_max, self.options.shorten_share * self.seconds)
                budget = min(allowed, self.deadline - time.perf_counter())
                if too_long:  # a win in hand is not lost for want of time
                    budget = allowed
                if budget > 0:
                    log = shorten(deal, log, budget)
            if len(log) > self.options.max_log_length:
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
    game: str,
    seed: int,
    *,
    seconds: float = 10,
    max_nodes: int | None = None,
    searcher: Searcher | None = None,
    options: SolveOptions = DEFAULT,
) -> SolveResult:
    """Solve the deal of (game, seed); ``UnknownGameError``/``InvalidSeedError`` on bad input."""
    deal = make_deal(game, seed)
    return solve_deal(deal, seconds=seconds, max_nodes=max_nodes, searcher=searcher, options=options)
