"""Frozen cards (every game), in Python: a proof of loss without search, which the
compiled core runs at the root of every complete search (``csrc/state.c``); this is its reference.

A card *leaves its place* when it moves off its column (or the waste) by itself or as part
of a run. Frozen cards. Let S be a set of cards in columns (and, when no redeal is left, in the
waste), each of which can only leave its place by moving itself (it is not carried by a
run whose bottom card lies under it: in Klondike it is face down or the lowest face-up
card; in Josephine it does not sit on a card it builds on; elsewhere cards move singly),
such that for every X in S (rank r):
  (F) some rank k < r of X's suit that X needs on a foundation first (k from the lower of
      the piles X could go onto) has no copy off the foundations outside the cards under
      X in its place and outside S;
  (P) every card X could be built onto is under X in X's place, under a member of S in
      its place, or (no card ever leaving a foundation) already on a foundation;
  (E) X cannot go to an empty column: every column holds a member of S, or only kings
      may fill an empty column and X is not a king.
Then no member of S ever leaves its place, so none goes up and the position is lost.
Proof. Suppose some do; let X be the first member to leave, at move t. Until t no member
has moved, so every card under a member is still there (covered). X going up needs a
copy of each rank of (F) up before t: every such copy is under X (covered by X) or a
member (not moved): impossible. X going onto a card needs that card to be a column's
top at t: each candidate is covered by X or by a member, or (P) on a foundation for good.
X going to an empty column: a column holding a member is not empty before t. (Stock
cards are never in S and every card the stock could bring up counts as free.)

The largest such S is found by starting from every eligible card and dropping cards that
break (F), (P) or (E) until none does; a non-empty result proves the position lost.
"""

from __future__ import annotations

from ..state import RED, SearchState

KING = 12
WASTE = -1


def lost(st: SearchState) -> bool:
    """True when the frozen-cards rule finds cards that can never leave their places (the position is
    lost). False says nothing."""
    cols = st.cols
    builds = st.builds
    two = st.two
    found = st.found
    # Where each card off the foundations sits: (place, index) per copy; stock copies free.
    where: dict[int, list[tuple[int, int]]] = {}
    free_copies: dict[int, int] = {}
    members: list[tuple[int, int, int]] = []  # (place, index, card)
    for i, col in enumerate(cols):
        limit = st.down[i] if st.klondike else len(col) - 1
        for j, card in enumerate(col):
            where.setdefault(card, []).append((i, j))
            if j > limit:
                continue
            if st.runs and not st.klondike and j and builds[col[j - 1] * 52 + card]:
                continue  # it may leave on a run whose bottom card lies under it
            members.append((i, j, card))
    talon = st.talon
    waste_place = st.passes == 0  # no redeal left: the waste is a pile cards only leave from its top
    for j, card in enumerate(talon):
        if waste_place and j < st.p:
            where.setdefault(card, []).append((WASTE, j))
            members.append((WASTE, j, card))
        else:
            free_copies[card] = free_copies.get(card, 0) + 1
    if not members:
        return False
    ncols = len(cols)
    in_s = {(pl, j) for pl, j, _ in members}
    while True:
        top_member: dict[int, int] = {}
        for pl, j, _ in members:
            if top_member.get(pl, -1) < j:
                top_member[pl] = j
        every_column = sum(1 for pl in top_member if pl >= 0) == ncols
        keep = []
        for pl, j, card in members:
            r = card >> 2
            s = card & 3
            if not every_column and (not st.king_only or r == KING):
                continue  # (E)
            if not _foundation_blocked(card, pl, j, r, s, found, two, where, free_copies, in_s):
                continue
            if not _parents_blocked(st, card, pl, j, r, s, where, free_copies, top_member):
                continue
            keep.append((pl, j, card))
        if len(keep) == len(members):
            return bool(keep)
        if not keep:
            return False
        members = keep
        in_s = {(pl, j) for pl, j, _ in members}


def _foundation_blocked(
    card: int,
    pl: int,
    j: int,
    r: int,
    s: int,
    found: list[int],
    two: bool,
    where: dict[int, list[tuple[int, int]]],
    free_copies: dict[int, int],
    in_s: set[tuple[int, int]],
) -> bool:
    if two:
        f1, f2 = found[2 * s], found[2 * s + 1]
        lo = f1 if f1 <= r else f2  # the higher pile, unless it already holds a copy of X
    else:
        lo = found[s]
    for k in range(lo, r):
        c = k * 4 + s
        if free_copies.get(c):
            continue
        for pl2, j2 in where.get(c, ()):
            if not ((pl2 == pl and j2 < j) or (pl2, j2) in in_s):
                break  # a free copy
        else:
            return True
    return False


def _parents_blocked(
    st: SearchState,
    card: int,
    pl: int,
    j: int,
    r: int,
    s: int,
    where: dict[int, list[tuple[int, int]]],
    free_copies: dict[int, int],
    top_member: dict[int, int],
) -> bool:
    if r == KING:
        return True
    if st.suit_build:
        parents: tuple[int, ...] = ((r + 1) * 4 + s,)
    else:
        parents = tuple((r + 1) * 4 + t for t in range(4) if RED[t] != RED[s])
    copies = 2 if st.two else 1
    for p in parents:
        if free_copies.get(p):
            return False
        places = where.get(p, ())
        if st.klondike and len(places) < copies:
            return False  # on a foundation, and Klondike can take it back down
        for pl2, j2 in places:
            if not ((pl2 == pl and j2 < j) or j2 < top_member.get(pl2, -1)):
                return False
    return True
