"""Never all up: a proof of loss without search, for a stock drawn one card at a time with a
limited number of passes (the Forty Thieves family). ``api`` runs it at the root of every solve;
the compiled core runs the same closure (``csrc/state.c``) at every position of the complete search
(the ``prune`` option). Frozen cards, the other proof without search (the core runs it at the root
of every complete search), has its statement and its Python reference in ``reference.frozen``.
"""

from __future__ import annotations

from .state import RED, SearchState

KING = 12


def never_all_up(st: SearchState) -> bool:
    """True when never-all-up proves the position lost: some card can never reach a foundation.
    Applies to a draw-1 talon with a limited number of redeals left and no face-down cards (the
    Forty Thieves family, Forty and Eight's redeal included); False elsewhere, and False says
    nothing.

    Never-all-up. Number the talon ``a_0 .. a_{N-1}`` in draw order (``a_0 .. a_{p-1}`` are on the
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
