"""Game review (``solver.review``): checked against the engine's own exhaustive search."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import cast

import pytest

from engine import GAME_IDS, Deal, Move, State, card_text, deal
from solver.review import (
    GAVE_UP_WINNABLE,
    LOST,
    NEVER_WINNABLE,
    UNDECIDED,
    WON,
    Budget,
    Line,
    Review,
    played_line,
    position,
    review_deal,
    review_game,
    wins_from,
)
from solver.search import SOLVED

from .test_search_helpers import brute_force, make_deal, random_endgame

FULL = Budget(probe_seconds=10, probe_nodes=None, probes=40, seconds=120)


def truth_along(d: Deal, line: Line) -> list[bool | None]:
    """The engine's exhaustive verdict for every position of the line played."""
    return [brute_force(position(d, line, k).as_deal(), limit=20_000) for k in range(len(line.moves) + 1)]


def assert_win_checked(d: Deal, review: Review) -> None:
    assert review.win is not None and review.winnable_after is not None
    assert wins_from(d, review.line, review.winnable_after, review.win)


# -- a position in the middle of a game as a deal -------------------------------------------------


@pytest.mark.parametrize("game", GAME_IDS)
def test_mid_game_position_as_a_deal_plays_on_the_same(game: str) -> None:
    rng = random.Random(game)
    for seed in (1, 2, 3):
        state = State(deal(game, seed))
        for _ in range(rng.randint(20, 90)):
            moves = list(state.legal_moves())
            if not moves or state.won:
                break
            state.play(rng.choice(moves))
        again = State(state.as_deal())
        assert again.key() == state.key()
        for _ in range(40):  # and they stay the same along any continuation
            texts = sorted(map(str, state.legal_moves()))
            assert texts == sorted(map(str, again.legal_moves()))
            if not texts:
                break
            text = rng.choice(texts)
            state.play(Move.parse(text))
            again.play(Move.parse(text))
            assert again.key() == state.key()


@pytest.mark.parametrize("game", GAME_IDS)
def test_solver_from_mid_game_positions_agrees_with_exhaustive_search(game: str) -> None:
    """Small random positions, a few random moves in (a waste, a redeal used): the solver's
    verdict from there matches the engine's exhaustive search, and its wins replay."""
    from solver import solve_deal

    rng = random.Random(f"mid-{game}")
    verdicts = set()
    checked = 0
    for _ in range(80):
        d = random_endgame(game, rng, rng.randint(10, 16), 0.6, columns=rng.choice((2, 3)))
        state = State(d)
        for _ in range(rng.randint(1, 8)):
            moves = list(state.legal_moves())
            if not moves or state.won:
                break
            state.play(rng.choice(moves))
        if state.won:
            continue
        mid = state.as_deal()
        truth = brute_force(mid, limit=20_000)
        if truth is None:
            continue
        result = solve_deal(mid, seconds=20)
        assert result.status != "unknown"
        assert (result.status == SOLVED) == truth, mid
        if truth:
            check = State(mid)
            assert result.moves is not None
            for text in result.moves:
                check.play(Move.parse(text))
            assert check.won
        verdicts.add(truth)
        checked += 1
        if checked >= 10 and len(verdicts) == 2:
            break
    assert verdicts == {True, False}


# -- the line played ------------------------------------------------------------------------------


def test_undone_moves_leave_the_line_played() -> None:
    d = deal("klondike", 2026)
    line = played_line(d, ["s", "s", "u", "s", "u", "u", "s", "s"])
    assert [m.move for m in line.moves] == ["s", "s"]
    assert [m.index for m in line.moves] == [6, 7]
    assert line.undos == 3 and line.entries == 8 and line.error is None


def test_an_illegal_entry_ends_the_line_and_is_reported() -> None:
    line = played_line(deal("josephine", 1), ["s", "t1f1", "s"])
    assert [m.move for m in line.moves] == ["s"]
    assert line.error is not None and line.error["index"] == 1


# -- hand-made games with a known losing move -----------------------------------------------------


def forty_thieves_needed_card_thrown() -> Deal:
    """Two columns: the hearts from KH down to 6H | 3H 5H; the stock holds 4H; hearts at 2H on one
    foundation (all else home). The win: draw 4H, put 5H on 6H, then the hearts home from 3H.
    Playing 4H onto 5H instead buries the 3H under 5H and 4H with no column free: lost."""
    run = ["KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H"]
    return make_deal(
        "forty-thieves",
        [run, ["3H", "5H"]],
        stock=["4H"],
        foundations=["KC", "KD", "2H", "KS", "KC", "KD", "KH", "KS"],
        columns=2,
    )


