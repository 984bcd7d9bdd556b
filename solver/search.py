"""The search loop: depth-first, iterative, with safe moves and a bounded transposition table.

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
reach every successor up to that equivalence, or (Corollary K, Lemmas P, T, F in ``safe``) a
winning one whenever the position can be won (see ``moves``), (3) the moves played without branching
to be safe (see ``safe``). No depth limit is used. A root position whose cards can never
all leave their places (Lemma D in ``dead``) is lost without searching.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .beam import BEAM_CAP, BEAM_WIDTHS, BeamOutcome, python_beam
from .dead import lost
from .moves import gen_moves
from .safe import safe_move
from .state import SearchMove, SearchState

SOLVED = "solved"
UNSOLVABLE = "unsolvable"
UNKNOWN = "unknown"

CHECK_EVERY = 256


@dataclass
class SearchOutcome:
    status: str
    path: list[SearchMove] = field(default_factory=list)
    nodes: int = 0
    depth: int = 0
    evictions: int = 0
    best_left: int = 1 << 30  # fewest cards off the foundations in any position entered
    best_path: list[SearchMove] = field(default_factory=list)  # its line (keep_best only)
    stored: int = 0  # compiled core: table entries written (replaced ones aside)
    slots: int = 0  # compiled core: the table's capacity in entries


class Searcher(Protocol):
    """The search phases, as the schedule (``api``) uses them: the compiled core
    (``core.Compiled``, the service's) or the Python reference (``Reference``, which the tests
    hold the core to: the same moves, order, nodes and verdicts). ``root`` is never changed."""

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
    ) -> SearchOutcome:
        """A depth-first search from ``root`` after ``prefix`` (its lines start after it): a
        complete one, or with ``rng`` a restart (move order jittered; it proves nothing)."""

    def beam(
        self, root: SearchState, *, deadline: float, max_nodes: int | None, width: int, cap: int = BEAM_CAP
    ) -> BeamOutcome:
        """One stock-step beam of ``width`` (``beam``): a win-finder."""

    def beam_widths(self) -> tuple[int, ...]:
        """The beam widths to try, in turn (within the memory bound)."""


class Reference:
    """The Python searches (``Searcher``): the differential reference, never the service's."""

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
    ) -> SearchOutcome:
        """``Searcher.search``. With ``keep_best`` the line to the entered position with
        the fewest cards left off the foundations is kept (restarts grow their next tries from it)."""
        st = root.copy()
        for m in prefix:
            st.play(m)
        path: list[SearchMove] = []  # every move played from the root, safe ones included
        table: set[bytes] = set()
        frames: list[list[Any]] = []  # [moves, next index, safe moves played on entry]
        play, undo = st.play, st.undo
        nodes = 0
        depth = 0
        node_cap = max_nodes if max_nodes is not None else 1 << 62
        clock = time.perf_counter
        best_left = 1 << 30
        best_path: list[SearchMove] = []

        def enter() -> int:
            """Play safe moves, then open a frame. 1: won, 0: pruned (undone), 2: opened."""
            nonlocal best_left
            safe = 0
            while True:
                m = safe_move(st)
                if m is None:
                    break
                play(m)
                path.append(m)
                safe += 1
            if st.left < best_left:
                best_left = st.left
                if keep_best:
                    best_path[:] = path
            if st.left == 0:
                return 1
            key = st.key()
            if key in table:
                for _ in range(safe):
                    undo(path.pop())
                return 0
            table.add(key)
            frames.append([gen_moves(st, rng, noise), 0, safe])
            return 2

        r = enter()
        if r == 1:
            return SearchOutcome(SOLVED, path, nodes, 0)
        if lost(st):  # cards that can never leave their places (``dead``): a proof, whatever the mode
            frames.clear()
            for _ in range(len(path)):
                undo(path.pop())
            return SearchOutcome(UNSOLVABLE, [], 0, 0)
        while frames:
            frame = frames[-1]
            moves = frame[0]
            i = frame[1]
            if i < len(moves):
                frame[1] = i + 1
                m = moves[i]
                play(m)
                path.append(m)
                nodes += 1
                if (nodes % CHECK_EVERY == 0 and clock() > deadline) or nodes >= node_cap:
                    return SearchOutcome(UNKNOWN, [], nodes, depth, 0, best_left, best_path)
                r = enter()
                if r == 1:
                    return SearchOutcome(SOLVED, path, nodes, max(depth, len(frames)))
                if r == 0:
                    undo(path.pop())
                elif len(frames) > depth:
                    depth = len(frames)
            else:
                frames.pop()
                for _ in range(frame[2]):
                    undo(path.pop())
                if frames:
                    undo(path.pop())
        # only the plain search proves a loss: a jittered restart proves nothing
        return SearchOutcome(UNKNOWN if rng is not None else UNSOLVABLE, [], nodes, depth, 0, best_left, best_path)

    def beam(
        self, root: SearchState, *, deadline: float, max_nodes: int | None, width: int, cap: int = BEAM_CAP
    ) -> BeamOutcome:
        return python_beam(root, deadline=deadline, max_nodes=max_nodes, width=width, cap=cap)

    def beam_widths(self) -> tuple[int, ...]:
        return BEAM_WIDTHS


PYTHON = Reference()
search = PYTHON.search  # the reference search (the tests call it by this name)
