"""The engine against the contract's test vectors (SPEC sections 3 and 6).

``data/vectors/*.jsonl`` are copies of the shared vectors (``/work/shared/vectors``) so that a
clone of the repository checks itself; the replay results there come from an independent
implementation.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from engine import GAME_IDS, State, card_text, deal, parse_card, replay
from engine.cards import canonical_deck
from engine.rng import SplitMix64, shuffle

VECTORS = Path(__file__).resolve().parent / "data" / "vectors"


def _load(name: str) -> list[dict[str, Any]]:
    with open(VECTORS / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


DEAL_VECTORS = _load("deals.jsonl")
REPLAY_VECTORS = _load("replay.jsonl")


def _id(v: dict[str, Any]) -> str:
    return f"{v['game']}-{v['seed']}"


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def texts(seq: Iterable[int]) -> str:
    return " ".join(card_text(c) for c in seq)


# -- the vector files ----------------------------------------------------------------------------


def test_vector_files_cover_every_game() -> None:
    assert {v["game"] for v in DEAL_VECTORS} == set(GAME_IDS)
    assert {v["game"] for v in REPLAY_VECTORS} == set(GAME_IDS)
    assert any("error" in v["expect"] for v in REPLAY_VECTORS)
    assert any("error" not in v["expect"] for v in REPLAY_VECTORS)


@pytest.mark.parametrize("vector", DEAL_VECTORS, ids=_id)
def test_deal_vector(vector: dict[str, Any]) -> None:
    assert deal(vector["game"], vector["seed"]).to_json() == vector


@pytest.mark.parametrize("vector", REPLAY_VECTORS, ids=lambda v: f"{_id(v)}-{len(v['moves'])}")
def test_replay_vector(vector: dict[str, Any]) -> None:
    result = replay(vector["game"], vector["seed"], vector["moves"])
    expect = vector["expect"]
    if "error" in expect:
        assert result.error is not None, f"expected an error at {expect['error']}"
        assert result.error.index == expect["error"]["index"]
        assert result.error.move == expect["error"]["move"]
        assert isinstance(result.error.reason, str) and result.error.reason.strip()
        out = result.to_json()
        assert set(out) == {"error"}
        error = out["error"]
        assert isinstance(error, dict)
        assert error["index"] == expect["error"]["index"]
        assert error["move"] == expect["error"]["move"]
        assert error["reason"] == result.error.reason
        # Nothing after the illegal entry is applied: the state is the legal prefix's.
        prefix = replay(vector["game"], vector["seed"], vector["moves"][: result.error.index])
        assert prefix.error is None
        assert result.state.key() == prefix.state.key()
        assert result.state.result() == prefix.state.result()
    else:
        assert result.error is None, result.error
        assert result.to_json() == expect
        assert result.state.moves == len(vector["moves"])


# -- SPEC section 3's inline vectors ------------------------------------------------------------


def test_splitmix64_seed_0_first_output() -> None:
    assert SplitMix64(0).next() == 0xE220A8397B1DCDAF


def test_splitmix64_wraps_at_2_64() -> None:
    rng = SplitMix64(2**64 - 1)
    for _ in range(100):
        assert 0 <= rng.next() < 2**64
    assert 0 <= rng.state < 2**64


def test_shuffled_two_deck_order_seed_1() -> None:
    deck = canonical_deck(2)
    shuffle(deck, 1)
    assert texts(deck[:8]) == "6H 7H JC 8C KS 7D 6S 8C"
    assert texts(deck[-4:]) == "JD AC 4H 7S"
    assert sorted(deck) == sorted(canonical_deck(2))


def test_canonical_deck_order() -> None:
    deck = canonical_deck(2)
    assert len(deck) == 104
    assert texts(deck[:13]) == "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
    assert texts(deck[13:15]) == "AD 2D"
    assert texts(deck[38:40]) == "KH AS"
    assert deck[52:] == deck[:52]


def test_josephine_seed_1() -> None:
    d = deal("josephine", 1)
    assert texts(d.tableau[0]) == "6H 5C JC 8D"
    assert texts(d.tableau[9]) == "9C 4C 9C 6D"
    assert texts(d.stock[:3]) == "6H KH 3H"
    # The stock is drawn in that order by the state as well.
    state = State(d)
    for expected in ("6H", "KH", "3H"):
        state.play_text("s")
        assert card_text(state.waste[-1]) == expected


def test_klondike_seed_2026() -> None:
    d = deal("klondike", 2026)
    face_up = [col[down] for col, down in zip(d.tableau, d.face_down, strict=True)]
    assert texts(face_up) == "8H 8D KC TS KD 7D TH"
    assert all(len(col) - down == 1 for col, down in zip(d.tableau, d.face_down, strict=True))
    assert texts(d.stock[:3]) == "5D JS QS"


def test_klondike_3_seed_2026_draws_three_at_once() -> None:
    state = State(deal("klondike-3", 2026))
    state.play_text("s")
    assert texts(state.waste) == "5D JS QS"  # one by one: QS ends on top
    assert card_text(state.waste[-1]) == "QS"


def test_deal_from_the_front_of_the_shuffled_deck() -> None:
    """SPEC 3.5 spelled out on seed 1: rows left to right, Klondike's triangle, the rest is stock."""
    deck = canonical_deck(2)
    shuffle(deck, 1)
    for game, cols, rows in (
        ("josephine", 10, 4),
        ("forty-thieves", 10, 4),
        ("limited", 12, 3),
        ("maria", 9, 4),
        ("forty-and-eight", 8, 5),
    ):
        d = deal(game, 1)
        for k in range(cols * rows):
            assert d.tableau[k % cols][k // cols] == deck[k]
        assert list(d.stock) == deck[cols * rows :]
    lucas = deal("lucas", 1)
    aces = [c for c in deck if c < 4]
    rest = [c for c in deck if c >= 4]
    assert list(lucas.foundations) == aces
    for k in range(39):
        assert lucas.tableau[k % 13][k // 13] == rest[k]
    assert list(lucas.stock) == rest[39:]
    one = canonical_deck(1)
    shuffle(one, 1)
    k = 0
    columns: list[list[int]] = [[] for _ in range(7)]
    for row in range(7):
        for col in range(row, 7):
            columns[col].append(one[k])
            k += 1
    kl = deal("klondike", 1)
    assert [list(c) for c in kl.tableau] == columns
    assert list(kl.face_down) == list(range(7))
    assert list(kl.stock) == one[28:]
    assert deal("klondike-3", 1).tableau == kl.tableau
