"""Proofs of loss from a relaxed constraint model (OR-Tools CP-SAT), for the one-pass games.

``prove_lost(deal, work=..., seconds=...)`` builds a schedule model of the position and asks CP-SAT for a
solution. Every win of the position gives a solution (the proof is in ``docs/solver.md``, "Proofs of
loss by a constraint model"), so a model without one proves the position lost. A model with a
solution, or one not decided in time, proves nothing: the answer is then ``unknown``.

What the model schedules, per card off the foundations (each physical card apart: two decks hold two
of every card): the time it goes up (``F``), its first ``LEVELS`` moves as the bottom of what moves
(``T[k]``, with where each goes: the foundation, onto one of its possible parents, into an empty
column, or, in Josephine, along with the card under it), and for stock cards the time they are drawn
(``D``). Times are the order of these events in a win, compressed to 1..horizon.

It applies to the games whose rows are dealt face up, draw one and have no pass left (Forty Thieves,
Josephine, Lucas, Limited, Maria; Forty and Eight once its redeal is used): ``model_applies``.

``is_lost(deal_or_state, work=..., seconds=...)`` is the one call for the rest of the solver: True only
on a proof. Where it would go in the schedule (not wired: it proves none of the study's undecided
two-deck deals, see docs/solver.md) is said there.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from ortools.sat.python import cp_model

from engine import Deal, State
from engine.moves import DRAW, T2F, T2T, W2F, W2T
from engine.rules import Build, Layout, Unit

LOST = "lost"
UNKNOWN = "unknown"

# Moves modelled per card (as the bottom of what moves); moves past these are left free.
LEVELS = 2


@dataclass
class LossProof:
    """``status``: ``lost`` (the model has no solution: no win exists) or ``unknown``."""

    status: str
    seconds: float
    verdict: str  # CP-SAT's own status name (INFEASIBLE, FEASIBLE, OPTIMAL, UNKNOWN)
    stats: dict[str, int] = field(default_factory=dict)
    info: str = ""  # CP-SAT's word on how the search ended

    @property
    def lost(self) -> bool:
        return self.status == LOST


def model_applies(deal: Deal) -> bool:
    """Rows dealt face up, draw one, any card to an empty column, no card back from a foundation,
    and no redeal left (the model knows one pass through the stock only)."""
    rules = deal.rules
    passes_left = (
        deal.passes_left if deal.passes_left is not None else (-1 if rules.passes is None else rules.passes - 1)
    )
    return (
        rules.layout is Layout.ROWS
        and rules.draw == 1
        and passes_left == 0
        and not rules.empty_takes_king_only
        and not rules.foundation_to_tableau
        and not any(deal.face_down)
    )


@dataclass(frozen=True, slots=True)
class _Card:
    card: int  # the card's value (rank * 4 + suit)
    pile: str  # "t" (tableau), "s" (stock), "w" (waste)
    column: int = -1  # tableau: its column, and its height in it (0: the bottom)
    height: int = -1
    order: int = -1  # stock and waste: the order it is (or was) drawn in, waste first


def _cards(deal: Deal) -> list[_Card]:
    cards: list[_Card] = []
    for c, col in enumerate(deal.tableau):
        for h, card in enumerate(col):
            cards.append(_Card(card, "t", column=c, height=h))
    order = 0
    for card in deal.waste:  # bottom to top: drawn in this order
        cards.append(_Card(card, "w", order=order))
        order += 1
    for card in deal.stock:  # in the order drawn
        cards.append(_Card(card, "s", order=order))
        order += 1
    return cards


def _builds_on(card: int, parent: int, build: Build) -> bool:
    if (card >> 2) + 1 != parent >> 2:
        return False
    if build is Build.SUIT:
        return (card & 3) == (parent & 3)
    return ((card & 3) in (1, 2)) != ((parent & 3) in (1, 2))


def _order_stat(m: cp_model.CpModel, xs: list[cp_model.IntVar], k: int, horizon: int) -> cp_model.IntVar:
    """The k-th smallest of ``xs`` (two at most: two decks)."""
    if len(xs) == 1:
        return xs[0]
    if len(xs) != 2 or k not in (0, 1):
        raise ValueError("the model knows two decks")
    v = m.new_int_var(1, horizon, "")
    (m.add_min_equality if k == 0 else m.add_max_equality)(v, xs)
    return v


def _first_moves(
    m: cp_model.CpModel,
    deal: Deal,
    cards: list[_Card],
    at: dict[tuple[int, int], int],
    T: list[list[cp_model.IntVar]],
    D: dict[int, cp_model.LinearExprT],
    found: list[list[cp_model.IntVar]],
    space: list[list[cp_model.IntVar]],
    onto: list[list[dict[int, cp_model.IntVar]]],
) -> list[cp_model.IntVar] | None:
    """One literal per legal move of the position, each meaning: that move is the event at time 1 (the
    first move of its bottom card, to that place, or the first draw). None when a legal move is of a
    kind the model does not know (then the constraint is left out: weaker, never wrong)."""
    waste = [i for i, x in enumerate(cards) if x.pile == "w"]
    stock = sorted((x.order, i) for i, x in enumerate(cards) if x.pile == "s")
    lits: list[cp_model.IntVar] = []
    for kind, src, dst, count in State(deal).legal_moves():
        lit = m.new_bool_var("")
        if kind == DRAW and stock:
            m.add(D[stock[0][1]] == 1).only_enforce_if(lit)
            lits.append(lit)
            continue
        if kind in (W2T, W2F) and waste:
            b = waste[-1]
        elif kind in (T2T, T2F):
            b = at[(src, len(deal.tableau[src]) - count)]
        else:
            return None
        if kind in (W2F, T2F):
            place = found[b][0]
        elif not deal.tableau[dst]:
            place = space[b][0]
        else:
            parent = onto[b][0].get(at[(dst, len(deal.tableau[dst]) - 1)])
            if parent is None:
                return None
            place = parent
        m.add(T[b][0] == 1).only_enforce_if(lit)
        m.add_implication(lit, place)
        lits.append(lit)
    return lits


def build_model(deal: Deal, *, levels: int = LEVELS) -> cp_model.CpModel:
    """The relaxed model of ``deal`` (which ``model_applies`` to): a win is one of its solutions."""
    if not model_applies(deal):
        raise ValueError(f"the loss model does not apply to this position of {deal.rules.name}")
    rules = deal.rules
    runs = rules.unit is Unit.RUN
    cards = _cards(deal)
    n = len(cards)
    horizon = (levels + 2) * n + 2
    m = cp_model.CpModel()
    if n == 0:
        return m

    F = [m.new_int_var(1, horizon, f"F{i}") for i in range(n)]
    T = [[m.new_int_var(1, horizon, f"T{i}_{k}") for k in range(levels)] for i in range(n)]
    act = [[m.new_constant(1)] + [m.new_bool_var(f"a{i}_{k}") for k in range(1, levels)] for i in range(n)]
    found = [[m.new_bool_var(f"f{i}_{k}") for k in range(levels)] for i in range(n)]
    space = [[m.new_bool_var(f"e{i}_{k}") for k in range(levels)] for i in range(n)]
    run = [m.new_constant(0) for _ in range(n)]  # Josephine: the first move carried by the card below
    below: dict[int, int] = {}  # tableau card -> the card under it in its column
    above: dict[int, int] = {}
    at = {(x.column, x.height): i for i, x in enumerate(cards) if x.pile == "t"}
    for (c, h), i in at.items():
        if h > 0:
            below[i] = at[(c, h - 1)]
            above[at[(c, h - 1)]] = i
    # Possible parents of each card: the cards off the foundations it builds on.
    parents: list[list[int]] = [
        [p for p in range(n) if p != i and _builds_on(cards[i].card, cards[p].card, rules.build)] for i in range(n)
    ]
    onto = [[{p: m.new_bool_var(f"p{i}_{k}_{p}") for p in parents[i]} for k in range(levels)] for i in range(n)]
    if runs:
        for i, j in below.items():
            if _builds_on(cards[i].card, cards[j].card, rules.build):
                run[i] = m.new_bool_var(f"r{i}")

    # Where each modelled move goes: exactly one place when the level is active, none otherwise.
    for i in range(n):
        for k in range(levels):
            places = [found[i][k], space[i][k], *onto[i][k].values()] + ([run[i]] if k == 0 else [])
            m.add(sum(places) == act[i][k])
            m.add(T[i][k] == F[i]).only_enforce_if(found[i][k])
            m.add(T[i][k] <= F[i])
            if k > 0:
                m.add(T[i][k] == F[i]).only_enforce_if(act[i][k].Not())
            if k + 1 < levels:
                nxt = act[i][k + 1]
                m.add_implication(found[i][k], nxt.Not())
                if k == 0:
                    m.add_implication(run[i], nxt.Not())
                    m.add(nxt == 1).only_enforce_if([found[i][k].Not(), run[i].Not()])
                else:
                    m.add(nxt == act[i][k] - found[i][k])
                m.add(T[i][k + 1] > T[i][k]).only_enforce_if(nxt)
                # A card alone at the bottom of a column never moves to an empty column (a whole
                # column moved to an empty one only renames the columns: Lemma R).
                m.add_implication(space[i][k], space[i][k + 1].Not())
        # The last modelled move (or a carried first move) is not the foundation move: F comes later.
        m.add(F[i] > T[i][levels - 1]).only_enforce_if([act[i][levels - 1], found[i][levels - 1].Not()])
        m.add(F[i] > T[i][0]).only_enforce_if(run[i])
        if cards[i].pile == "t" and cards[i].height == 0:
            m.add(space[i][0] == 0)

    # Foundations: the k-th copy of a card goes up after the k-th copy of the card under it.
    up: dict[int, int] = {}
    for top in deal.foundations:
        for r in range((top >> 2) + 1 if top >= 0 else 0):
            up[r * 4 + (top & 3)] = up.get(r * 4 + (top & 3), 0) + 1
    off: dict[int, list[cp_model.IntVar]] = {}
    for i, x in enumerate(cards):
        off.setdefault(x.card, []).append(F[i])
    for v, mine in off.items():
        if v < 4:
            continue
        lower = off.get(v - 4, [])
        have, had = up.get(v, 0), up.get(v - 4, 0)
        if have + len(mine) != rules.decks or had + len(lower) != rules.decks:
            raise ValueError("the position's cards are not whole decks")
        for k in range(have, rules.decks):  # the k-th copy of v (0-based, copies already up first)
            if k < had:
                continue  # the k-th copy of the card under it is up already
            m.add(_order_stat(m, mine, k - have, horizon) > _order_stat(m, lower, k - had, horizon))

    # Tableau: a card first moves after the card on it (or with it, carried as a run).
    for i, j in below.items():  # i lies on j
        m.add(T[j][0] > T[i][0]).only_enforce_if(run[i].Not())
        if runs:
            m.add(T[j][0] == T[i][0]).only_enforce_if(run[i])
            m.add_implication(run[i], found[j][0].Not())

    # Stock and waste: drawn one by one in order; the waste is last in, first out.
    drawn = sorted((x.order, i) for i, x in enumerate(cards) if x.pile in "sw")
    D: dict[int, cp_model.LinearExprT] = {}
    last: cp_model.IntVar | None = None
    for _, i in drawn:
        if cards[i].pile == "w":
            D[i] = 0
            continue
        d = m.new_int_var(1, horizon, f"D{i}")
        if last is not None:
            m.add(d > last)
        last = d
        D[i] = d
        m.add(T[i][0] > d)
    for a_pos, (_, a) in enumerate(drawn):
        for _, b in drawn[a_pos + 1 :]:  # b drawn after a
            if cards[b].pile == "w":
                m.add(T[b][0] < T[a][0])
                continue
            first = m.new_bool_var("")
            m.add(T[a][0] < D[b]).only_enforce_if(first)
            m.add(T[b][0] < T[a][0]).only_enforce_if(first.Not())
    # Every move to a foundation and every draw is a move of its own.
    # (with the moves of point 2b below: every move, one event, at its own time)
    moves: list[cp_model.IntervalVar] = [
        m.new_fixed_size_interval_var(d, 1, "") for d in D.values() if isinstance(d, cp_model.IntVar)
    ]

    # Parents: a card goes onto a card that is on the tableau, not yet up, and with nothing on it.
    sitting: list[list[cp_model.IntervalVar]] = [[] for _ in range(n)]
    for p, u in above.items():  # the card dealt on p stays on it until its first move at least
        sitting[p].append(m.new_interval_var(0, T[u][0], T[u][0], ""))
    residents: list[cp_model.IntervalVar] = []
    demands: list[int] = []
    for i in range(n):
        for k in range(levels):
            t = T[i][k]
            end = T[i][k + 1] if k + 1 < levels else t + 1
            for p, lit in onto[i][k].items():
                m.add(F[p] > t).only_enforce_if(lit)
                if cards[p].pile in "sw":
                    m.add(T[p][0] < t).only_enforce_if(lit)
                size = m.new_int_var(1, horizon, "")
                sitting[p].append(m.new_optional_interval_var(t, size, end, lit, ""))
            size = m.new_int_var(1, horizon, "")
            residents.append(m.new_optional_interval_var(t, size, end, space[i][k], ""))
            demands.append(1)
        # In the one-card games a card is the top of its pile at each of its moves; in all, when it goes up.
        for k in range(levels):
            # The level is a move of its own, not the foundation move (that is F) nor carried.
            moving = m.new_bool_var("")
            m.add(moving == act[i][k] - found[i][k] - (run[i] if k == 0 else 0))
            step = m.new_optional_fixed_size_interval_var(T[i][k], 1, moving, "")
            moves.append(step)
            if not runs:
                sitting[i].append(step)
            if k + 1 < levels:  # a card on a parent does not move onto that same parent
                for p, lit in onto[i][k].items():
                    m.add_bool_or([lit.Not(), onto[i][k + 1][p].Not()])
        up_move = m.new_fixed_size_interval_var(F[i], 1, "")
        sitting[i].append(up_move)
        moves.append(up_move)
    m.add_no_overlap(moves)
    # The first move of a win is a legal move of the position, and it is the event at time 1.
    opening = _first_moves(m, deal, cards, at, T, D, found, space, onto)
    if opening is not None:
        m.add_bool_or(opening)
    for p in range(n):
        if len(sitting[p]) > 1:
            m.add_no_overlap(sitting[p])
    # Empty columns: cards in them at any time <= columns emptied before (a column is emptied when its
    # bottom card first moves). Each column not yet emptied holds one unit of the capacity.
    for c, col in enumerate(deal.tableau):
        if col:
            b = at[(c, 0)]
            residents.append(m.new_interval_var(0, T[b][0] + 1, T[b][0] + 1, ""))
            demands.append(1)
    m.add_cumulative(residents, demands, len(deal.tableau))
    # Greedy scheduling: the earliest event first, at its earliest time.
    times = [*F, *[t for ts in T for t in ts], *[d for d in D.values() if isinstance(d, cp_model.IntVar)]]
    m.add_decision_strategy(times, cp_model.CHOOSE_LOWEST_MIN, cp_model.SELECT_MIN_VALUE)
    return m


# The budget in CP-SAT's deterministic time (its own unit of work, about a second of one thread on an
# unloaded machine): figures measured with it do not change with the machine's load.
WORK = 10.0
# Greedy scheduling first (the earliest event first, at its earliest time): it finds a schedule for a
# won position quickly (a won deal of 104 cards within about 0.3 units and 1,000 conflicts), where
# CP-SAT's own search wanders; but it refutes badly, and its work is undercounted in deterministic
# time (a small lost position: 2 units of it took 30 s of wall time), so it is cut at a conflict
# count and at the same share of the wall time. CP-SAT's own search, with its presolve, then refutes
# (small positions: 3 of 3 losses against 1 of 3 for the greedy order alone, at 1 unit). The greedy
# phase skips presolve: on a deal it took 3-6 s of wall time (loaded machine) before any decision.
GREEDY_SHARE = 0.2
GREEDY_CONFLICTS = 1_000


def _solver(work: float, deadline: float, seed: int, *, greedy: bool) -> cp_model.CpSolver:
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = 1
    params.random_seed = seed
    params.max_deterministic_time = max(0.01, work)
    params.max_time_in_seconds = max(0.01, deadline - time.perf_counter())
    if greedy:
        params.search_branching = cp_model.FIXED_SEARCH
        params.max_number_of_conflicts = GREEDY_CONFLICTS
        params.cp_model_presolve = False
        params.cp_model_probing_level = 0
        params.symmetry_level = 0
    return solver


def prove_lost(
    deal: Deal,
    *,
    seconds: float = 30.0,
    work: float = WORK,
    levels: int = LEVELS,
    seed: int = 0,
) -> LossProof:
    """``lost`` if the model of ``deal`` has no solution, else ``unknown``; on one thread, within
    ``work`` units of CP-SAT's deterministic time and ``seconds`` of wall time, whichever ends first.
    The verdict does not depend on how the budget is spent: no solution is a proof whatever the search."""
    start = time.perf_counter()
    deadline = start + seconds
    model = build_model(deal, levels=levels)
    spent = 0.0
    stats = {"conflicts": 0, "branches": 0}
    status = cp_model.UNKNOWN
    solver = None
    for greedy in (True, False):
        if greedy:
            solver = _solver(GREEDY_SHARE * work, start + GREEDY_SHARE * seconds, seed, greedy=True)
        else:
            solver = _solver(work - spent, deadline, seed, greedy=False)
        status = solver.solve(model)
        spent += solver.deterministic_time
        stats["conflicts"] += int(solver.num_conflicts)
        stats["branches"] += int(solver.num_branches)
        if status != cp_model.UNKNOWN or spent >= work - 0.01 or time.perf_counter() >= deadline:
            break
    assert solver is not None
    stats["work_ms"] = round(spent * 1000)
    return LossProof(
        status=LOST if status == cp_model.INFEASIBLE else UNKNOWN,
        seconds=time.perf_counter() - start,
        verdict=solver.status_name(status),
        stats=stats,
        info=solver.solution_info(),
    )


def is_lost(position: Deal | State, *, seconds: float = 30.0, work: float = WORK) -> bool:
    """True only on a proof that ``position`` (a deal, or a game in progress) cannot be won; False when
    the model does not apply, has a schedule, or is not decided within the budget (``prove_lost``)."""
    deal = position.as_deal() if isinstance(position, State) else position
    if not model_applies(deal):
        return False
    return prove_lost(deal, seconds=seconds, work=work).lost
