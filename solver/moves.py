"""Move generation for the solver's state, ordered best first.

Stock moves follow the "K+" idea: instead of one draw at a time, a move plays a card the
stock can bring to the waste's top, with the draws (and a redeal when needed) that bring
it there folded in. This loses no solution: draws commute with every move that does not
touch the waste, so any winning line can be reordered to draw only right before the waste
play that needs the drawn card (every drawn card is played eventually).

Other reductions, each because the skipped move leads to a position with the same key:
all empty columns are alike (only the first is a target), and a whole column never moves
to an empty column. A card the redeal would bring back that is also reachable in the
current pass is only offered in the current pass (same position, passes left >= ).
Klondike also leaves out (``safe``) foundation cards the worry-back safe move would put straight back
(safe cards stay up) and partial-run moves whose exposed card has no use in sight (partial runs need a use); the
one-card two-deck games twin shuffles with no use in sight (twin shuffles need a use).
"""

from __future__ import annotations

import random
from typing import NamedTuple

from engine.moves import W2F, W2T

from .safe import klondike_safe
from .state import (
    RED,
    SearchMove,
    SearchState,
    column_to_column,
    column_to_foundation,
    foundation_to_column,
    stock_positions,
)

KING = 12


class Weights(NamedTuple):
    """The move order's scores (higher first): the one table of them. ``gen_moves`` reads
    ``WEIGHTS``, and ``core`` hands the same table to the compiled core when it loads it, so both
    order moves alike (the core holds none of these numbers)."""

    up: int = 1000  # a column's top to a foundation...
    up_clears: int = 100  # ...more when it empties its column or (Klondike) turns a card
    move: int = 300  # a column move (of a run: less per card, ``per_card``)
    per_card: int = 5
    whole: int = 150  # more: the column's whole content moves
    turns: int = 400  # Klondike: it turns a face-down card, more the more lie under it
    turns_per_card: int = 10
    built: int = 450  # less: the unit already sits on a card it builds on
    frees: int = 200  # the card it exposes can go up...
    exposes: int = 60  # ...or has a place to go in a column
    whole_run: int = 30  # the whole run moves
    to_empty: int = 200  # less: into an empty column
    waste_up: int = 900  # the waste's top card: to a foundation, a column, an empty column
    waste_build: int = 450
    waste_fill: int = 100
    stock_up: int = 250  # a card draws away, passes limited: less per draw (``draw``)
    stock_build: int = 200
    stock_fill: int = 30
    draw: int = 50
    # Restarts only (any order is sound there): a draw past a card buries it in a one-pass game,
    # so a draw costs more, and more for every buried card needed soon (``bury`` x (3 - gap),
    # gap = rank above the suit's lower pile < 3): docs/winnability/measurements.md has the measurements.
    restart_draw: int = 200
    bury: int = 50
    redeal: int = 5  # a redeal costs as many draws
    open_up: int = 700  # a card draws away, passes unlimited: less per draw (``open_draw``)
    open_build: int = 250
    open_fill: int = 50
    open_draw: int = 3
    down: int = -100  # Klondike: a foundation's top card back onto a column...
    king_down: int = -150  # ...a king into an empty column


WEIGHTS = Weights()


def _parents(suit_build: bool) -> tuple[tuple[int, ...], ...]:
    """The cards a card may be built onto in a column."""
    out: list[tuple[int, ...]] = []
    for card in range(52):
        r, s = card >> 2, card & 3
        if r == KING:
            out.append(())
        elif suit_build:
            out.append((card + 4,))
        else:
            out.append(tuple((r + 1) * 4 + t for t in range(4) if RED[t] != RED[s]))
    return tuple(out)


PARENTS = {True: _parents(True), False: _parents(False)}


class _Scan:
    """What every kind of move needs to know about the position, found once per ``gen_moves``."""

    __slots__ = ("_faceup", "empty", "nempty", "parents", "playable", "st", "tops")

    def __init__(self, st: SearchState) -> None:
        self.st = st
        self.parents = PARENTS[st.suit_build]
        found = st.found
        # the cards that can go up now (at most one per foundation pile)
        if st.two:
            self.playable = {found[i] * 4 + (i >> 1) for i in range(8) if found[i] < 13}
        else:
            self.playable = {found[s] * 4 + s for s in range(4) if found[s] < 13}
        self.empty = -1  # the first empty column (all are alike), or -1
        self.nempty = 0
        self.tops: dict[int, list[int]] = {}  # card -> the columns it tops
        for i, col in enumerate(st.cols):
            if col:
                self.tops.setdefault(col[-1], []).append(i)
            else:
                self.nempty += 1
                if self.empty < 0:
                    self.empty = i
        self._faceup: dict[int, int] | None = None

    @property
    def faceup(self) -> dict[int, int]:
        """Klondike: face-up card -> its column (computed on first need)."""
        if self._faceup is None:
            st = self.st
            self._faceup = {c: i for i, cc in enumerate(st.cols) for c in cc[st.down[i] :]}
        return self._faceup


