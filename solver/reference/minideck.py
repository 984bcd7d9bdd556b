"""Mini-decks: small deals of each two-deck game's own rules, whose truth the engine alone decides.

A mini-deal keeps a game's rules (``engine.rules.Rules``: building, runs or single cards, empty
columns, draw, passes) on fewer columns and rows, with fewer ranks and suits: the ``ranks`` highest
ranks (up to the king) of ``suits`` suits, both copies of each card, dealt row by row onto the
columns, the rest a short stock. Every card below them, and every card of the other suits, is
already on the foundations. It is a real position of the real game (the engine plays it with
``dataclasses.replace(rules, columns=..., rows=...)``, as the engine's own tests do), so every
solver rule applies to it unchanged, and it is small enough for the engine's exhaustive search
(``exhaustive``: ``legal_moves``, ``play``, ``undo``, ``key``, no solver code) to give the truth.

In Maria (alternate colours) the suits are taken from both colours, so cards can be built on one
another; in the same-suit games any suits do.

``check`` holds every part of the solver that can say "lost" or find a win to that truth on one
position: the proofs without search at the root (frozen cards, never all up: the Python and the
compiled one), the compiled complete search plain and with both its pruning rules (never all up at
every position, dead weight in the waste), the Python reference search with them, and the whole
schedule (``solve_deal``). A win is replayed by the engine; a "lost" must be the truth.
``bench/minideck.py`` runs thousands; ``solver/tests/test_minideck.py`` a sample.
"""

from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine import Deal, State, find_rules
from engine.rules import Build

from .. import core as core_module
from ..api import solve_deal
from ..core import Compiled
from ..dead import never_all_up
from ..log import SolverBug, to_log, wins
from ..search import SOLVED, UNSOLVABLE, Searcher, SearchOutcome
from ..state import SearchState
from .frozen import lost as frozen
from .searches import PYTHON

TWO_DECK_GAMES = ("forty-thieves", "josephine", "lucas", "limited", "maria", "forty-and-eight")
RED_SUITS = (1, 2)  # suits C D H S: diamonds and hearts are red


@dataclass(frozen=True, slots=True)
class Shape:
    """A mini-deal's size: ``suits`` suits of the ``ranks`` highest ranks, two copies of each card,
    ``columns`` columns of ``rows`` cards; the rest (``2 * suits * ranks - columns * rows``) the stock."""

    suits: int = 2
    ranks: int = 5
    columns: int = 4
    rows: int = 3

    @property
    def cards(self) -> int:
        return 2 * self.suits * self.ranks


# Each game's shapes: few columns for the cards, so that about a quarter of the deals are lost,
# few enough cards that the engine's exhaustive search mostly ends (a median of some 100-1,000
# positions, the largest past 10^5). Forty Thieves, Lucas and Limited differ only in their layout
# (and Lucas's aces, up here anyway): here in their shapes.
SHAPES: dict[str, tuple[Shape, ...]] = {
    "forty-thieves": (Shape(2, 7, 3, 4), Shape(2, 8, 3, 4), Shape(3, 5, 3, 4)),
    "josephine": (Shape(2, 7, 3, 4), Shape(2, 8, 3, 4), Shape(3, 5, 3, 4)),
    "lucas": (Shape(2, 7, 3, 3), Shape(2, 8, 3, 4), Shape(2, 6, 3, 4)),
    "limited": (Shape(2, 7, 3, 3), Shape(2, 6, 3, 3), Shape(2, 7, 3, 4)),
    "maria": (Shape(2, 6, 3, 4), Shape(2, 7, 4, 4), Shape(4, 4, 4, 4)),
    "forty-and-eight": (Shape(2, 6, 3, 4), Shape(2, 7, 3, 5), Shape(2, 8, 4, 4)),
}


def mini_deal(game: str, rng: random.Random, shape: Shape) -> Deal:
    """A random mini-deal of ``game``'s rules of ``shape`` (see the module's docstring)."""
    rules = dataclasses.replace(find_rules(game), columns=shape.columns, rows=shape.rows)
    if rules.decks != 2 or shape.columns * shape.rows > shape.cards or not 1 <= shape.ranks <= 13:
        raise ValueError(f"no mini-deal of {game} with {shape}")
    if rules.build is Build.ALTERNATE:  # both colours, so that cards build on one another
        black, red = [0, 3], list(RED_SUITS)
        rng.shuffle(black)
        rng.shuffle(red)
        suits = [black[0], red[0], black[1], red[1]][: shape.suits]
    else:
        suits = rng.sample(range(4), shape.suits)
    low = 13 - shape.ranks  # ranks below this are up
    cards = [r * 4 + s for s in suits for r in range(low, 13) for _ in range(2)]
    rng.shuffle(cards)
    dealt, stock = cards[: shape.columns * shape.rows], cards[shape.columns * shape.rows :]
    tableau = tuple(tuple(dealt[row * shape.columns + c] for row in range(shape.rows)) for c in range(shape.columns))
    # pile f holds suit f % 4: the chosen suits up to rank low - 1 (empty below an ace), the others complete
    tops = tuple(((low - 1) * 4 + f % 4 if low else -1) if f % 4 in suits else 12 * 4 + f % 4 for f in range(8))
    return Deal(
        rules=rules,
        seed=0,
        tableau=tableau,
        face_down=(0,) * shape.columns,
        stock=tuple(stock),
        foundations=tops,
    )


