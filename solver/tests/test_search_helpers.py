"""Helpers for the solver's tests (no tests here): hand-made deals and an independent brute-force oracle."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine import Deal, Rules, State, find_rules
from solver.state import SearchState


def make_deal(
    game: str,
    tableau: Iterable[Iterable[str]],
    stock: Iterable[str] = (),
    foundations: Sequence[str | None] | None = None,
    face_down: Sequence[int] | None = None,
    seed: int = 0,
    columns: int | None = None,
    **rules_changes: Any,
) -> Deal:
    """A Deal from card texts; ``foundations`` lists the top card text per pile (or None).
    ``columns`` (and other ``Rules`` fields) give the game's rules with fewer columns etc."""
    from engine import parse_card

    rules = find_rules(game)
    if columns is not None:
        rules_changes["columns"] = columns
    if rules_changes:
        rules = dataclasses.replace(rules, **rules_changes)
    cols: list[tuple[int, ...]] = [tuple(parse_card(c) for c in col) for col in tableau]
    cols += [()] * (rules.columns - len(cols))
    tops = [(-1 if t is None else parse_card(t)) for t in (foundations or [])]
    tops += [-1] * (rules.foundations - len(tops))
    deal = Deal(
        rules=rules,
        seed=seed,
        tableau=tuple(cols),
        face_down=tuple(face_down or (0,) * rules.columns),
        stock=tuple(parse_card(c) for c in stock),
        foundations=tuple(tops),
    )
    check_complete(deal)
    return deal


def check_complete(deal: Deal) -> None:
    """Every card of the game's decks is somewhere exactly once per deck."""
    from collections import Counter

    seen = Counter(c for col in deal.tableau for c in col) + Counter(deal.stock)
    for top in deal.foundations:
        if top >= 0:
            for r in range((top >> 2) + 1):
                seen[r * 4 + (top & 3)] += 1
    want = Counter({c: deal.rules.decks for c in range(52)})
    assert seen == want, f"cards wrong: extra {seen - want}, missing {want - seen}"


def brute_force(deal: Deal, limit: int = 2_000_000) -> bool | None:
    """Exhaustive search with the engine itself (no solver code): True/False, None if too big."""
    state = State(deal)
    seen: set[tuple[object, ...]] = set()
    count = 0

    def key() -> tuple[object, ...]:
        return state.key()

    stack = [iter(list(state.legal_moves()))]
    seen.add(key())
    while stack:
        try:
            move = next(stack[-1])
        except StopIteration:
            stack.pop()
            if stack:
                state.undo()
            continue
        state.play(move)
        if state.won:
            return True
        k = key()
        if k in seen:
            state.undo()
            continue
        seen.add(k)
        count += 1
        if count > limit:
            return None
        stack.append(iter(list(state.legal_moves())))
    return False


def random_endgame(
    game: str, rng: random.Random, remaining: int, stock_share: float = 0.3, columns: int | None = None
) -> Deal:
    """A random position with ``remaining`` cards off the foundations; with ``columns``, the
    game's rules on fewer columns (a smaller, often blocked, variant: the engine and the
    solver take the column count from the deal)."""
    rules = find_rules(game)
    if columns is not None:
        rules = dataclasses.replace(rules, columns=columns)
    counts, off = _take_off(rules, rng, remaining)
    rng.shuffle(off)
    ncols = rules.columns
    cols: list[list[int]] = [[] for _ in range(ncols)]
    stock: list[int] = []
    for i, card in enumerate(off):
        if i < ncols and len(off) - ncols >= 4:
            cols[i].append(card)  # every column starts non-empty when there are cards enough
        elif rng.random() < stock_share:
            stock.append(card)
        else:
            cols[rng.randrange(ncols)].append(card)
    klondike = rules.layout.value == "klondike"
    down = [rng.randrange(len(c)) if c and klondike else 0 for c in cols]
    deal = Deal(
        rules=rules,
        seed=0,
        tableau=tuple(tuple(c) for c in cols),
        face_down=tuple(down),
        stock=tuple(stock),
        foundations=_tops(counts),
    )
    check_complete(deal)
    return deal


def _take_off(rules: Rules, rng: random.Random, remaining: int) -> tuple[list[int], list[int]]:
    """Start from all piles complete and take ``remaining`` cards back off random piles:
    the pile counts left and the cards taken off, in the order taken."""
    piles = rules.foundations
    counts = [13] * piles
    off: list[int] = []
    while len(off) < remaining:
        f = rng.randrange(piles)
        if counts[f] > (1 if rules.aces_start_on_foundations else 0):
            counts[f] -= 1
            off.append(counts[f] * 4 + f % 4)
    return counts, off


def _tops(counts: list[int]) -> tuple[int, ...]:
    """Each pile's top card from its count (-1: empty)."""
    return tuple((c - 1) * 4 + f % 4 if c else -1 for f, c in enumerate(counts))


def klondike_endgame(game: str, rng: random.Random, remaining: int, columns: int) -> Deal:
    """A random Klondike position shaped like a real one: in every column a few face-down
    cards under one face-up run built down in alternate colours; the rest in the stock."""
    rules = dataclasses.replace(find_rules(game), columns=columns)
    counts, off = _take_off(rules, rng, remaining)
    pool = set(off)
    red = (False, True, True, False)
    cols: list[tuple[int, ...]] = []
    down: list[int] = []
    for _ in range(columns):
        col: list[int] = []
        for _ in range(rng.randint(1, 5)):
            if pool:
                col.append(rng.choice(sorted(pool)))
                pool.discard(col[-1])
        hidden = len(col)
        if pool:
            card = rng.choice(sorted(pool))
            for _ in range(rng.randint(1, 9)):
                pool.discard(card)
                col.append(card)
                r, s = card >> 2, card & 3
                kids = [(r - 1) * 4 + t for t in range(4) if r and red[t] != red[s] and (r - 1) * 4 + t in pool]
                if not kids:
                    break
                card = rng.choice(kids)
        cols.append(tuple(col))
        down.append(min(hidden, len(col) - 1) if col else 0)
    stock = sorted(pool)
    rng.shuffle(stock)
    deal = Deal(
        rules=rules, seed=0, tableau=tuple(cols), face_down=tuple(down), stock=tuple(stock), foundations=_tops(counts)
    )
    check_complete(deal)
    return deal


def claims_agree_with_exhaustive_search(
    rule: Callable[[SearchState], bool], positions: Iterable[Deal], limit: int = 200_000, enough: int | None = None
) -> int:
    """Every position among ``positions`` that ``rule`` calls lost is lost by the engine's own
    exhaustive search; how many it called lost (stopping at ``enough``)."""
    fired = 0
    for d in positions:
        if not rule(SearchState(d)):
            continue
        assert brute_force(d, limit=limit) is False, d
        fired += 1
        if enough is not None and fired >= enough:
            break
    return fired
