"""Klondike draw 3 proven lost through Klondike (draw 1): ``api.relaxation`` and its phase.

The argument (``engine.rules.weaker_game``): a draw of three puts the cards on the waste one after
the other, the last on top, as three draws of one do; both games redeal the same waste without
limit and share every other rule. So every draw-3 line is a draw-1 line through the same
positions, a draw-3 win is a draw-1 win, and a deal lost drawing one is lost drawing three. The
converse fails: drawing one reaches waste cards drawing three never shows."""

from __future__ import annotations

import dataclasses
import random
import time

import pytest

from engine import GAME_IDS, Deal, deal, find_rules
from solver import SolveOptions, api, solve_deal
from solver.core import Compiled
from solver.search import UNSOLVABLE
from solver.state import SearchState

from .test_search_helpers import brute_force, klondike_endgame

LOST_DRAW_1 = 1000632  # Klondike: proven lost in 655,737 nodes; draw 3's own search: none in 23 M


@pytest.mark.parametrize("game", GAME_IDS)
def test_only_draw_3_has_a_relaxation_and_it_is_klondike_on_the_same_cards(game: str) -> None:
    d = deal(game, 7)
    relaxed = api.relaxation(d)
    if game != "klondike-3":
        assert relaxed is None
        return
    assert relaxed is not None and relaxed.rules == find_rules("klondike")
    assert (relaxed.tableau, relaxed.face_down, relaxed.stock) == (d.tableau, d.face_down, d.stock)


def _endgames(seed: str, count: int) -> list[Deal]:
    rng = random.Random(seed)
    return [klondike_endgame("klondike-3", rng, rng.randint(10, 16), rng.choice((2, 3))) for _ in range(count)]


def test_a_draw_1_loss_is_a_draw_3_loss_by_the_engines_own_exhaustive_search() -> None:
    """The argument itself, with no solver code: on random small positions, whatever the engine
    finds lost drawing one it finds lost drawing three, and whatever it wins drawing three it wins
    drawing one. Both kinds occur, and so do positions lost only drawing three."""
    kinds = {"both lost": 0, "both won": 0, "only draw 3 lost": 0}
    for d in _endgames("relax-engine", 80):
        relaxed = api.relaxation(d)
        assert relaxed is not None and relaxed.rules.columns == d.rules.columns
        one, three = brute_force(relaxed, limit=30_000), brute_force(d, limit=30_000)
        if one is None or three is None:
            continue
        assert not (three and not one), d
        kinds["both lost" if not one else "both won" if three else "only draw 3 lost"] += 1
    assert min(kinds.values()) >= 2, kinds


def test_the_relaxed_search_calls_lost_only_what_exhaustive_search_of_draw_3_finds_lost() -> None:
    """The phase's search (the compiled core on the relaxed position), checked by the engine."""
    searcher, fired = Compiled(None), 0
    for d in _endgames("relax-solver", 80):
        relaxed = api.relaxation(d)
        assert relaxed is not None
        out = searcher.search(SearchState(relaxed), deadline=time.perf_counter() + 30, max_nodes=200_000)
        if out.status == UNSOLVABLE:
            truth = brute_force(d, limit=30_000)
            assert truth is not True, d
            fired += truth is False
    assert fired >= 5


def test_solve_deal_proves_draw_3_lost_by_the_draw_1_search_within_its_share() -> None:
    """A node budget (deterministic), the image game left out (it proves this deal lost first): draw 3's
    own complete search gets 10% of 5 M nodes and ends undecided; the draw-1 search's 15% is enough for
    its proof. Without the phase the same budget decides nothing."""
    no_image = SolveOptions(image_share=0)
    d = deal("klondike-3", LOST_DRAW_1)
    proven = solve_deal(d, seconds=120, max_nodes=5_000_000, options=no_image)
    assert proven.status == "unsolvable" and proven.stats["relaxed"] == 1
    assert proven.stats["relaxed_nodes"] <= no_image.relaxed_share * 5_000_000
    neither = dataclasses.replace(no_image, relaxed_share=0)
    assert solve_deal(d, seconds=120, max_nodes=5_000_000, options=neither).status == "unknown"


def test_a_draw_3_win_is_still_found_and_draw_1_has_no_such_phase() -> None:
    won = solve_deal(deal("klondike-3", 1000004), seconds=10)
    assert won.status == "solved" and "relaxed" not in won.stats
    assert "relaxed_nodes" not in solve_deal(deal("klondike", LOST_DRAW_1), seconds=10).stats