def gen_moves(
    st: SearchState, rng: random.Random | None = None, noise: int = 0, twins: bool = True
) -> list[SearchMove]:
    """Legal moves (up to key equivalence), best first; with ``rng``, each score gets a
    random bonus below ``noise`` first (restarts use this to vary the order). In the one-card
    two-deck games, twin shuffles that the twin-shuffle rule in ``safe`` shows no shortest win starts with are
    left out (``twins=False`` only for the tests that check the lemma against the oracle).

    The kinds are scored in this order (the sort is stable: equal scores keep it): column
    moves, then talon moves, then Klondike's foundation-to-column moves."""
    scan = _Scan(st)
    scored: list[tuple[float, SearchMove]] = []
    _column_moves(scan, scored, twins=twins)
    _talon_moves(scan, scored, restart=rng is not None)
    if st.klondike:
        _foundation_moves(scan, scored)
    if rng is not None:
        rand = rng.random
        scored = [(score + noise * rand(), m) for score, m in scored]
    scored.sort(key=_first, reverse=True)
    return [m for _, m in scored]


def _column_moves(scan: _Scan, scored: list[tuple[float, SearchMove]], *, twins: bool) -> None:
    """Column tops to foundations, then column to column (runs, where they move as a unit)."""
    st = scan.st
    cols, builds, down = st.cols, st.builds, st.down
    parents, playable, tops, empty, nempty = scan.parents, scan.playable, scan.tops, scan.empty, scan.nempty
    king_only = st.king_only
    w = WEIGHTS
    klondike = st.klondike
    # Twin shuffles need a use (``safe``): one card moves at a time, two decks; with more than one empty
    # column neither kind of twin shuffle is ever left out.
    twin_rule = twins and st.two and not st.runs and not klondike and nempty <= 1
    for a, col in enumerate(cols):
        size = len(col)
        if not size:
            continue
        top = col[-1]
        if top in playable:
            bonus = w.up_clears if size == 1 or (klondike and down[a] == size - 1) else 0
            scored.append((w.up + bonus, column_to_foundation(a)))
        longest = 1
        if st.runs:
            lowest = down[a]
            while size - longest - 1 >= lowest and builds[col[size - longest - 1] * 52 + col[size - longest]]:
                longest += 1
        reach = -1  # Klondike: column a's face-up cards below index ``reach`` have no use yet
        for n in range(1, longest + 1):
            base = col[size - n]
            rest = size - n
            dests = [b for parent in parents[base] for b in tops.get(parent, ()) if b != a]
            to_empty = empty >= 0 and rest and (not king_only or base >> 2 == KING)
            if (
                twin_rule
                and rest
                and builds[col[rest - 1] * 52 + base]
                and _twin_idle(st, base, col[rest - 1], playable, tops, parents)
            ):
                # twin shuffles need a use: a twin shuffle off ``under`` whose exposed card has no use in sight
                if nempty:
                    to_empty = False
                else:
                    dests = [b for b in dests if cols[b][-1] != col[rest - 1]]
            if not dests and not to_empty:
                continue
            if klondike and rest > down[a] and longest == size - down[a]:
                # Klondike partial-run moves (partial runs need a use, in ``safe``): only when the card they
                # expose can be used next.
                faceup = scan.faceup
                if reach < 0:
                    reach = _first_movable(col, down[a], a, parents, faceup, empty >= 0)
                if not (rest > reach or col[rest - 1] in playable or _twin_at_hand(base, faceup, st.talon, st.found)):
                    continue  # Partial runs need a use: no shortest win starts with this move
            score = _column_move_score(scan, a, n, longest, w)
            for b in dests:
                scored.append((score, column_to_column(a, b, n)))
            if to_empty:
                scored.append((score - w.to_empty, column_to_column(a, empty, n)))


def _column_move_score(scan: _Scan, a: int, n: int, longest: int, w: Weights) -> int:
    """How promising moving the top ``n`` cards of column ``a`` looks (``longest``: its run)."""
    st = scan.st
    col, builds, down = st.cols[a], st.builds, st.down
    rest = len(col) - n
    base = col[rest]
    score = w.move - w.per_card * n
    if rest == 0:
        return score + w.whole
    under = col[rest - 1]
    if st.klondike and down[a] == rest:
        score += w.turns + w.turns_per_card * rest
    elif rest >= down[a]:
        if builds[under * 52 + base]:
            score -= w.built
        if under in scan.playable:
            score += w.frees
        else:
            for parent in scan.parents[under]:
                if parent in scan.tops:
                    score += w.exposes
                    break
        if n == longest:
            score += w.whole_run
    return score


