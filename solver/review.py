"""Game review: where along the line a player actually played the win slipped away.

No Django. ``review_game(game, seed, log)`` (or ``review_deal(deal, log)`` for any deal)
replays the log with the engine and keeps the line played: every undo takes its move off a
stack, so what is left is the line of effective moves, positions ``P0`` (the deal) to ``Pn``.
Along a line without undos winnability only falls (a win from ``P(k+1)`` is a win from
``Pk`` after one more move), so the last winnable position is found by bisection, a handful
of solves. The solver's three answers are kept apart: a position it cannot decide within
the budget is *undecided*, never lost, and the review states only what is proven
(``winnable_after``: the last position proven winnable, ``lost_after``: the first proven
lost; undecided between when they are not neighbours). Every win a review returns has been
replayed by the engine from the player's own position (``SolverBug`` otherwise: never an
unchecked win), and every "lost" is a complete search of the solver.

Moves are counted along the line played (move ``k`` is the k-th effective move, ``Pk`` the
position after it); each also carries its index in the log as stored (0-based), since undone
moves and undos stay in the log.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine import Deal, MoveError, State, card_text, check_log
from engine import deal as make_deal
from engine.moves import DRAW, F2T, REDEAL, T2F, UNDO, W2F, W2T, Move

from .api import solve_deal
from .log import SolverBug
from .log import wins_from as log_wins_from
from .result import SolveResult
from .search import SOLVED, UNKNOWN, UNSOLVABLE

# What a review's outcome can be.
WON = "won"  # the game was won: nothing was lost
LOST = "lost"  # the move that lost it is proven: Pw winnable, P(w+1) lost
GAVE_UP_WINNABLE = "gave_up_winnable"  # the last position is still winnable: a win from there
GAVE_UP_WINNABLE_CLAIM = "The game was given up in a position that could still be won."
NEVER_WINNABLE = "never_winnable"  # the deal itself has no win
UNDECIDED = "undecided"  # the budget left a gap: winnable up to w (if known), lost from l (if known)

WINNABLE = "winnable"
LOST_POSITION = "lost"
UNDECIDED_POSITION = "undecided"
ESCALATION = 4
UNDECIDED_BEFORE_ESCALATION = 6  # undecided probes in the gap at one level before the budget grows
_VERDICT = {SOLVED: WINNABLE, UNSOLVABLE: LOST_POSITION, UNKNOWN: UNDECIDED_POSITION}


@dataclass(frozen=True, slots=True)
class Budget:
    """What one review may spend: per probe (one solve of one position) and in all."""

    probe_seconds: float = 1.0
    probe_nodes: int | None = 300_000  # keeps a review deterministic when the machine is slow
    probes: int = 16
    seconds: float = 12.0
    # When positions between the last winnable and the first lost one keep coming back undecided
    # (UNDECIDED_BEFORE_ESCALATION of them, or all), the gap is probed again with ESCALATION times the
    # budget per probe, up to this many times.
    escalations: int = 1

    def to_json(self) -> dict[str, object]:
        return {
            "probe_seconds": self.probe_seconds,
            "probe_nodes": self.probe_nodes,
            "probes": self.probes,
            "seconds": self.seconds,
            "escalations": self.escalations,
        }


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """One effective move of the line played."""

    ply: int  # 1-based along the line played
    index: int  # 0-based index of its entry in the stored log
    move: str
    words: str  # "7C from the waste onto 8H in column 3"

    def to_json(self) -> dict[str, object]:
        return {"ply": self.ply, "index": self.index, "move": self.move, "words": self.words}


@dataclass(slots=True)
class Line:
    """The line a log actually played: its effective moves, and what the log held besides."""

    moves: list[PlayedMove]
    entries: int  # entries of the log replayed (up to the first illegal one)
    undos: int
    won: bool
    error: dict[str, object] | None  # the first illegal entry, if any (the review covers the legal prefix)

    @property
    def texts(self) -> list[str]:
        return [m.move for m in self.moves]

    @property
    def draws(self) -> int:
        return sum(1 for m in self.moves if m.move == "s")

    @property
    def redeals(self) -> int:
        return sum(1 for m in self.moves if m.move == "r")


@dataclass(frozen=True, slots=True)
class Probe:
    ply: int  # the position probed: after this many moves of the line played
    verdict: str  # winnable, lost or undecided
    nodes: int
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {"after_move": self.ply, "verdict": self.verdict, "nodes": self.nodes, "seconds": round(self.seconds, 3)}


@dataclass(slots=True)
class Review:
    game: str
    seed: int
    outcome: str
    line: Line
    winnable_after: int | None = None  # the last position proven winnable (moves of the line played)
    lost_after: int | None = None  # the first position proven lost
    losing_move: PlayedMove | None = None  # when proven: move ``winnable_after + 1``
    win: list[str] | None = None  # from position ``winnable_after``, replayed by the engine
    win_source: str | None = None  # "solver" or "solution" (the day's solution, from the deal)
    probes: list[Probe] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)
    comparison: dict[str, object] | None = None  # won games: the line played against the solution
    seconds: float = 0.0
    budget: Budget = field(default_factory=Budget)

    @property
    def undecided(self) -> tuple[int, int] | None:
        """The moves (first, last) whose positions are undecided, when the proof has a gap."""
        if self.outcome in (WON, LOST, GAVE_UP_WINNABLE, NEVER_WINNABLE):
            return None
        first = 0 if self.winnable_after is None else self.winnable_after + 1
        last = len(self.line.moves) if self.lost_after is None else self.lost_after - 1
        return (first, last) if first <= last else None

    def to_json(self) -> dict[str, object]:
        gap = self.undecided
        return {
            "game": self.game,
            "seed": self.seed,
            "outcome": self.outcome,
            "moves_played": len(self.line.moves),
            "log_entries": self.line.entries,
            "undos": self.line.undos,
            "draws": self.line.draws,
            "redeals": self.line.redeals,
            "log_error": self.line.error,
            "winnable_after": self.winnable_after,
            "lost_after": self.lost_after,
            "undecided_between": None if gap is None else list(gap),
            "losing_move": None if self.losing_move is None else self.losing_move.to_json(),
            "win_from": self.winnable_after if self.win is not None else None,
            "win": self.win,
            "win_source": self.win_source,
            "line": [m.move for m in self.line.moves],
            "line_index": [m.index for m in self.line.moves],
            "claims": list(self.claims),
            "comparison": self.comparison,
            "probes": [p.to_json() for p in self.probes],
            "seconds": round(self.seconds, 3),
            "budget": self.budget.to_json(),
        }


# -- the line played ------------------------------------------------------------------------------


def describe(state: State, move: Move) -> str:
    """The move in words, from the position before it: "7C from the waste onto 8H in column 3"."""
    kind, src, dst, n = move
    if kind == DRAW:
        drawn = " ".join(card_text(c) for c in reversed(state.stock[-state.rules.draw :]))
        if state.waste:
            return f"a draw from the stock: {drawn} covered {card_text(state.waste[-1])} on the waste"
        return f"a draw from the stock: {drawn} turned up"
    if kind == REDEAL:
        return "the waste turned over as a new stock"
    if kind in (W2T, W2F):
        card, source = state.waste[-1], "the waste"
    elif kind == F2T:
        card, source = state.found[src], f"foundation {src + 1}"
    else:
        col = state.tab[src]
        card, source = col[len(col) - n], f"column {src + 1}"
    what = card_text(card) if n == 1 else f"the run of {n} from {card_text(card)}"
    if kind in (W2F, T2F):
        return f"{what} from {source} to foundation {dst + 1}"
    to = state.tab[dst]
    onto = f"onto {card_text(to[-1])} in column {dst + 1}" if to else f"into the empty column {dst + 1}"
    return f"{what} from {source} {onto}"


def played_line(deal: Deal, log: Sequence[str]) -> Line:
    """Replay ``log`` from ``deal`` and keep the effective moves (an undo drops the last one)."""
    check_log(list(log))
    state = State(deal)
    stack: list[PlayedMove] = []
    undos = 0
    error: dict[str, object] | None = None
    entries = 0
    for i, text in enumerate(log):
        try:
            move = Move.parse(text)
            words = "" if move.kind == UNDO else describe(state, move)
            state.play(move)
        except MoveError as exc:
            error = {"index": i, "move": text, "reason": exc.reason}
            break
        entries += 1
        if move.kind == UNDO:
            undos += 1
            stack.pop()
        else:
            stack.append(PlayedMove(ply=len(stack) + 1, index=i, move=text, words=words))
    return Line(moves=stack, entries=entries, undos=undos, won=state.won, error=error)


def position(deal: Deal, line: Line, ply: int) -> State:
    """The engine's state after the first ``ply`` moves of the line played."""
    state = State(deal)
    for m in line.moves[:ply]:
        state.play(Move.parse(m.move))
    return state