def forty_thieves_ace_buried() -> Deal:
    """One column: QH under the clubs from KC down to 2C; the stock: AC then KH; one clubs
    foundation empty, one hearts at JH. Drawing KH over the AC (one pass: it never comes back)
    loses: KH has nowhere to go and the clubs wait for their ace."""
    col = ["QH", "KC", "QC", "JC", "TC", "9C", "8C", "7C", "6C", "5C", "4C", "3C", "2C"]
    return make_deal(
        "forty-thieves",
        [col],
        stock=["AC", "KH"],
        foundations=[None, "KD", "JH", "KS", "KC", "KD", "KH", "KS"],
        columns=1,
    )


def klondike_king_without_a_home() -> Deal:
    """Two columns: empty | QD QH (face down) KD; the stock: KH; hearts and diamonds at J.
    The win: KD into the empty column, QH and QD home, then the kings. Putting KH into the
    empty column instead leaves KD with no home, over the queens both kings wait for: lost."""
    return make_deal(
        "klondike",
        [[], ["QD", "QH", "KD"]],
        stock=["KH"],
        face_down=(0, 2),
        foundations=["KC", "JD", "JH", "KS"],
        columns=2,
    )


@pytest.mark.parametrize(
    ("make", "log", "ply", "index", "words"),
    [
        (forty_thieves_needed_card_thrown, ["s", "wt2"], 2, 1, "4H from the waste onto 5H in column 2"),
        (forty_thieves_ace_buried, ["s", "s", "u", "s"], 2, 3, "a draw from the stock: KH covered AC on the waste"),
        (klondike_king_without_a_home, ["t2t1", "u", "s", "wt1"], 2, 3, "KH from the waste into the empty column 1"),
    ],
)
def test_the_losing_move_of_a_hand_made_game(
    make: Callable[[], Deal], log: list[str], ply: int, index: int, words: str
) -> None:
    d = make()
    review = review_deal(d, log, budget=FULL)
    truth = truth_along(d, review.line)
    assert truth[:ply] == [True] * ply and truth[ply:] == [False] * (len(truth) - ply)  # the oracle agrees
    assert review.outcome == LOST
    assert (review.winnable_after, review.lost_after) == (ply - 1, ply)
    assert review.losing_move is not None
    assert (review.losing_move.ply, review.losing_move.index, review.losing_move.words) == (ply, index, words)
    assert_win_checked(d, review)
    assert review.claims[0] == f"Move {ply} lost the game: {words}."
    assert review.to_json()["undecided_between"] is None


def test_in_josephine_the_same_move_loses_nothing() -> None:
    """Josephine moves same-suit runs as a unit: 5H 4H goes onto 6H together, so playing 4H onto 5H
    (the losing move of Forty Thieves above) still leaves a win, which the review shows from there."""
    d = forty_thieves_needed_card_thrown()
    d = make_deal(
        "josephine",
        [[card_text(c) for c in col] for col in d.tableau],
        stock=["4H"],
        foundations=["KC", "KD", "2H", "KS", "KC", "KD", "KH", "KS"],
        columns=2,
    )
    review = review_deal(d, ["s", "wt2"], budget=FULL)
    assert truth_along(d, review.line) == [True, True, True]
    assert review.outcome == GAVE_UP_WINNABLE and review.winnable_after == 2
    assert_win_checked(d, review)
    assert review.win is not None and review.win[0] == "t2t1:2"


def test_given_up_in_a_winnable_position_gets_the_win_from_there() -> None:
    d = klondike_king_without_a_home()
    review = review_deal(d, ["s"], budget=FULL)
    assert review.outcome == GAVE_UP_WINNABLE
    assert review.winnable_after == 1 and review.lost_after is None
    assert len(review.probes) == 1  # the end was probed first: no bisection needed
    assert_win_checked(d, review)
    assert "still be won" in review.claims[0]


def test_a_deal_without_a_win() -> None:
    run = ["KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H"]
    d = make_deal(
        "forty-thieves",
        [["3H", "5H", "4H"], run],
        foundations=["KC", "KD", "2H", "KS", "KC", "KD", "KH", "KS"],
        columns=2,
    )
    assert brute_force(d) is False
    review = review_deal(d, [], budget=FULL)
    assert review.outcome == NEVER_WINNABLE
    assert review.lost_after == 0 and review.winnable_after is None and review.win is None


def test_a_won_game_is_compared_with_the_solution() -> None:
    d = forty_thieves_ace_buried()
    win = ["s", "wf1"] + ["t1f1"] * 12 + ["t1f3", "s", "wf3"]
    log = ["s", "s", "u", "u", "s", "wf1"] + ["t1f1"] * 12 + ["t1f3", "s", "wf3"]
    review = review_deal(d, log, budget=FULL, solution=win)
    assert review.outcome == WON and review.probes == []
    assert review.comparison == {
        "player": {"moves": 21, "effective_moves": 17, "undos": 2, "draws": 2, "redeals": 0},
        "solution": {"moves": 17, "effective_moves": 17, "undos": 0, "draws": 2, "redeals": 0},
        "moves_more_than_solution": 4,
    }