def _talon_moves(scan: _Scan, scored: list[tuple[float, SearchMove]], *, restart: bool) -> None:
    """Cards the stock can bring to the waste's top, to a foundation or a column.

    Each draw buries a card under the waste's top: costly when passes are limited, so cards
    that need draws come after the useful column moves, the nearest first."""
    st = scan.st
    talon = st.talon
    parents, playable, tops, empty = scan.parents, scan.playable, scan.tops, scan.empty
    limited = st.passes >= 0
    w = WEIGHTS
    dc = w.restart_draw if restart and limited else w.draw
    buried: list[int] | None = None  # restarts, one pass left: buried[k] = how needed the first k stock cards are
    bury = restart and st.passes == 0
    for j, k1, rd, k2 in stock_positions(st):
        card = talon[j]
        cost = k1 + k2 + w.redeal * rd
        if cost == 0:
            up, build, fill = w.waste_up, w.waste_build, w.waste_fill
        elif limited:
            up, build, fill = w.stock_up - dc * cost, w.stock_build - dc * cost, w.stock_fill - dc * cost
            if bury:
                if buried is None:
                    buried = _buried(talon, st.p, st.found, st.two)
                pen = w.bury * buried[j - st.p]  # no redeal left: j >= p here
                up, build, fill = up - pen, build - pen, fill - pen
        else:
            oc = w.open_draw * cost
            up, build, fill = w.open_up - oc, w.open_build - oc, w.open_fill - oc
        if card in playable:
            scored.append((up, SearchMove(W2F, -1, -1, 1, j, k1, rd, k2)))
        for parent in parents[card]:
            for b in tops.get(parent, ()):
                scored.append((build, SearchMove(W2T, -1, b, 1, j, k1, rd, k2)))
        if empty >= 0 and (not st.king_only or card >> 2 == KING):
            scored.append((fill, SearchMove(W2T, -1, empty, 1, j, k1, rd, k2)))


def _foundation_moves(scan: _Scan, scored: list[tuple[float, SearchMove]]) -> None:
    """Klondike: a foundation's top card back to a column, unless the worry-back safe move would put it straight
    back (safe cards stay up, in ``safe``: no shortest win starts with that move)."""
    st = scan.st
    found = st.found
    parents, tops, empty = scan.parents, scan.tops, scan.empty
    for s in range(4):
        if found[s] and not klondike_safe(found, found[s] - 1, s):
            card = (found[s] - 1) * 4 + s
            for parent in parents[card]:
                for b in tops.get(parent, ()):
                    scored.append((WEIGHTS.down, foundation_to_column(s, b)))
            if empty >= 0 and card >> 2 == KING:
                scored.append((WEIGHTS.king_down, foundation_to_column(s, empty)))


def _first_movable(
    col: list[int], low: int, a: int, parents: tuple[tuple[int, ...], ...], faceup: dict[int, int], has_empty: bool
) -> int:
    """The lowest index of a face-up card of column ``a`` with somewhere to go later: a parent
    face up in another column, or an empty column for a king (huge when there is none)."""
    for i in range(low, len(col)):
        t = col[i]
        if has_empty and t >> 2 == KING:
            return i
        for parent in parents[t]:
            if faceup.get(parent, a) != a:
                return i
    return 1 << 30


def _twin_idle(
    st: SearchState,
    c: int,
    u: int,
    playable: set[int],
    tops: dict[int, list[int]],
    parents: tuple[tuple[int, ...], ...],
) -> bool:
    """the twin-shuffle rule's conditions (1), (2), (4) and (5) for moving ``c`` off ``u`` (``safe``): ``u``
    cannot go up, no parent of ``u`` is a column's top, and no card that builds on ``c``,
    nor any other than ``c``'s copies that builds on ``u``, is a column's top or can be
    brought to the waste's top."""
    if u in playable:
        return False
    for parent in parents[u]:
        if parent in tops:
            return False
    builds = st.builds
    lo = 0 if st.passes != 0 else max(st.p - 1, 0)  # the talon cards a stock move reaches
    return not any(builds[c * 52 + t] or (t != c and builds[u * 52 + t]) for t in (*tops, *st.talon[lo:]))


def _twin_at_hand(card: int, faceup: dict[int, int], talon: list[int], found: list[int]) -> bool:
    """Whether the other card of ``card``'s rank and colour is face up in a column, in the
    talon, or the top card of its foundation (Klondike)."""
    twin = card ^ 3  # suits C D H S: the same-colour suit of s is 3 - s
    return twin in faceup or twin in talon or found[twin & 3] == (twin >> 2) + 1


def _buried(talon: list[int], p: int, found: list[int], two: bool) -> list[int]:
    """``out[k]``: how much the first k stock cards are needed soon (3 - gap summed over
    cards whose rank is less than 3 above their suit's lower pile)."""
    out = [0]
    acc = 0
    for c in talon[p:]:
        gap = (c >> 2) - (found[2 * (c & 3) + 1] if two else found[c & 3])
        if gap < 3:
            acc += 3 - gap
        out.append(acc)
    return out


def _first(item: tuple[float, SearchMove]) -> float:
    return item[0]
