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

The compiled core runs it (``core.beam``, ``csrc/beam.c``); ``reference.python_beam`` (with the
score and the line's steps in ``reference.beam``) is the same algorithm in Python, the reference
the tests hold the core to: the same moves in the same order, the same scores and ties, the same
nodes, the same line.
"""

from __future__ import annotations

from typing import NamedTuple

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
