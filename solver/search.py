"""The search phases' interface and outcome; the loop's soundness.

The loop (``csrc/search.c``; in Python, ``reference``) is depth-first, iterative, with safe
moves and a bounded transposition table.

Soundness of ``unsolvable``. The loop is a plain graph search for a won position: a
position is *pruned* only when its key is in the table, and a key enters the table only
when its position is entered. Claim: if the root can be won, some won position is
entered. Take a path root -> ... -> won; let x be its last entered position. When x was
expanded its successor on the path was either entered (contradiction) or pruned, which
means it had been entered before (contradiction). So if the loop ends without a win and
without running out of budget, no win exists. This argument never needs the table to be
complete: evicting entries (when it is full) only makes positions be explored again; the
keys of the current path are kept, so the loop cannot cycle. It does need (1) two
positions with the same key to be interchangeable (see ``state.key``: columns sorted,
foundation piles per suit as a multiset, the talon exactly), (2) the generated moves to
reach every successor up to that equivalence, or a winning one whenever the position can be
won (safe cards stay up, partial runs and twin shuffles need a use: ``safe``; see ``moves``),
(3) the moves played without branching to be safe (see ``safe``). No depth limit is used. A
root position whose cards can never all leave their places (frozen cards,
``reference.frozen``) is lost without searching. With ``prune``, a position that never-all-up
(``dead.never_all_up``) proves lost is entered (its key goes into the table) but opens no
moves: it has no win, so (2) still holds of every position that has one. With ``dominate``, a
position is also pruned when the key of a position that dead weight in the waste finds no worse
(``reference.dead_weight``: dead-weight waste cards put up) is in the table; the argument then
counts moves
to a win (``reference.dead_weight`` gives it), and its conclusion is the same.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from .abstract import Outcome as ImageOutcome
from .beam import BEAM_CAP, BeamOutcome
from .state import SearchMove, SearchState

SOLVED = "solved"
UNSOLVABLE = "unsolvable"
UNKNOWN = "unknown"


# ``best_left`` before any position is counted (the core's searches use the same figure)
NO_LINE = 1 << 30


@dataclass
class SearchOutcome:
    status: str
    path: list[SearchMove] = field(default_factory=list)
    nodes: int = 0
    depth: int = 0
    evictions: int = 0
    best_left: int = NO_LINE  # fewest cards off the foundations in any position entered
    best_path: list[SearchMove] = field(default_factory=list)  # its line (keep_best only)
    stored: int = 0  # compiled core: table entries written (replaced ones aside)
    slots: int = 0  # compiled core: the table's entries in use (as far as it grew within its bound)


class Searcher(Protocol):
    """The search phases, as the schedule (``api``) uses them: the compiled core
    (``core.Compiled``, the service's) or the Python reference (``reference.PYTHON``, which the
    tests hold the core to: the same moves, order, nodes and verdicts). ``root`` is never
    changed."""

    def search(
        self,
        root: SearchState,
        *,
        deadline: float,
        max_nodes: int | None = None,
        rng: random.Random | None = None,
        noise: int = 0,
        keep_best: bool = False,
        prefix: Sequence[SearchMove] = (),
        prune: bool = False,
        dominate: bool = False,
    ) -> SearchOutcome:
        """A depth-first search from ``root`` after ``prefix`` (its lines start after it): a
        complete one, or with ``rng`` a restart (move order jittered; it proves nothing). With
        ``prune`` every position entered is first given to never-all-up (``dead.never_all_up``): one
        it proves lost opens no moves. With ``dominate`` (where ``reference.dead_weight.applies``) a position
        no better than one in the table by dead weight in the waste is left out as if its own key were there."""

    def beam(
        self, root: SearchState, *, deadline: float, max_nodes: int | None, width: int, cap: int = BEAM_CAP
    ) -> BeamOutcome:
        """One stock-step beam of ``width`` (``beam``): a win-finder."""

    def beam_widths(self) -> tuple[int, ...]:
        """The beam widths to try, in turn (within the memory bound)."""

    def image(self, root: SearchState, *, deadline: float, max_positions: int | None = None) -> ImageOutcome:
        """The image game (``abstract``): Klondike's image game searched from ``root``'s image; "lost"
        proves ``root`` lost, "won" comes with a line ``abstract.realize`` makes a win of."""
