"""The solver as this app calls it: one small call, ``Solver`` (game, seed, seconds: an outcome), so that a
preparation can be given another one (the tests' scripted solvers, a cheaper budget); ``default_solver``
runs the real one (``solver.solve``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from solver import solve


@dataclass(frozen=True)
class SolveOutcome:
    status: str  # solved / unsolvable / unknown
    moves: list[str]
    nodes: int
    seconds: float
    difficulty: int | None


Solver = Callable[[str, int, float], SolveOutcome]


def default_solver(game: str, seed: int, seconds: float) -> SolveOutcome:
    result = solve(game, seed, seconds=seconds)
    return SolveOutcome(
        status=str(result.status),
        moves=list(result.moves or []),
        nodes=int(result.nodes),
        seconds=float(result.seconds),
        difficulty=getattr(result, "difficulty", None),
    )
