"""From the solver's moves to a SPEC move log, checked move by move by the engine."""

from __future__ import annotations

from collections.abc import Sequence

from engine import MAX_LOG_LENGTH, Deal, State
from engine.moves import F2T, T2F, T2T, W2F, W2T, Move

from .state import SearchMove


class SolverBug(RuntimeError):
    """The solver produced a line the engine does not accept (never expected)."""


def _foundation_for(state: State, card: int) -> int:
    for f, top in enumerate(state.found):
        if (card < 4 and top < 0) or (top >= 0 and top + 4 == card):
            return f
    raise SolverBug(f"no foundation takes card {card}")


def to_log(deal: Deal, path: list[SearchMove]) -> list[str]:
    """Translate and replay ``path``; the engine must accept every entry and end won."""
    state = State(deal)
    log: list[str] = []

    def emit(text: str) -> None:
        try:
            state.play(Move.parse(text))
        except ValueError as exc:
            raise SolverBug(f"engine refused {text!r} at entry {len(log)}: {exc}") from exc
        log.append(text)

    for m in map(SearchMove._make, path):
        kind, a, b, n = m.kind, m.src, m.dst, m.cards
        if kind in (W2F, W2T):
            for _ in range(m.draws):
                emit("s")
            if m.redeal:
                emit("r")
            for _ in range(m.draws_after):
                emit("s")
        if kind == T2F:
            emit(f"t{a + 1}f{_foundation_for(state, state.tab[a][-1]) + 1}")
        elif kind == T2T:
            emit(f"t{a + 1}t{b + 1}" + (f":{n}" if n > 1 else ""))
        elif kind == W2F:
            emit(f"wf{_foundation_for(state, state.waste[-1]) + 1}")
        elif kind == W2T:
            emit(f"wt{b + 1}")
        elif kind == F2T:
            f = next(i for i, top in enumerate(state.found) if top >= 0 and top & 3 == a)
            emit(f"f{f + 1}t{b + 1}")
    if not state.won:
        raise SolverBug("the solver's line does not end in a win")
    return log


def log_length(path: list[SearchMove]) -> int:
    """Entries of the log ``to_log`` makes of ``path``: one per move, plus the draws and
    redeal folded into a talon move."""
    return sum(1 + m[5] + m[6] + m[7] for m in path)  # draws, redeal, draws_after


def wins(deal: Deal, log: list[str], *, limit: bool = True) -> bool:
    """Does ``log`` replay from ``deal`` to a win, every entry legal, and is it a log the
    service accepts (at most ``MAX_LOG_LENGTH`` entries)?"""
    if limit and len(log) > MAX_LOG_LENGTH:
        return False
    return wins_from(State(deal), log)


def wins_from(state: State, moves: Sequence[str]) -> bool:
    """Do ``moves``, played by the engine from ``state`` (which they change), win, every one legal?"""
    try:
        for text in moves:
            state.play(Move.parse(text))
    except ValueError:  # the engine's MoveError, or notation it cannot read
        return False
    return state.won
