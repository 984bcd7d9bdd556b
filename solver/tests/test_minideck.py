"""The soundness harness on a sample (``bench/minideck.py`` runs thousands): mini-deals of each
two-deck game's rules, every part of the solver that says "lost" or finds a win held to the
engine's own exhaustive search, and the harness shown to catch a rule that prunes a win away."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine import State, find_rules
from solver.moves import gen_moves
from solver.reference import minideck, searches
from solver.reference.minideck import SHAPES, TWO_DECK_GAMES, Shape, Tally, check, exhaustive, mini_deal

from .test_search_helpers import check_complete


@pytest.mark.parametrize("game", TWO_DECK_GAMES)
def test_a_mini_deal_is_a_position_of_the_game_s_own_rules(game: str) -> None:
    shape = Shape(suits=2, ranks=6, columns=3, rows=4)
    d = mini_deal(game, random.Random(game), shape)
    check_complete(d)  # every card of both decks once: the rest is on the foundations
    real = find_rules(game)
    assert (d.rules.columns, d.rules.rows) == (3, 4)
    assert (d.rules.build, d.rules.unit, d.rules.draw, d.rules.passes) == (
        real.build,
        real.unit,
        real.draw,
        real.passes,
    )
    off = [c for col in d.tableau for c in col] + list(d.stock)
    assert len(off) == shape.cards and len(d.stock) == shape.cards - 12
    assert Counter(c >> 2 for c in off) == {r: 4 for r in range(7, 13)}  # both copies of two suits, 8 to K
    if game == "maria":  # both colours, so that the cards build on one another
        assert {c & 3 in (1, 2) for c in off} == {True, False}
    State(d)  # the engine plays it


def test_mini_deals_refuse_a_shape_that_does_not_fit() -> None:
    with pytest.raises(ValueError):
        mini_deal("forty-thieves", random.Random(1), Shape(suits=1, ranks=2, columns=3, rows=3))
    with pytest.raises(ValueError):
        mini_deal("klondike", random.Random(1), Shape())


@pytest.mark.parametrize("game", TWO_DECK_GAMES)
def test_every_verdict_agrees_with_the_engine_s_exhaustive_search(game: str) -> None:
    """A sample of mini-deals and positions along a random line of each: no checker disagrees,
    and both truths occur (so "lost" claims are put to the test). The Python reference search, held
    node for node to the core by test_core.py, is left to the bench's runs here."""
    found = minideck.checkers(python=False)
    tallies: dict[str, Tally] = {}
    truths: Counter[bool] = Counter()
    for i in range(4):
        rng = random.Random(f"sample-{game}-{i}")
        d = mini_deal(game, rng, SHAPES[game][i % len(SHAPES[game])])
        for position in [d, *minideck.positions_along(d, rng, 2)]:
            truth, _ = exhaustive(position, 5_000)
            if truth is None:
                continue
            truths[truth] += 1
            check(position, truth, tallies, found)
    assert [w for t in tallies.values() for w in t.wrong] == []
    assert truths[True] and truths[False], truths
    complete = tallies["complete search + pruning (core)"]
    assert complete.lost == truths[False] and complete.won == truths[True]  # it decides them all


def test_the_harness_catches_a_rule_that_prunes_a_win_away(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search that never moves a card into an empty column is unsound: the harness reports it."""

    def no_empty_columns(st, rng=None, noise=0):  # type: ignore[no-untyped-def]
        return [m for m in gen_moves(st, rng, noise) if m.dst < 0 or st.cols[m.dst]]

    monkeypatch.setattr(searches, "gen_moves", no_empty_columns)
    found = {"unsound": minideck._searched(searches.PYTHON, prune=False, dominate=False)}
    tallies: dict[str, Tally] = {}
    for i in range(40):
        rng = random.Random(f"unsound-{i}")
        d = mini_deal("forty-thieves", rng, SHAPES["forty-thieves"][0])
        truth, _ = exhaustive(d, 20_000)
        if truth is not None:
            check(d, truth, tallies, found)
        if tallies.get("unsound", Tally()).wrong:
            break
    assert tallies["unsound"].wrong, "a win pruned away went unnoticed"
    assert "says lost, the engine's exhaustive search won" in tallies["unsound"].wrong[0]
