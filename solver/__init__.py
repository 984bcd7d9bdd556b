"""The solver: proves a deal winnable (with a winning log) or unwinnable, within a budget.

No Django. ``solve(game, seed)`` / ``solve_deal(deal)`` return a ``SolveResult``. Pieces:
``state`` (compact position and canonical key), ``moves`` (generation, K+ stock moves,
ordering), ``safe`` (safe foundation moves and their proofs), ``dead`` (Lemma D),
``search`` (the loop and the transposition table, in Python: the reference), ``csrc/`` /
``core`` (the same loop compiled, which ``solve`` runs; built by bin/setup, a clear
``CoreMissing`` error when it is not), ``log`` (SPEC notation, checked by the engine),
``shorten`` (detour removal), ``api``.
"""

from .api import difficulty, solve, solve_deal
from .log import SolverBug
from .result import SolveResult
from .search import SOLVED, UNKNOWN, UNSOLVABLE

__all__ = ["SOLVED", "UNKNOWN", "UNSOLVABLE", "SolveResult", "SolverBug", "difficulty", "solve", "solve_deal"]
