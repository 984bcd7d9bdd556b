"""The stock-step beam (``beam``): the compiled core against the Python reference, its wins
against the engine, and its place in the solver's schedule."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine import Deal, deal
from engine.moves import T2T, W2F, W2T
from solver import SolveOptions, core, solve_deal
from solver.beam import BeamOutcome, beam_applies, beam_bytes, widths_within
from solver.log import to_log, wins
from solver.reference import python_beam
from solver.reference.beam import DRAW_STEP as DRAW
from solver.reference.beam import REDEAL_STEP as REDEAL
from solver.reference.beam import kplus
from solver.state import SearchMove, SearchState

from .test_search import blocked
from .test_search_helpers import brute_force, make_deal, random_endgame

LIMITED_STOCK = ("forty-thieves", "josephine", "lucas", "limited", "maria", "forty-and-eight")


def both(d: Deal, **kw: Any) -> tuple[BeamOutcome, BeamOutcome]:
    py = python_beam(SearchState(d), deadline=1e18, **kw)
    c = core.Compiled().beam(SearchState(d), deadline=1e18, **kw)
    return py, c


def assert_win_replays(d: Deal, outcome: BeamOutcome) -> None:
    assert outcome.status == "solved" and outcome.best_left == 0
    assert wins(d, to_log(d, outcome.path), limit=False)  # to_log replays every entry with the engine


@pytest.mark.slow
@pytest.mark.parametrize("game", LIMITED_STOCK)
def test_core_beam_is_the_reference_beam_on_real_deals(game: str) -> None:
    """The same nodes, verdict, win and best line, with a cap that ends some levels' searches
    early and a node budget that ends some beams."""
    for seed in (1, 2, 3):
        d = deal(game, seed)
        for width, cap, budget in ((3, 40, None), (12, 80, 20_000)):
            py, c = both(d, max_nodes=budget, width=width, cap=cap)
            assert c == py, (game, seed, width)
            if c.status == "solved":
                assert_win_replays(d, c)
            else:
                assert c.best_left > 0 and c.best_path
                st = SearchState(d)  # the best line is a line of legal moves: the core plays it as a prefix
                out = core.Compiled().search(st, deadline=1e18, max_nodes=1, prefix=c.best_path)
                assert out.nodes <= 1


@pytest.mark.parametrize("game", LIMITED_STOCK)
def test_beam_wins_are_wins_on_small_positions(game: str) -> None:
    """Random small positions (the stock included): both beams agree, every win replays, and a
    win is only ever claimed where the engine's exhaustive search finds one."""
    rng = random.Random(f"beam-{game}")
    claimed = 0
    for _ in range(12):
        d = random_endgame(game, rng, rng.randint(8, 14), stock_share=0.5, columns=3)
        py, c = both(d, max_nodes=None, width=4, cap=60)
        assert c == py, d
        assert c.status in ("solved", "unknown")  # a beam proves nothing
        if c.status == "solved":
            claimed += 1
            assert_win_replays(d, c)
            assert brute_force(d) is True
    assert claimed  # the check above ran


def test_a_blocked_deal_is_left_unknown_never_proven() -> None:
    d = blocked("forty-thieves")
    py, c = both(d, max_nodes=None, width=10, cap=50)
    assert c == py
    assert c.status == "unknown" and c.path == [] and c.nodes == 0


def test_the_beam_is_for_games_with_a_limited_stock_and_no_face_down_cards() -> None:
    for game in LIMITED_STOCK:
        assert beam_applies(SearchState(deal(game, 1)))
    for game in ("klondike", "klondike-3"):
        st = SearchState(deal(game, 1))
        assert not beam_applies(st)
        with pytest.raises(ValueError, match="limited stock"):
            core.Compiled().beam(st, deadline=1e18, max_nodes=10, width=2)
    st = SearchState(deal("forty-thieves", 1))
    for width, cap in ((0, 10), (10, 0), (100_000, 1_000)):
        with pytest.raises(ValueError, match="width"):
            core.Compiled().beam(st, deadline=1e18, max_nodes=10, width=width, cap=cap)


