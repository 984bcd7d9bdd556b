"""What the solver returns."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SolveResult:
    """``status`` is ``solved``, ``unsolvable`` or ``unknown`` (the budget ran out).

    ``moves`` is the winning log in SPEC notation (checked by the engine's replay) when
    solved, else ``None``. ``nodes`` counts moves tried by the search, ``depth`` the
    deepest search path (in branching positions), ``seconds`` the wall time of the whole
    call (search, log shortening and the final replay check).
    """

    game: str
    seed: int | None
    status: str
    moves: list[str] | None = None
    nodes: int = 0
    seconds: float = 0.0
    depth: int = 0
    difficulty: int | None = None
    found_length: int | None = None  # length of the log as found, before shortening
    stats: dict[str, int] = field(default_factory=dict)

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "seed": self.seed,
            "status": self.status,
            "moves": self.moves,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 4),
            "depth": self.depth,
            "difficulty": self.difficulty,
        }
