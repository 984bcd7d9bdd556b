"""Never-all-up (``dead.never_all_up``): cards that can never go up past a one-pass stock.

Every claim is checked against the engine's own exhaustive search (no solver code), on small
positions made to need each rule and on random ones, and on real deals the study left open."""

from __future__ import annotations

import dataclasses
import random

import pytest

from engine import Deal, deal
from solver import solve_deal
from solver.dead import never_all_up
from solver.reference.frozen import lost
from solver.state import SearchState

from .test_search_helpers import brute_force, claims_agree_with_exhaustive_search, make_deal, random_endgame

ONE_PASS = ["forty-thieves", "josephine", "lucas", "limited", "maria"]
FULL = ["KC", "KD", "KH", "KS"] * 2  # the piles go clubs, diamonds, hearts, spades, twice


def hearts_to(rank: str) -> list[str]:
    """Every pile complete but one of the hearts, which holds up to ``rank``."""
    return [*FULL[:6], f"{rank}H", FULL[7]]


def test_a_run_uncovers_the_card_under_it() -> None:
    """Josephine: the seven of hearts lies under the run 9H 8H, which can only leave as a run
    (onto the ten). The run rule sees it; without it the rule would call a won position lost."""
    d = make_deal("josephine", [["7H", "9H", "8H"], ["KH", "QH", "JH", "TH"]], (), hearts_to("6"), columns=2)
    assert brute_force(d) is True
    assert not never_all_up(SearchState(d))
    st = SearchState(d)
    st.runs = False  # the same cards where only single cards move: stuck, and so it says
    assert never_all_up(st)
    single = make_deal("forty-thieves", [["7H", "9H", "8H"], ["KH", "QH", "JH", "TH"]], (), hearts_to("6"), columns=2)
    assert brute_force(single) is False and never_all_up(SearchState(single))


def test_two_kings_that_wait_for_each_others_column() -> None:
    """Forty Thieves on two columns: each king of spades could only leave for an empty column,
    and each column empties only when a king of spades leaves it (the queens of spades lie
    under one of them). Frozen cards do not see it (a king can go to an empty column); never-all-up
    does, before any search, and the engine's exhaustive search agrees."""
    tops = ["QC", "KD", "KH", "JS", "KC", "KD", "QH", "JS"]
    d = make_deal("forty-thieves", [["KH", "KS"], ["QS", "QS", "KS"]], ["KC"], tops, columns=2)
    assert brute_force(d) is False
    assert never_all_up(SearchState(d)) and not lost(SearchState(d))
    result = solve_deal(d, seconds=5)
    assert result.status == "unsolvable" and result.nodes == 0 and result.stats["never_all_up"] == 1
    # The queens anywhere else (the stock brings them): won, and no claim.
    d = make_deal("forty-thieves", [["KH", "KS"], ["KS"]], ["KC", "QS", "QS"], tops, columns=2)
    assert brute_force(d) is True and not never_all_up(SearchState(d))


@pytest.mark.parametrize("game", ONE_PASS)
def test_every_claim_agrees_with_exhaustive_search(game: str) -> None:
    """Whenever never-all-up calls a random small position lost, the engine's exhaustive search
    agrees (350 such positions over the five games when the rule was written)."""
    rng = random.Random(f"lemma-s-{game}")
    positions = (
        random_endgame(game, rng, rng.randint(8, 18), rng.choice((0.2, 0.4, 0.6)), columns=rng.choice((1, 2, 3)))
        for _ in range(400)
    )
    assert claims_agree_with_exhaustive_search(never_all_up, positions) >= 10


def with_passes(d: Deal, passes: int | None) -> Deal:
    """The same position under the game's rules with ``passes`` passes through the talon."""
    return dataclasses.replace(d, rules=dataclasses.replace(d.rules, passes=passes))


@pytest.mark.parametrize(
    ("game", "passes"), [("forty-and-eight", 2), ("forty-thieves", 2), ("josephine", 2), ("maria", 3), ("limited", 3)]
)
def test_every_claim_with_redeals_left_agrees_with_exhaustive_search(game: str, passes: int) -> None:
    """With redeals to come the stages run pass after pass (a redeal draws the same cards in the
    same order again): every claim on a random small position is a loss by exhaustive search."""
    rng = random.Random(f"lemma-s-passes-{game}")
    positions = (
        with_passes(
            random_endgame(game, rng, rng.randint(8, 16), rng.choice((0.4, 0.6, 0.8)), columns=rng.choice((1, 2))),
            passes,
        )
        for _ in range(300)
    )
    assert claims_agree_with_exhaustive_search(never_all_up, positions) >= 10


def test_a_card_buried_in_the_first_pass_comes_back_in_the_second() -> None:
    """Forty and Eight on one column: in one pass the nine of diamonds is buried on the waste
    under cards that cannot move before it, so the one-pass rule calls the position lost, and
    it is; with the redeal it is drawn again first, and the position is won: no claim."""
    d = make_deal(
        "forty-and-eight",
        [["QD", "KS", "KH", "JH", "JD", "KC", "TD"]],
        ["JC", "9D", "QH", "KD", "TH", "QC", "KS"],
        ["KC", "KD", "KH", "QS", "TC", "8D", "9H", "QS"],
        columns=1,
    )
    one = with_passes(d, 1)
    assert brute_force(one) is False and never_all_up(SearchState(one))
    assert brute_force(d) is True and not never_all_up(SearchState(d))


def test_it_keeps_out_of_klondike() -> None:
    """Face-down cards, unlimited redeals and draw 3: left to the search."""
    assert not never_all_up(SearchState(deal("klondike", 1)))
    assert not never_all_up(SearchState(deal("klondike-3", 1)))


@pytest.mark.parametrize(
    ("game", "seed"),
    [("forty-thieves", 1000162), ("forty-thieves", 1000759), ("josephine", 1000257), ("forty-and-eight", 1000140)],
)
def test_study_deals_it_proves_lost_at_once(game: str, seed: int) -> None:
    """Deals the study's searches left open at 10 s: never-all-up proves them lost before any search
    (Josephine's proofs are Forty Thieves proofs too: the same cards, a game with more moves;
    the Forty and Eight deal with its redeal still to come)."""
    result = solve_deal(deal(game, seed), seconds=5)
    assert result.status == "unsolvable" and result.nodes == 0 and result.stats["never_all_up"] == 1
    # no line was followed, so no count of cards left (a study row says null, not a sentinel)
    assert "best_left" not in result.stats
