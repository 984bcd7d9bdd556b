"""The Python searches: the differential reference the tests hold the compiled core to, on the
same positions (the same moves in the same order, so the same nodes, lines and verdicts), and
the readable statement of what the C does. Never the service's: ``api`` runs ``core.Compiled``,
and an import-linter contract keeps this module out of every service path.
"""

from __future__ import annotations

import functools
import heapq
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from engine.moves import W2F, W2T

from ..abstract import Outcome as ImageOutcome
from ..beam import BEAM_CAP, BEAM_WIDTHS, BeamOutcome
from ..dead import never_all_up
from ..moves import gen_moves
from ..search import NO_LINE, SOLVED, UNKNOWN, UNSOLVABLE, SearchOutcome
from ..state import SearchMove, SearchState
from . import image
from .beam import kplus, next_step, replay, score
from .dead_weight import applies, dominators
from .frozen import lost
from .safe import safe_move

CHECK_EVERY = 256


def descend(
    st: SearchState,
    path: list[SearchMove],
    frames: list[list[Any]],
    enter: Callable[[], int],
    stop: int,
    cap: int,
    deadline: float,
    nodes: int,
    check_every: int = CHECK_EVERY,
) -> tuple[int, int, int]:
    """The search step of the search and of the beam's closures: ``csrc/search.c``'s ``descend``
    (``frames``: [moves, next index, safe moves played on entry]); (its verdict, nodes, depth).
    The clock is read every ``check_every`` nodes (where it is read never changes what is searched
    within the budget)."""
    depth = 0
    while frames:
        frame = frames[-1]
        moves, i = frame[0], frame[1]
        if i < len(moves) and nodes < stop:
            frame[1] = i + 1
            m = moves[i]
            st.play(m)
            path.append(m)
            nodes += 1
            if (nodes % check_every == 0 and time.perf_counter() > deadline) or nodes >= cap:
                return 2, nodes, depth
            r = enter()
            if r == 1:
                return 1, nodes, depth
            if r == 0:
                st.undo(path.pop())
            elif len(frames) > depth:
                depth = len(frames)
        else:
            frames.pop()
            for _ in range(frame[2]):
                st.undo(path.pop())
            if frames:
                st.undo(path.pop())
    return 0, nodes, depth


class Reference:
    """The Python searches (``search.Searcher``)."""

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
        """``Searcher.search``. With ``keep_best`` the line to the entered position with
        the fewest cards left off the foundations is kept (restarts grow their next tries from it)."""
        st = root.copy()
        for m in prefix:
            st.play(m)
        dominate = dominate and applies(st)
        path: list[SearchMove] = []  # every move played from the root, safe ones included
        table: set[bytes] = set()
        frames: list[list[Any]] = []  # [moves, next index, safe moves played on entry]
        play, undo = st.play, st.undo
        nodes = 0
        node_cap = max_nodes if max_nodes is not None else 1 << 62
        best_left = NO_LINE
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
            if key in table or (dominate and any(k in table for k in dominators(st))):  # dead weight in the waste
                for _ in range(safe):
                    undo(path.pop())
                return 0
            table.add(key)
            if prune and never_all_up(st):  # never-all-up: lost, so no move is worth a try
                frames.append([[], 0, safe])
                return 2
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
        # never-all-up costs this search milliseconds a position: the clock is read more often
        r, nodes, depth = descend(st, path, frames, enter, 1 << 62, node_cap, deadline, 0, 8 if prune else CHECK_EVERY)
        if r == 2:
            return SearchOutcome(UNKNOWN, [], nodes, depth, 0, best_left, best_path)
        if r == 1:
            return SearchOutcome(SOLVED, path, nodes, max(depth, len(frames)))
        # only the plain search proves a loss: a jittered restart proves nothing
        return SearchOutcome(UNKNOWN if rng is not None else UNSOLVABLE, [], nodes, depth, 0, best_left, best_path)

    def beam(
        self, root: SearchState, *, deadline: float, max_nodes: int | None, width: int, cap: int = BEAM_CAP
    ) -> BeamOutcome:
        """``Searcher.beam``: the algorithm of ``beam``'s docstring; ``root`` is not changed."""
        node_cap = max_nodes if max_nodes is not None else 1 << 62
        nodes = 0
        best_left = NO_LINE
        best_path: list[SearchMove] = []
        beam: list[list[SearchMove]] = [[]]
        seq = 0
        # One level's state, emptied at the start of each level (not rebound: ``offer`` and ``enter`` read them).
        seen: set[bytes] = set()
        # (score, -seq, line, cards left, next step): the worst at heap[0]; (score, -seq) is unique
        heap: list[tuple[int, int, list[SearchMove], int, SearchMove | None]] = []
        frames: list[list[Any]] = []  # [moves, next index, safe moves played on entry]

        def offer(st: SearchState, line: list[SearchMove]) -> None:
            nonlocal seq
            item = (score(st), -seq, line, st.left, next_step(st))
            seq += 1
            if len(heap) < width:
                heapq.heappush(heap, item)
            elif item[:2] > heap[0][:2]:
                heapq.heapreplace(heap, item)

        def enter(st: SearchState, path: list[SearchMove], base: list[SearchMove]) -> int:
            """1: won, 0: seen this level (undone), 2: opened."""
            safe = 0
            while (m := safe_move(st)) is not None:
                st.play(m)
                path.append(m)
                safe += 1
            if st.left == 0:
                return 1
            key = st.key()
            if key in seen:
                for _ in range(safe):
                    st.undo(path.pop())
                return 0
            seen.add(key)
            offer(st, base + path)
            moves = [m for m in gen_moves(st) if not (m.kind in (W2F, W2T) and (m.draws or m.redeal))]
            frames.append([moves, 0, safe])
            return 2

        while True:
            seen.clear()
            heap.clear()
            out_of_budget = False
            for base in beam:
                st = replay(root, base)
                path: list[SearchMove] = []
                stop = nodes + cap
                frames.clear()
                r = enter(st, path, base)
                if r == 1:
                    return BeamOutcome("solved", kplus(base + path), nodes, 0, [])
                if r == 2:
                    entering = functools.partial(enter, st, path, base)
                    r, nodes, _ = descend(st, path, frames, entering, stop, node_cap, deadline, nodes)
                    if r == 1:
                        return BeamOutcome("solved", kplus(base + path), nodes, 0, [])
                    out_of_budget = r == 2
                if out_of_budget:
                    break
            beam = []
            for _, _, line, left, step in sorted(heap, key=lambda item: (-item[0], -item[1])):
                if left < best_left:
                    best_left, best_path = left, kplus(line)
                if step is not None:
                    beam.append([*line, step])
            if out_of_budget or not beam:
                break
        return BeamOutcome("unknown", [], nodes, best_left, best_path)

    def beam_widths(self) -> tuple[int, ...]:
        return BEAM_WIDTHS

    def image(self, root: SearchState, *, deadline: float, max_positions: int | None = None) -> ImageOutcome:
        cap = 1 << 62 if max_positions is None else max_positions
        return image.search(root, max_positions=cap, seconds=max(0.0, deadline - time.perf_counter()))


PYTHON = Reference()
search, python_beam = PYTHON.search, PYTHON.beam  # the tests call them by these names