def wins_from(deal: Deal, line: Line, ply: int, continuation: Sequence[str]) -> bool:
    """Does ``continuation``, played by the engine from the player's position after ``ply``
    moves of the line, win? (Every entry legal, the last one wins.)"""
    return log_wins_from(position(deal, line, ply), continuation)


# -- the review -----------------------------------------------------------------------------------


def review_game(
    game: str,
    seed: int,
    log: Sequence[str],
    *,
    budget: Budget | None = None,
    solution: Sequence[str] | None = None,
) -> Review:
    return review_deal(make_deal(game, seed), log, budget=budget, solution=solution)


def review_deal(
    deal: Deal,
    log: Sequence[str],
    *,
    budget: Budget | None = None,
    solution: Sequence[str] | None = None,
) -> Review:
    """Review the game ``log`` played on ``deal``. ``solution``: a known winning log of the deal
    (the day's solution), which proves ``P0`` winnable without a solve (it is replayed first)
    and is what a won game is compared with."""
    budget = budget or Budget()
    start = time.perf_counter()
    line = played_line(deal, log)
    review = Review(game=deal.rules.game, seed=deal.seed, outcome=UNDECIDED, line=line, budget=budget)
    n = len(line.moves)
    known_solution = list(solution) if solution is not None and wins_from(deal, line, 0, solution) else None
    if line.won:
        review.outcome = WON
        review.winnable_after = n
        review.comparison = compare(line, known_solution)
        review.claims.append(
            f"Won in {line.entries} moves ({n} once the undone ones are left out); "
            "the engine replayed the log to the win."
        )
    else:
        _bisect(review, deal, budget, known_solution, start)
    review.seconds = time.perf_counter() - start
    return review


