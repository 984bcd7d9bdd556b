"""The schedule's tuning, as one frozen value handed to ``solve_deal`` (``options=``).

The defaults are the shipped schedule; docs/solver.md, "The schedule's constants", says why each
figure, and docs/winnability/measurements.md holds the runs behind them. A bench script or a test
that wants another schedule builds ``SolveOptions(...)`` (or ``dataclasses.replace(DEFAULT, ...)``)
and passes it: nothing patches the solver's modules.

The phases (``api._Schedule``): never-all-up at the root (a proof of loss without search, a few ms,
in the one-pass games), one complete depth-first search (outside Klondike the only other phase that
proves a loss), then in Klondike the image game (it decides won and lost alike) and in draw 3 the
draw-1 search, in the games with a limited stock and no face-down cards the stock-step beam, then
restarts.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import MAX_LOG_LENGTH


@dataclass(frozen=True, slots=True)
class SolveOptions:
    # The complete depth-first search's share of the budget (and of ``max_nodes``).
    depth_first_share: float = 0.25
    # ...in Klondike, where the image game (``image_share``) then decides what is left.
    klondike_depth_first_share: float = 0.1
    # Restarts: capped dives with the move order jittered (seeded by the restart's number, so
    # deterministic under a node budget); ``prefix_share`` of them start from a prefix of the best
    # line so far.
    restart_nodes: int = 3000
    restart_noise: int = 2000
    prefix_share: float = 0.5
    # Up to this share goes to the stock-step beam (0 turns it off); the restarts get the rest.
    beam_share: float = 0.4
    # Never-all-up at every position the complete search enters (one card drawn, passes limited;
    # elsewhere it returns at once): a lost subtree is cut at its root. Applied only where one card
    # moves at a time onto its own suit: in Maria (four possible hosts a card) and Josephine (runs
    # move whole) it proved no deal the root check had not, and only cost time. The restarts, which
    # only look for wins, go without it. Never-all-up at the root runs in every game regardless.
    prune: bool = True
    # Dead weight in the waste in the complete search: a position with dead-weight cards buried in
    # its waste is left out when the position with them up is in the table (two decks, one card
    # drawn at a time; elsewhere it does nothing). Forty Thieves seed 97 is proven lost in 119,652
    # nodes instead of 1,292,676.
    dominate: bool = True
    # Draw 3 through draw 1 (``api.relaxation``): Klondike draw 3 is lost when the same deal is lost
    # drawing one card at a time, whose complete search keeps no place in the stock. Its share (0
    # turns it off), and draw 3's own complete search's share before it.
    relaxed_share: float = 0.15
    relaxed_depth_first_share: float = 0.1
    # Klondike's image game (``abstract``): won exactly when the deal is; it runs after a short
    # complete search (which wins most deals in a millisecond). 0 turns it off.
    image_share: float = 0.75
    # Log shortening: this share of the budget, at most ``shorten_max`` seconds; wins longer than
    # ``shortcut_from`` moves first take the shortcuts ``shortcut`` finds. Klondike's wins hardly
    # have detours, so there the passes run only for a log the service would refuse.
    shorten_share: float = 0.2
    shorten_max: float = 2.0
    shortcut_from: int = 1000
    # The longest log the service accepts (a win with a longer log is no usable proof).
    max_log_length: int = MAX_LOG_LENGTH


DEFAULT = SolveOptions()