def test_draws_fold_into_the_next_talon_move() -> None:
    """Two draws, a column move, a talon card played (its draws are the two), a draw left over."""
    col = SearchMove(T2T, 0, 1, 1, -1, 0, 0, 0)
    play = SearchMove(W2T, -1, 2, 1, 5, 0, 0, 0)
    up = SearchMove(W2F, -1, -1, 1, 4, 0, 0, 0)
    line = [DRAW, DRAW, col, play, up, DRAW]
    assert kplus(line) == [col, play._replace(draws=2), up]


def test_draws_and_the_redeal_fold_into_the_next_talon_move() -> None:
    """Forty and Eight: the stock drawn dry, the redeal, a draw of the second pass, then a talon card."""
    play = SearchMove(W2F, -1, -1, 1, 0, 0, 0, 0)
    assert kplus([DRAW, DRAW, REDEAL, DRAW, play]) == [play._replace(draws=2, redeal=1, draws_after=1)]
    assert kplus([DRAW, REDEAL, play, DRAW, play]) == [play._replace(draws=1, redeal=1), play._replace(draws=1)]


def test_the_beam_takes_forty_and_eights_redeal() -> None:
    """The position of test_search's test_forty_and_eight_needs_its_redeal (winnable only with
    the redeal, says the engine's exhaustive search): both beams win it through one redeal."""
    tableau = [["JC", "KS"], ["KD", "QC", "9S", "TS", "KC"]]
    d = make_deal(
        "forty-and-eight",
        tableau,
        ["JS", "KH", "QD", "KC", "QS"],
        ["QC", "JD", "QH", "8S", "TC", "KD", "KH", "KS"],
        columns=2,
    )
    py, c = both(d, max_nodes=None, width=5, cap=100)
    assert c == py
    assert_win_replays(d, c)
    assert to_log(d, c.path).count("r") == 1


def test_a_deal_the_restarts_miss_is_won_by_the_beam() -> None:
    """Forty Thieves 1000007: left undecided by the restarts (the study, and 10 s of today's solver
    without the beam), won by a beam of width 100 in well under a second."""
    d = deal("forty-thieves", 1000007)
    c = core.Compiled().beam(SearchState(d), deadline=1e18, max_nodes=None, width=100)
    assert_win_replays(d, c)


def test_the_schedule_runs_the_beam_between_the_complete_search_and_the_restarts() -> None:
    d = deal("forty-thieves", 1000007)
    with_beam = solve_deal(d, seconds=600, max_nodes=2_000_000, shorten_log=False)
    assert with_beam.status == "solved" and with_beam.stats["beams"] >= 1
    assert with_beam.moves is not None and wins(d, with_beam.moves)
    no_beam = SolveOptions(beam_share=0.0)
    without = solve_deal(d, seconds=600, max_nodes=2_000_000, shorten_log=False, options=no_beam)
    assert without.stats["beams"] == 0
    assert without.status == "unknown"


def test_beams_stay_within_the_table_memory_bound() -> None:
    """A beam's table and lines are bounded like the search's table (SOLVER_TABLE_MB): the
    schedule runs only the widths whose beams fit."""
    assert beam_bytes(100) < beam_bytes(1000) < beam_bytes(4000)
    assert widths_within(256, (100, 1000, 4000)) == (100, 1000, 4000)
    assert widths_within(64, (100, 1000, 4000)) == (100, 1000)
    assert widths_within(1, (100, 1000, 4000)) == ()
    d = deal("forty-thieves", 1000007)
    small = solve_deal(d, seconds=600, max_nodes=2_000_000, shorten_log=False, table_mb=1)
    assert small.stats["beams"] == 0  # not even a width-100 beam fits in 1 MiB
