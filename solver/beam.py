"""A beam over stock steps: a win-finder for the games with a limited stock and no face-down
cards (Forty Thieves, Josephine, Lucas, Limited, Maria: one pass; Forty and Eight: two).

A depth-first dive (a restart) compares nothing: it follows its move order and, in a one-pass
game, draws the stock dry long before the tableau is worked out. A beam over *moves* (tried and
dropped in earlier sessions) compares positions that have drawn different numbers of cards, and
its score cannot see what a draw costs, so its beams drain the stock early too. This beam
compares only positions that have drawn the same cards:

* a *level* is a number of cards drawn from the stock; every state of a level has drawn exactly
  those cards (the stock of a one-pass game is a fixed sequence, so they also hold the same talon
  cards, less those already played). In Forty and Eight the redeal is a level of its own, taken
  by every state whose stock is dry; after it the states' stocks differ (each holds that state's
  waste), so there a level only counts the steps taken;
* from each state of the level, the positions reachable *without a draw* (column moves, the
  waste's top card, the safe moves after each) are searched depth first, at most ``cap`` moves a
  state, all states sharing one table of the level's positions (a position is entered once a
  level);
* every position entered is scored (``score``), and the ``width`` best of the level are kept
  (ties: the one entered first); each then draws one card, and these are the next level's states;
* a position with every card up is a win: the line to it, with the draws folded into the talon
  moves after them (the K+ moves of every other line, ``state``), is replayed by the engine like
  every win.

A beam only ever returns a win (or nothing): it proves no loss. Its best line (fewest cards left)
seeds the restarts' best line (``api``).

The compiled core runs it (``core.beam``, ``csrc/beam.c``); ``reference.python_beam`` is the
same algorithm in Python, the reference the tests hold the core to: the same moves in the same order, the same
scores and ties, the same nodes, the same line.
"""

from __future__ import annotations

from typing import NamedTuple

from engine.moves import DRAW, REDEAL, W2F, W2T

from .state import SearchMove, SearchState

# The widths the schedule (``api``) tries in turn, within its BEAM_SHARE of the budget.
BEAM_WIDTHS = (100, 1000, 4000)
# Moves one state's closure may try in a level.
BEAM_CAP = 400


class Weights(NamedTuple):
    """The score's weights (``core`` hands this table to the compiled core): a card off the
    foundations outweighs everything else; then cards lying above a lower card of their suit (in a column, or in the
    waste, which is dug from the top), cards not built on the card below them, the waste's size,
    and empty columns."""

    up: int = 1000
    inv: int = 40
    brk: int = 10
    waste_inv: int = 60
    waste: int = 15
    empty: int = 150


WEIGHTS = Weights()

DRAW_STEP = SearchMove(DRAW, -1, -1, 0, -1, 0, 0, 0)  # a beam line's own move: one card to the waste
REDEAL_STEP = SearchMove(REDEAL, -1, -1, 0, -1, 0, 0, 0)  # ...and the waste turned over (Forty and Eight)


class BeamOutcome(NamedTuple):
    status: str  # "solved" or "unknown"
    path: list[SearchMove]  # the win (K+ moves), when solved
    nodes: int
    best_left: int  # fewest cards left off the foundations on a kept position
    best_path: list[SearchMove]  # the line to it (K+ moves; trailing draws left out)


def beam_bytes(width: int, cap: int = BEAM_CAP, line: int = 400) -> int:
    """About what a beam allocates: the level's table (24-byte slots, a power of two at least
    twice the positions a level can enter: ``csrc/beam.c``'s) and two lines of about ``line`` moves
    (12 bytes each) for every state kept and every state of the level."""
    slots = 64
    while slots < 2 * width * (cap + 1):
        slots *= 2
    return 24 * slots + 2 * width * line * 12


def widths_within(mb: float, widths: tuple[int, ...] = BEAM_WIDTHS, cap: int = BEAM_CAP) -> tuple[int, ...]:
    """The widths whose beams stay within ``mb`` MiB (the solver's table bound, SOLVER_TABLE_MB)."""
    return tuple(w for w in widths if beam_bytes(w, cap) <= mb * 1048576)


def beam_applies(st: SearchState) -> bool:
    """The beam needs a limited stock (one pass, or Forty and Eight's two) and no face-down cards."""
    return not st.klondike and st.passes >= 0


def score(st: SearchState) -> int:
    """The beam's score of a position (higher is better; see ``Weights``)."""
    w = WEIGHTS
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
