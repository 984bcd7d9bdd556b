"""Hints see only what the player sees, and mark the attempt assisted."""

from __future__ import annotations

import random

import pytest

from engine import GAME_IDS, State, deal, hint
from engine.cards import parse_card


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


def test_a_hint_looks_ahead_to_the_move_after() -> None:
    """5H onto 6H gains nothing by itself but frees 2C for the foundation: the hint finds the two-move
    line, where ranking single moves preferred the waste's 9S onto 10S (which leads nowhere)."""
    state = State(deal("forty-thieves", 1))

    def cards(*texts: str) -> list[int]:
        return [parse_card(t) for t in texts]

    state.tab = [
        cards("KS", "2C", "5H"),
        cards("QD", "6H"),
        cards("TS"),
        *[cards(k) for k in ("KC", "KD", "KH", "KS", "KC", "KD", "KH")],
    ]
    state.down = [0] * 10
    state.found = [parse_card("AC")] + [-1] * 7
    state.on_foundations = 1
    state.waste = cards("9S")
    suggestion = hint(state)
    assert suggestion is not None and str(suggestion.move) == "t1t2", suggestion
    assert "the first of 2 moves" in suggestion.reason


def test_a_hint_says_plainly_when_nothing_on_the_table_helps() -> None:
    state = State(deal("klondike", 2026))  # 8H 8D KC TS KD 7D TH face up: nothing builds
    suggestion = hint(state)
    assert suggestion is not None and str(suggestion.move) == "s"
    assert suggestion.reason == "no move on the table helps here: draw from the stock"
    state.stock.clear()
    state.waste.clear()
    state.tab[2].append(parse_card("7C"))  # on KC: it may go onto 8H or 8D, which gains nothing
    suggestion = hint(state)  # only moves that gain nothing are left, and no stock
    assert suggestion is not None and suggestion.reason.startswith("no move helps here: undo, or give up")