# -- random games against the oracle --------------------------------------------------------------


@pytest.mark.parametrize("game", ["forty-thieves", "josephine", "maria", "forty-and-eight"])
def test_reviews_of_random_games_agree_with_exhaustive_search(game: str) -> None:
    """Random small games, undos included: the review's last winnable and first lost positions
    are exactly the engine's, position by position. (Klondike's random walks on small positions
    are lost from the start or never: its losing move is the hand-made game's above.)"""
    rng = random.Random(f"review-{game}")
    outcomes = set()
    reviewed = 0
    for _ in range(60):
        d = random_endgame(game, rng, rng.randint(10, 14), 0.5, columns=rng.choice((2, 3)))
        state = State(d)
        log: list[str] = []
        for _ in range(rng.randint(3, 14)):
            moves = list(state.legal_moves())
            if state.won or not moves:
                break
            text = "u" if state.history and rng.random() < 0.15 else str(rng.choice(moves))
            state.play(Move.parse(text))
            log.append(text)
        if state.won:
            continue
        review = review_deal(d, log, budget=FULL)
        truth = truth_along(d, review.line)
        if None in truth:
            continue
        assert truth == sorted(cast(list[bool], truth), reverse=True)  # winnability only falls along the line
        last = max((k for k, t in enumerate(truth) if t), default=None)
        assert review.winnable_after == last
        if review.outcome == GAVE_UP_WINNABLE:
            assert last == len(truth) - 1
        elif last is None:
            assert review.outcome == NEVER_WINNABLE
        else:
            assert review.outcome == LOST and review.lost_after == last + 1
        if last is not None:
            assert_win_checked(d, review)
        outcomes.add(review.outcome)
        reviewed += 1
        if reviewed >= 12 and LOST in outcomes:
            break
    assert LOST in outcomes


# -- undecided is never lost ----------------------------------------------------------------------


def random_walk(game: str, seed: int, steps: int) -> list[str]:
    rng = random.Random(seed)
    state = State(deal(game, seed))
    log = []
    for _ in range(steps):
        moves = [m for m in state.legal_moves() if m.kind != 2]
        if not moves or state.won:
            break
        move = rng.choice(moves)
        state.play(move)
        log.append(str(move))
    return log


def test_a_budget_too_small_reports_undecided_never_lost() -> None:
    log = random_walk("forty-thieves", 7, 25)
    review = review_game("forty-thieves", 7, log, budget=Budget(probe_seconds=5, probe_nodes=30, probes=6))
    assert review.outcome == UNDECIDED
    assert all(p.verdict != "lost" for p in review.probes) and review.lost_after is None
    assert review.losing_move is None
    between = review.to_json()["undecided_between"]
    assert isinstance(between, list) and between[1] == len(review.line.moves)
    assert any(c.startswith("Undecided") for c in review.claims)
    assert not any("no win was possible" in c for c in review.claims)


def test_the_days_solution_proves_the_deal_winnable_without_a_solve() -> None:
    from solver import solve

    solution = solve("klondike", 3, seconds=20).moves
    assert solution
    log = random_walk("klondike", 3, 15)
    review = review_game(
        "klondike", 3, log, budget=Budget(probe_seconds=5, probe_nodes=30, probes=1), solution=solution
    )
    assert all(p.ply != 0 for p in review.probes)
    if review.outcome == UNDECIDED:
        assert review.winnable_after is not None
        if review.winnable_after == 0:
            assert review.win_source == "solution" and review.win == solution
    assert_win_checked(deal("klondike", 3), review)


def test_a_wrong_solution_is_not_taken_as_proof() -> None:
    log = random_walk("forty-thieves", 7, 10)
    review = review_game(
        "forty-thieves", 7, log, budget=Budget(probe_seconds=5, probe_nodes=30, probes=2), solution=["s", "s"]
    )
    assert review.win_source != "solution"


def test_a_gap_left_undecided_is_probed_again_with_a_larger_budget() -> None:
    log = random_walk("forty-thieves", 7, 25)
    flat = review_game(
        "forty-thieves", 7, log, budget=Budget(probe_seconds=5, probe_nodes=30, probes=40, escalations=0)
    )
    assert max(p.nodes for p in flat.probes) <= 30
    grown = review_game(
        "forty-thieves", 7, log, budget=Budget(probe_seconds=5, probe_nodes=30, probes=40, escalations=1)
    )
    assert 30 < max(p.nodes for p in grown.probes) <= 120
    assert len(grown.probes) > len(flat.probes)
    assert all(p.verdict != "lost" for p in grown.probes) or grown.lost_after is not None