def decide(state: State, *, seconds: float, nodes: int | None, shorten_log: bool = True) -> tuple[str, SolveResult]:
    """The solver's verdict on a position within a budget, and its result: WINNABLE only with a win the
    engine plays from ``state`` itself (a copy: ``state`` is left as it was), LOST_POSITION only on a proof
    (the complete search's ``unsolvable``), UNDECIDED_POSITION for the rest, a win only by a log longer
    than the service accepts included. A win that does not replay is the solver's bug: SolverBug."""
    result = solve_deal(state.as_deal(), seconds=seconds, max_nodes=nodes, shorten_log=shorten_log)
    verdict = _VERDICT[result.status]
    if verdict == WINNABLE and result.moves is None:
        return UNDECIDED_POSITION, result
    if verdict == WINNABLE and not log_wins_from(State.restore(state.deal, state.snapshot()), result.moves or []):
        raise SolverBug("the solver's win does not replay from the player's position")
    return verdict, result


def _bisect(review: Review, deal: Deal, budget: Budget, solution: list[str] | None, start: float) -> None:
    line = review.line
    n = len(line.moves)
    verdicts: dict[int, str] = {}  # the positions decided
    tried: set[int] = set()  # the positions probed at the current level of budget
    wins: dict[int, tuple[list[str], str]] = {}
    level = 0

    def probe(ply: int) -> str:
        state = position(deal, line, ply)
        scale = ESCALATION**level
        seconds = min(budget.probe_seconds * scale, max(0.05, budget.seconds - (time.perf_counter() - start)))
        nodes = None if budget.probe_nodes is None else budget.probe_nodes * scale
        verdict, result = decide(state, seconds=seconds, nodes=nodes)
        if verdict == WINNABLE:
            assert result.moves is not None
            wins[ply] = (result.moves, "solver")
        if verdict != UNDECIDED_POSITION:
            verdicts[ply] = verdict
        tried.add(ply)
        review.probes.append(Probe(ply=ply, verdict=verdict, nodes=result.nodes, seconds=result.seconds))
        return verdict

    def within_budget() -> bool:
        return len(review.probes) < budget.probes and time.perf_counter() - start < budget.seconds

    # The end first: a game given up while still winnable needs no bisection.
    if probe(n) == WINNABLE:
        _settle(review, deal, verdicts, wins)
        return
    if solution is not None:
        verdicts[0] = WINNABLE
        wins[0] = (solution, "solution")
    elif n > 0 and within_budget():
        probe(0)
    while within_budget():
        w = max((k for k, v in verdicts.items() if v == WINNABLE), default=-1)
        lost = min((k for k, v in verdicts.items() if v == LOST_POSITION), default=n + 1)
        # the longest run of positions not probed yet (at this level) between the two: probe its middle
        best: tuple[int, int] | None = None
        run_start = None
        for k in range(w + 1, lost + 1):
            if k < lost and k not in verdicts and k not in tried:
                if run_start is None:
                    run_start = k
                continue
            if run_start is not None:
                if best is None or k - run_start > best[1] - best[0]:
                    best = (run_start, k)
                run_start = None
        undecided_here = sum(1 for k in tried if w < k < lost)
        if best is None or (undecided_here >= UNDECIDED_BEFORE_ESCALATION and level < budget.escalations):
            # the gap's positions keep coming back undecided: probe it again with a larger budget
            if level >= budget.escalations or not undecided_here:
                break
            level += 1
            tried.clear()
            continue
        probe((best[0] + best[1] - 1) // 2)
    _settle(review, deal, verdicts, wins)


def _settle(review: Review, deal: Deal, verdicts: dict[int, str], wins: dict[int, tuple[list[str], str]]) -> None:
    """From the probes' verdicts to the review's proven claims."""
    line = review.line
    n = len(line.moves)
    w = max((k for k, v in verdicts.items() if v == WINNABLE), default=None)
    lost = min((k for k, v in verdicts.items() if v == LOST_POSITION), default=None)
    if w is not None and lost is not None and w >= lost:  # pragma: no cover - the solver contradicting itself
        raise SolverBug(f"the solver found move {w}'s position winnable and the earlier {lost}'s lost")
    review.winnable_after, review.lost_after = w, lost
    if w is not None:
        review.win, review.win_source = wins[w]
        where = "the deal" if w == 0 else f"move {w}"
        source = "the day's solution" if review.win_source == "solution" else "the solver's win"
        review.claims.append(
            f"After {where} a win was still possible: {source} from there "
            f"({len(review.win)} moves) was replayed by the engine to the end."
        )
    if w == n:
        review.outcome = GAVE_UP_WINNABLE
        review.claims.insert(0, GAVE_UP_WINNABLE_CLAIM)
        return
    if lost == 0:
        review.outcome = NEVER_WINNABLE
        review.claims.append("The deal itself could not be won: the solver searched every line from it.")
        return
    if lost is not None:
        at = f"move {lost}" if lost < n else f"the last move ({lost})"
        review.claims.append(f"After {at} no win was possible: the solver searched every line from there.")
    if w is not None and lost == w + 1:
        review.outcome = LOST
        review.losing_move = line.moves[w]
        review.claims.insert(0, f"Move {lost} lost the game: {review.losing_move.words}.")
        return
    review.outcome = UNDECIDED
    first = 0 if w is None else w + 1
    last = n if lost is None else lost - 1
    if first <= last:
        span = f"after move {first}" if first == last else f"after moves {first} to {last}"
        review.claims.append(
            f"Undecided {span}: the solver could not settle "
            f"{'it' if first == last else 'them'} within the review's budget."
        )


def compare(line: Line, solution: Sequence[str] | None) -> dict[str, object]:
    """A won game against the day's solution: moves (log entries), draws and redeals."""
    played = {
        "moves": line.entries,
        "effective_moves": len(line.moves),
        "undos": line.undos,
        "draws": line.draws,
        "redeals": line.redeals,
    }
    if solution is None:
        return {"player": played, "solution": None}
    sol = {
        "moves": len(solution),
        "effective_moves": len(solution),
        "undos": 0,
        "draws": sum(1 for t in solution if t == "s"),
        "redeals": sum(1 for t in solution if t == "r"),
    }
    return {"player": played, "solution": sol, "moves_more_than_solution": line.entries - len(solution)}
