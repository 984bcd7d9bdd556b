"""The stock-step beam's Python pieces (``solver.beam`` has the algorithm and its tuning): the
score, the line's own steps (a draw, the redeal) and their folding into K+ moves, in the form the
reference beam (``reference.python_beam``) and the tests use; ``csrc/beam.c`` is the same in C."""

from __future__ import annotations

from engine.moves import DRAW, REDEAL, W2F, W2T

from .. import beam as beam_module
from ..state import SearchMove, SearchState

DRAW_STEP = SearchMove(DRAW, -1, -1, 0, -1, 0, 0, 0)  # a beam line's own move: one card to the waste
REDEAL_STEP = SearchMove(REDEAL, -1, -1, 0, -1, 0, 0, 0)  # ...and the waste turned over (Forty and Eight)


def score(st: SearchState) -> int:
    """The beam's score of a position (higher is better; see ``Weights``)."""
    w = beam_module.WEIGHTS  # read at each call: the one table, which a test may swap
    inv = brk = 0
    builds = st.builds
    for col in st.cols:
        for k, c in enumerate(col):
            if k and not builds[col[k - 1] * 52 + c]:
                brk += 1
            for d in col[:k]:
                if (d & 3) == (c & 3) and (d >> 2) < (c >> 2):
                    inv += 1
    waste = st.talon[: st.p]
    winv = 0
    for k, c in enumerate(waste):
        for d in waste[:k]:
            if (d & 3) == (c & 3) and (d >> 2) < (c >> 2):
                winv += 1
    empty = sum(1 for col in st.cols if not col)
    return -w.up * st.left - w.inv * inv - w.brk * brk - w.waste_inv * winv - w.waste * st.p + w.empty * empty


def kplus(line: list[SearchMove]) -> list[SearchMove]:
    """``line`` without its DRAW and REDEAL steps: each talon move takes the draws, the redeal
    and the draws after it since the last talon move (they commute with every other move, which
    never touches the stock); trailing ones go."""
    out: list[SearchMove] = []
    before = redeal = after = 0
    for m in line:
        if m.kind in (DRAW, REDEAL):
            if m.kind == REDEAL:
                redeal = 1
            elif redeal:
                after += 1
            else:
                before += 1
            continue
        if m.kind in (W2F, W2T):
            m = m._replace(draws=before, redeal=redeal, draws_after=after)
            before = redeal = after = 0
        out.append(m)
    return out


def next_step(st: SearchState) -> SearchMove | None:
    """A position's next step in the beam: a draw, the redeal, or none (the stock dry and no
    redeal left)."""
    if st.p < len(st.talon):
        return DRAW_STEP
    if st.passes > 0 and st.talon:
        return REDEAL_STEP
    return None


def replay(root: SearchState, line: list[SearchMove]) -> SearchState:
    st = root.copy()
    for m in line:
        if m.kind == DRAW:
            st.p += 1
        elif m.kind == REDEAL:
            st.p = 0
            st.passes -= 1
        else:
            st.play(m)
    st.hist = []
    return st
