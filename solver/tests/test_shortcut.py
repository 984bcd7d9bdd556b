"""Shortcuts through winning lines, and wins whose first log is too long for the service."""

from __future__ import annotations

import time

import pytest

from engine import GAME_IDS, MAX_LOG_LENGTH, deal
from engine.moves import T2T
from solver import SolveOptions, core, solve
from solver.log import log_length, to_log, wins
from solver.moves import gen_moves
from solver.shortcut import shortcut
from solver.state import SearchMove, SearchState

# Lucas 1001924: the complete search's first win is 7,460 moves long (20 cards left, the talon
# empty and 7 columns empty by move 250; the rest digs a run of clubs out one card at a time).
WANDERING = ("lucas", 1001924)


def _first_win(game: str, seed: int) -> tuple[SearchState, list[SearchMove]]:
    st = SearchState(deal(game, seed))
    outcome = core.Compiled().search(st, deadline=time.perf_counter() + 30, max_nodes=100_000)
    assert outcome.status == "solved"
    return st, outcome.path


def test_shortcuts_shorten_a_wandering_win_and_it_still_wins() -> None:
    st, path = _first_win(*WANDERING)
    d = deal(*WANDERING)
    assert log_length(path) > MAX_LOG_LENGTH
    before = [list(c) for c in st.cols]
    cut = shortcut(st, path, time.perf_counter() + 30)
    assert [list(c) for c in st.cols] == before  # the state is left as it was
    assert len(cut) < 0.75 * len(path)
    assert wins(d, to_log(d, cut), limit=False)  # every entry legal, ends won


def test_a_loop_in_a_line_is_cut_out() -> None:
    game, seed = "lucas", 2
    st, path = _first_win(game, seed)
    d = deal(game, seed)
    # a card moved out and straight back: the line passes the same position twice
    looped = None
    for k in range(len(path)):
        for m in path[:k]:
            st.play(m)
        pair = None
        for out in (m for m in gen_moves(st) if m.kind == T2T and m.cards == 1):
            st.play(out)
            back = [b for b in gen_moves(st) if b.kind == T2T and (b.src, b.dst, b.cards) == (out.dst, out.src, 1)]
            st.undo(out)
            if back:
                pair = [out, back[0]]
                break
        for m in reversed(path[:k]):
            st.undo(m)
        if pair:
            looped = [*path[:k], *pair, *path[k:]]
            break
    assert looped is not None, "no reversible move on the line"
    assert wins(d, to_log(d, looped), limit=False)
    cut = shortcut(st, looped, time.perf_counter() + 30)
    assert len(cut) <= len(path)
    assert wins(d, to_log(d, cut), limit=False)


def test_log_length_counts_the_draws_a_talon_move_folds_in() -> None:
    d = deal("klondike", 5)
    st = SearchState(d)
    outcome = core.Compiled().search(st, deadline=time.perf_counter() + 20, max_nodes=200_000)
    assert outcome.status == "solved"
    assert log_length(outcome.path) == len(to_log(d, outcome.path))
    assert any(m.draws for m in outcome.path)


def test_a_win_too_long_for_the_service_does_not_end_the_search() -> None:
    result = solve(*WANDERING, seconds=60, max_nodes=100_000)
    assert result.found_length is not None and result.found_length > MAX_LOG_LENGTH  # the complete search's first win
    assert result.status == "solved" and result.moves is not None
    assert len(result.moves) <= MAX_LOG_LENGTH
    assert wins(deal(*WANDERING), result.moves)


def test_a_win_no_log_can_hold_stays_unknown() -> None:
    result = solve("lucas", 2, seconds=60, max_nodes=20_000, options=SolveOptions(max_log_length=20))
    assert result.status == "unknown"
    assert result.moves is None
    assert result.stats["too_long"] > 20


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_IDS)
def test_shortcuts_keep_every_game_s_wins_wins(game: str) -> None:
    # Klondike's talon moves name a card by its place and fold in draws from the current
    # waste/stock split, so the exact state must hold that split too; here with every kind of
    # deal and its own first win (shortcuts taken whatever the length)
    won = 0
    for seed in range(1, 41):
        if won == 3:
            break
        d = deal(game, seed)
        st = SearchState(d)
        outcome = core.Compiled().search(st, deadline=time.perf_counter() + 30, max_nodes=50_000)
        if outcome.status != "solved":
            continue
        won += 1
        cut = shortcut(st, outcome.path, time.perf_counter() + 30)
        assert len(cut) <= len(outcome.path)
        assert wins(d, to_log(d, cut), limit=False)
    assert won
