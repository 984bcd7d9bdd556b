"""Hints see only what the player sees, and mark the attempt assisted."""

from __future__ import annotations

import random

import pytest

from engine import GAME_IDS, State, deal, hint


def shuffle_hidden(state: State, rng: random.Random) -> None:
    """Swap the cards the player cannot see (stock and face-down cards) among themselves."""
    hidden = list(state.stock)
    for col, down in zip(state.tab, state.down, strict=True):
        hidden += col[:down]
    rng.shuffle(hidden)
    state.stock[:] = hidden[: len(state.stock)]
    rest = hidden[len(state.stock) :]
    for col, down in zip(state.tab, state.down, strict=True):
        col[:down], rest = rest[:down], rest[down:]


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_hint_depends_only_on_visible_cards(game: str) -> None:
    rng = random.Random(game)
    for seed in range(15):
        state = State(deal(game, seed))
        for _ in range(rng.randint(0, 40)):
            moves = list(state.legal_moves())
            if not moves:
                break
            state.play(rng.choice(moves))
        expected = hint(state)
        for _ in range(5):
            shuffle_hidden(state, rng)
            assert hint(state) == expected


@pytest.mark.parametrize("game", GAME_IDS)
def test_a_hint_is_legal_and_a_player_following_hints_keeps_moving(game: str) -> None:
    state = State(deal(game, 99))
    for _ in range(150):
        suggestion = hint(state)
        if suggestion is None:
            assert list(state.legal_moves()) == []
            break
        assert suggestion.move in set(state.legal_moves())
        assert suggestion.reason
        state.play(suggestion.move)
    assert state.on_foundations > (8 if game == "lucas" else 0)


def test_a_hint_prefers_the_foundation_and_never_bounces_back() -> None:
    state = State(deal("klondike", 2026))
    state.tab[0] = [0]  # AC alone in column 1
    state.down[0] = 0
    suggestion = hint(state)
    assert suggestion is not None and str(suggestion.move).endswith("f1") and "AC" in suggestion.reason