def exhaustive(deal: Deal, limit: int = 300_000) -> tuple[bool | None, int]:
    """The engine's own exhaustive search from ``deal`` (no solver code): (True: won, False: lost,
    None: more than ``limit`` positions), and the positions it entered."""
    state = State(deal)
    if State(deal).won:  # (a fresh State: mypy would keep ``state.won`` narrowed through the loop)
        return True, 1
    seen = {state.key()}
    stack = [iter(list(state.legal_moves()))]
    while stack:
        move = next(stack[-1], None)
        if move is None:
            stack.pop()
            if stack:
                state.undo()
            continue
        state.play(move)
        if state.won:
            return True, len(seen)
        key = state.key()
        if key in seen:
            state.undo()
            continue
        seen.add(key)
        if len(seen) > limit:
            return None, len(seen)
        stack.append(iter(list(state.legal_moves())))
    return False, len(seen)


def positions_along(deal: Deal, rng: random.Random, count: int) -> list[Deal]:
    """Up to ``count`` positions met on one random line of play from ``deal`` (``State.as_deal``),
    the line's last position among them: mid-game positions with a waste and foundations of their
    own, often lost, where the proofs at the root fire more often than on a fresh deal."""
    state = State(deal)
    out: list[Deal] = []
    for _ in range(200):
        moves = list(state.legal_moves())
        if not moves or state.won:
            break
        state.play(rng.choice(moves))
        if rng.random() < 0.2 and len(out) < count - 1:
            out.append(state.as_deal())
    if count and not state.won:
        out.append(state.as_deal())
    return out


@dataclass
class Tally:
    """What one checker said over the positions whose truth is known."""

    lost: int = 0  # "lost" claims, each the truth
    won: int = 0  # wins found, each replayed by the engine
    open: int = 0  # no verdict (a proof without search that does not fire, a budget spent)
    wrong: list[str] = field(default_factory=list)  # every disagreement, described


def _searched(searcher: Searcher, *, prune: bool, dominate: bool) -> Callable[[Deal], str]:
    def run(deal: Deal) -> str:
        out: SearchOutcome = searcher.search(
            SearchState(deal), deadline=time.perf_counter() + 60, prune=prune, dominate=dominate
        )
        if out.status == SOLVED:
            return "won" if wins(deal, to_log(deal, out.path), limit=False) else "bad win"
        return "lost" if out.status == UNSOLVABLE else "open"

    return run


def _claim(rule: Callable[[SearchState], bool]) -> Callable[[Deal], str]:
    return lambda deal: "lost" if rule(SearchState(deal)) else "open"


def _core_never_all_up(st: SearchState) -> bool:
    core_module.require()
    assert core_module._core is not None
    return bool(core_module._core.never_all_up(st))


def _schedule(deal: Deal) -> str:
    result = solve_deal(deal, seconds=60, max_nodes=400_000)  # replays a win itself (SolverBug if not)
    return {"solved": "won", "unsolvable": "lost"}.get(result.status, "open")


def checkers(*, python: bool = True) -> dict[str, Callable[[Deal], str]]:
    """Every part of the solver that says "lost" (or finds a win), by name: each maps a position to
    "won", "lost", "open" or "bad win" (a win the engine refuses). ``python``: the reference's
    search too (slower)."""
    compiled = Compiled(64)
    found: dict[str, Callable[[Deal], str]] = {
        "frozen cards (Python)": _claim(frozen),
        "never all up (Python)": _claim(never_all_up),
        "never all up (core)": _claim(_core_never_all_up),
        "complete search (core)": _searched(compiled, prune=False, dominate=False),
        "complete search + pruning (core)": _searched(compiled, prune=True, dominate=True),
        "schedule (solve_deal)": _schedule,
    }
    if python:
        found["complete search + pruning (Python)"] = _searched(PYTHON, prune=True, dominate=True)
    return found


def check(deal: Deal, truth: bool, tallies: dict[str, Tally], found: dict[str, Callable[[Deal], str]]) -> None:
    """Hold every checker to ``truth`` on ``deal``, counting into ``tallies`` (by checker name)."""
    for name, checker in found.items():
        tally = tallies.setdefault(name, Tally())
        try:
            said = checker(deal)
        except SolverBug as exc:
            said = f"bad win ({exc})"
        if said == "open":
            tally.open += 1
        elif said == "won" and truth:
            tally.won += 1
        elif said == "lost" and not truth:
            tally.lost += 1
        else:
            tally.wrong.append(
                f"{name} says {said}, the engine's exhaustive search {'won' if truth else 'lost'}: {deal}"
            )
