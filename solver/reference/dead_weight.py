"""Dead weight in the waste: positions no better than one the search has entered.

Where it applies: two decks, nothing face down, a talon drawn one card at a time (Forty Thieves,
Josephine, Lucas, Limited, Maria, Forty and Eight). Cards never leave a foundation there.

A card ``c`` (rank r, suit s) lying in the waste is *dead weight* when
  (i)  both cards of rank r - 1 of suit s are up (for an ace: always), and
  (ii) every card that builds on ``c`` in a column has both its copies up (same-suit building:
       that is (i) again; Maria: rank r - 1 of both suits of the other colour).
By (i) and ``c`` not being up, a pile of suit s holds exactly r cards, so ``c`` could go up at
once if it were the waste's top; dead weight stays dead weight (nothing comes down).

Dead weight in the waste. Let B be a position, D a non-empty set of dead-weight cards in B's waste, and A the
position B with the cards of D taken out of the waste (the rest keeps its order) and put on the
foundations. If B can be won, so can A, by a line with no more moves other than draws.
Proof, by following a winning line of B move by move and keeping this invariant, which holds at
the start: A is B with the cards of D away from their places (waste, stock after a redeal, or a
column) and on the foundations; every card of D is dead weight in B; a card of D in a column is
that column's top. Counts per card kind: up(A) = up(B) + the D cards of that kind.
  * No card can be put on a card of D: whatever builds on it is up for good (ii). So a D card in
    a column stays its top, and a run (Josephine) can hold one only as its top card.
  * B moves a card of D (to a foundation, a column or an empty column; or draws one after a
    redeal): A plays nothing. If it went up, it leaves D; otherwise it stays in D (a column's top).
  * B draws another card: A draws it too (A's talon is B's without the D cards, in order). B
    redeals: A does too (its waste is B's without the D cards), unless A's waste and stock are
    empty, and then A simply has a redeal more to spend.
  * B moves a card or run ``u`` (not in D) from the waste's top or a column. In A it lies there
    with at most the same cards on it (only D cards, all tops, are missing), so it can move; a
    run loses at most its top card, which is still a run. Its target in A: the same host (a host
    is not in D: ``u`` builds on it and is not up, against (ii)), the same empty column (A's
    columns are B's without D cards, so an empty column of B is empty in A), or a foundation: B
    plays ``u`` (rank k) onto a pile holding k - 1 cards. If A holds no D card of u's kind, A
    has as many cards of rank k up as B and at least as many of rank k - 1, so one of its two
    piles of the suit holds exactly k - 1 cards and A plays ``u`` as well. If A holds
    one, both cards of rank k - 1 are up in B (i) and in A; with ``u`` and the D card both not
    up in B, at most one card of rank k is up in A, so A has a pile holding k - 1 cards.
  * When B has every card up, D is empty and A has every card up too.
Each move of B is matched by at most one of A's, draws by draws: A's line has no more moves
other than draws. QED.

How the search uses it (``reference.search`` and ``csrc/search.c``, option ``dominate``): a
position B is left out, as if its key were in the table, when the key of such an A is there:
A with a single dead-weight card put up, each in turn, and A with all of them put up. Soundness
(``search``'s argument, with a measure): let m(P) be the fewest moves other than draws of a win
from P. Suppose the root can be won; among the entered positions that can be won take P with
the least m(P). P is not won (the search would have stopped). The generator's lemmas (``moves``,
``safe``) give a move whose successor Q, after the safe moves, can be won with m(Q) < m(P)
(safe cards stay up, partial runs and twin shuffles needing a use compare shortest wins; a safe
move lengthens none). Q is entered, or its key was in the table (an entered position with Q's key,
interchangeable with Q), or a position A no worse than Q, with m(A) <= m(Q) by dead weight in the
waste, was entered: each contradicts the choice of P. never-all-up never prunes a position that can
be won. So a search that ends without a
win proves the root lost, as before.
"""

from __future__ import annotations

from ..state import RED, SearchState


def applies(st: SearchState) -> bool:
    """The games of dead weight in the waste: two decks, nothing face down, the talon drawn one card at a time (with the
    passes limited, so the stock's place is part of the key: the core's single keys rely on it)."""
    return st.two and not st.klondike and st.draw == 1 and st.p_in_key


def dead_weight(st: SearchState) -> list[int]:
    """The waste indexes (talon[0:p]) of the dead-weight cards, bottom first."""
    f = st.found
    out = []
    for i in range(st.p):
        c = st.talon[i]
        r, s = c >> 2, c & 3
        if f[2 * s + 1] < r:  # (i): the lower pile of suit s holds both cards of rank r - 1
            continue
        if st.suit_build or all(f[2 * t + 1] >= r for t in range(4) if RED[t] != RED[s]):
            out.append(i)  # (ii)
    return out


def _put_up(st: SearchState, indexes: list[int]) -> SearchState:
    a = st.copy()
    for i in reversed(indexes):
        c = a.talon.pop(i)
        a.found[a.found_slot(c)] += 1
        a.p -= 1
        a.left -= 1
    return a


def dominators(st: SearchState) -> list[bytes]:
    """The keys of the positions dead weight in the waste says are no worse than ``st``: each dead-weight card put
    up alone, then all of them (when more than one)."""
    dead = dead_weight(st)
    keys = [_put_up(st, [i]).key() for i in dead]
    if len(dead) > 1:
        keys.append(_put_up(st, dead).key())
    return keys
