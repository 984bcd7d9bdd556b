"""Provably lost positions, without a search: cards that can never leave their places
(Lemma D, every game), and cards that can never go up past a stock drawn one card at a time
with a limited number of passes (Lemma S, ``never_all_up``).

A card *leaves its place* when it moves off its column (or the waste) by itself or as part
of a run. Lemma D. Let S be a set of cards in columns (and, when no redeal is left, in the
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

from .state import RED, SearchState

KING = 12
WASTE = -1


def lost(st: SearchState) -> bool:
    """True when Lemma D finds cards that can never leave their places (the position is
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


# ---- Lemma S: what can ever move, with a one-pass stock -------------------------------------


def never_all_up(st: SearchState) -> bool:
    """True when Lemma S proves the position lost: some card can never reach a foundation.
    Applies to a draw-1 talon with a limited number of redeals left and no face-down cards (the
    Forty Thieves family, Forty and Eight's redeal included); False elsewhere, and False says
    nothing.

    Lemma S. Number the talon ``a_0 .. a_{N-1}`` in draw order (``a_0 .. a_{p-1}`` are on the
    waste already); a redeal turns the waste over into the stock, so every pass draws the cards
    still in the talon in this same order. The *stage* at time ``t`` is the pair (passes begun,
    cards drawn in this pass): stages are ordered pass first, and the stage never falls. With
    ``R`` redeals left the stages run ``(0, p) .. (0, N)``, then ``(1, 0) .. (1, N)``, up to
    ``(R, N)``; a talon card leaves its place (its index in the talon: a redeal moves no card
    from its place) only from the waste's top. A card's *place* is where it lies now;
    ``c_0 .. c_h`` are column i's cards, bottom to top. For each stage ``g = (k, T)`` let
    ``M_g`` (may have left its place) and ``U_g`` (may have gone up) be the least sets of
    places, containing those of the stage before, closed under the rules below. A column place
    ``(i, j)`` is *exposed* when ``j`` is the top, or ``(i, j+1)`` is in ``M_g``, or (games
    that move runs) ``c_j .. c_k`` is a run as the cards lie, for some ``k`` that is the top or
    has ``(i, k+1)`` in ``M_g``; a talon place ``s`` is exposed when ``s < T`` and every one of
    ``a_{s+1} .. a_{T-1}`` is in ``M_g``. A card Z is a *possible host* when some copy of it
    is in ``M_g`` or lies in a column place that is the top or has ``(i, z+1)`` in ``M_g``.
      (U) X's place is in U_g when it is in M_g or exposed, and a foundation of X's suit
          holds the card below X now, or holds less and a copy of that card has a place
          in U_g (an ace: an empty foundation).
      (M) X's place is in M_g when it is in U_g, or it is exposed and X may go onto a possible
          host, or into an empty column (a column all of whose places are in M_g; a king
          only, where only kings may fill one), or (runs) X lies on the place under it,
          which is in M_g, and builds on that card.
    Claim: a place left by time t is in M_g, a card gone up by then has its place in U_g,
    g the stage at t. Proof: take the first event (a card leaving its place, or going up)
    that breaks the claim, at time t, at stage g. Every earlier event kept it and the sets
    grow along the stages, so every place left before t is in M_g and every card up before t
    is in U_g. A card going up at t lies on a top: it left its place before (so its place is
    in M_g), or it leaves it now, which needs the place exposed (whatever lay on it has left;
    from the waste, the card was drawn in this pass, s < T, and each card drawn after it in
    this pass has left); and (U) holds: the foundation X goes onto holds the card below X at
    t, so it did at the start, or it held less and a copy of that card went onto it before t.
    A card leaving its place at t alone or at the bottom of a run: its place is exposed (in a
    run game the cards still on it are the ones that lay there, going with it as a run) and
    it goes up, or onto a top card Z (Z left its place before t, or lies there with nothing on
    it), or into an empty column (every card that lay there has left). A card carried at t on
    a run whose bottom lies under it: the card under it lies there as the deal put it, builds
    under it, and leaves at t, so by the same argument, bottom up, its place is in M_g. Each
    case is a rule, so the event keeps the claim. A won game has every card up, so a place
    outside U at the last stage proves that the position can never be won. The sets are
    computed stage by stage, each from the last (they only grow): a few milliseconds a pass
    for a deal of 104 cards.
    """
    if st.klondike or st.draw != 1 or st.passes < 0 or any(st.down):
        return False
    cols, talon, builds = st.cols, st.talon, st.builds
    piles = [(st.found[2 * s], st.found[2 * s + 1]) if st.two else (st.found[s],) for s in range(4)]
    parents: list[tuple[int, ...]] = []
    for c in range(52):
        r, s = c >> 2, c & 3
        if r == KING:
            parents.append(())
        elif st.suit_build:
            parents.append(((r + 1) * 4 + s,))
        else:
            parents.append(tuple((r + 1) * 4 + t for t in range(4) if RED[t] != RED[s]))
    # run_end[i][j]: the highest k with c_j .. c_k a run as the cards lie (j itself without runs).
    run_end: list[list[int]] = []
    for col in cols:
        ends = list(range(len(col)))
        if st.runs:
            for j in range(len(col) - 2, -1, -1):
                if builds[col[j] * 52 + col[j + 1]]:
                    ends[j] = ends[j + 1]
        run_end.append(ends)
    moved_c = [[False] * len(col) for col in cols]
    up_c = [[False] * len(col) for col in cols]
    moved_t = [False] * len(talon)
    up_t = [False] * len(talon)
    moved_val = [0] * 52  # copies of each card with a place in M
    up_val = [0] * 52  # copies of each card with a place in U

    # ready: a foundation of the card's suit holds the card below it now; waits: one holds less,
    # so it can take the card once a copy of the card below it has gone up.
    ready = [any(c == r >> 2 for c in piles[r & 3]) for r in range(52)]
    waits = [any(c < r >> 2 for c in piles[r & 3]) for r in range(52)]

    def can_go_up(card: int) -> bool:
        return ready[card] or (waits[card] and up_val[card - 4] > 0)

    goes: list[bool] = []
    stages = [(start, drawn) for start in (st.p, *[0] * st.passes) for drawn in range(start, len(talon) + 1)]
    for start, drawn in stages:
        if drawn > start and not moved_t[drawn - 1] and not can_go_up(talon[drawn - 1]) and not goes[talon[drawn - 1]]:
            # The card just drawn can go nowhere: it stays on the waste's top, covering the
            # rest, and nothing else changes (the sets for ``drawn - 1`` are closed already).
            continue
        changed = True
        while changed:
            changed = False
            # Hosts (a copy in M, or lying on top in its place) and empty columns, as M stands now.
            host = [v > 0 for v in moved_val]
            empty = False
            for i, col in enumerate(cols):
                mc = moved_c[i]
                empty = empty or all(mc)
                for z, card in enumerate(col):
                    if not mc[z] and (z == len(col) - 1 or mc[z + 1]):
                        host[card] = True

            goes = [
                any(host[z] for z in parents[c]) or (empty and (not st.king_only or c >> 2 == KING)) for c in range(52)
            ]

            for i, col in enumerate(cols):
                mc, uc, ends = moved_c[i], up_c[i], run_end[i]
                top = len(col) - 1
                for j, card in enumerate(col):
                    if uc[j]:
                        continue
                    if not mc[j] and not any(k == top or mc[k + 1] for k in range(j, ends[j] + 1)):
                        continue  # not exposed: it cannot leave its place yet
                    if can_go_up(card):
                        uc[j] = True
                        up_val[card] += 1
                    elif mc[j] or not (
                        goes[card] or (st.runs and j > 0 and mc[j - 1] and builds[col[j - 1] * 52 + card])
                    ):
                        continue
                    if not mc[j]:
                        mc[j] = True
                        moved_val[card] += 1
                    changed = True
            exposed = True  # every talon card drawn after this one has left
            for s in range(drawn - 1, -1, -1):
                card = talon[s]
                if not up_t[s] and (exposed or moved_t[s]):
                    if can_go_up(card):
                        up_t[s] = True
                        up_val[card] += 1
                        changed = True
                    elif exposed and not moved_t[s] and goes[card]:
                        changed = True
                    else:
                        exposed = exposed and moved_t[s]
                        continue
                    if not moved_t[s]:
                        moved_t[s] = True
                        moved_val[card] += 1
                exposed = exposed and moved_t[s]
    return not (all(up_t) and all(all(u) for u in up_c))
