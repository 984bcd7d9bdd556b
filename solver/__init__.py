"""The solver: proves a deal winnable (with a winning log) or unwinnable, within a budget.

No Django. ``solve(game, seed)`` / ``solve_deal(deal)`` return a ``SolveResult``; ``SolveOptions``
is the schedule's tuning (the default is the shipped schedule). The service's pieces: ``api`` (the
entry points and the budget schedule), ``core`` (the compiled search, ``csrc/``, which every phase
runs; built by bin/setup, a clear ``CoreMissing`` error when it is not), ``search`` (the phases'
interface and the loop's proof of soundness), ``state`` (compact position and canonical key),
``moves`` (generation, K+ stock moves, ordering), ``safe`` (the safe moves' proofs), ``dead``
(never-all-up, a proof of loss without search), ``beam`` (the stock-step beam's tuning),
``abstract`` (Klondike's image game and ``realize``), ``log`` (SPEC notation, checked by the
engine), ``shortcut`` and ``shorten`` (shorter winning logs), ``review`` (the game review).
``reference`` is the tests' Python statement of what the core does; the service never imports it.
"""

from .api import difficulty, solve, solve_deal
from .log import SolverBug
from .options import SolveOptions
from .result import SolveResult
from .search import SOLVED, UNKNOWN, UNSOLVABLE

__all__ = [
    "SOLVED",
    "UNKNOWN",
    "UNSOLVABLE",
    "SolveOptions",
    "SolveResult",
    "SolverBug",
    "difficulty",
    "solve",
    "solve_deal",
]
