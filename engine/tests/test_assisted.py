"""The assisted rule of SPEC section 7: an undo that takes back a move which disclosed a card.

``data/vectors/assisted.jsonl`` is ours (not a copy of the shared vectors): logs of every game kind
with the expected ``assisted`` flag and the index of the undo that set it, each with a ``why``. The
property test checks the engine against a reference written from the SPEC's words alone: it follows
where every stock card and every face-down card of the deal is (by its place in the deal), keeps
a copy of the position before each move instead of using the engine's undo, and calls a move
disclosing when it shows a card of the deal that no earlier position of the game showed.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import (
    DRAW,
    GAME_IDS,
    REDEAL,
    T2F,
    T2T,
    UNDO,
    W2F,
    W2T,
    IllegalMoveError,
    Move,
    State,
    deal,
    play_log,
    replay,
)

VECTORS = Path(__file__).resolve().parent / "data" / "vectors" / "assisted.jsonl"
ASSISTED_VECTORS = [json.loads(line) for line in VECTORS.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("vector", ASSISTED_VECTORS, ids=lambda v: f"{v['game']}-{v['seed']}-{len(v['moves'])}")
def test_assisted_vector(vector: dict[str, Any]) -> None:
    result = replay(vector["game"], vector["seed"], vector["moves"])
    expect = vector["expect"]
    assert result.assisted is expect["assisted"], vector["why"]
    assert result.assisted_at == expect["assisted_at"], vector["why"]
    assert (None if result.error is None else result.error.index) == expect.get("error")


def test_vectors_cover_every_kind() -> None:
    games = {v["game"] for v in ASSISTED_VECTORS}
    assert {"forty-thieves", "josephine", "forty-and-eight", "klondike", "klondike-3"} <= games
    assert any(v["expect"]["assisted"] for v in ASSISTED_VECTORS)
    assert any(not v["expect"]["assisted"] and "r" in v["moves"] for v in ASSISTED_VECTORS)


def test_issue_24_probe_1_is_assisted_at_the_first_undo() -> None:
    """Draw the 64 stock cards of Josephine, undo the 64 draws: the first undo marks the game."""
    result = replay("josephine", 1, ["s"] * 64 + ["u"] * 64)
    assert result.error is None and result.state.score == 0
    assert result.assisted and result.assisted_at == 64


def test_undo_would_assist_tells_before_the_undo() -> None:
    state = State(deal("forty-and-eight", 1))
    assert not state.undo_would_assist()  # nothing to undo
    state.play_text("s")
    assert state.undo_would_assist()
    for _ in range(63):
        state.play_text("s")
    state.play_text("r")
    assert not state.undo_would_assist()  # a redeal shows nothing new
    state.play_text("s")
    assert not state.undo_would_assist()  # the second pass shows cards already seen
    state.play_text("u")
    state.play_text("u")
    assert (state.undo_would_assist(), state.assisted) == (True, False)  # the last draw of the first pass
    state.play_text("u")
    assert state.assisted and state.assisted_at == 68
    state.play_text("s")
    assert not state.undo_would_assist()  # already assisted: nothing more to mark


def test_a_failed_undo_changes_nothing() -> None:
    state = State(deal("klondike", 9))
    with pytest.raises(IllegalMoveError):
        state.play_text("u")
    assert state.assisted_at is None and state.moves == 0


def test_snapshot_keeps_what_was_disclosed() -> None:
    state = State(deal("klondike", 9))
    for text in ["t6t3", "s", "s"]:
        state.play_text(text)
    back = State.restore(deal("klondike", 9), state.snapshot())
    assert back.undo_would_assist()
    back.play_text("u")
    assert back.assisted_at == 3
    state.play_text("u")
    state.play_text("u")
    back = State.restore(deal("klondike", 9), state.snapshot())
    assert back.assisted_at == 3 and (back.seen_stock, back.seen_down) == (2, state.seen_down)


def test_an_old_snapshot_is_refused() -> None:
    """Snapshots of format 1 (before the rule) carry no disclosures: the caller replays instead."""
    state = State(deal("josephine", 1))
    old = (1, *state.snapshot()[1:14])
    with pytest.raises(ValueError):
        State.restore(deal("josephine", 1), old)


# -- the reference -------------------------------------------------------------------------------


class Reference:
    """Where each card of the deal is, by its place in the deal, for the piles that hide cards.

    Stock cards are named ("s", i) by their order in the deal's stock, face-down cards ("t", col, row).
    A card is seen once it is on the waste, or (face-down ones) once it is the face-up last card of
    its column. The state before each move is kept whole, so undo is a pop.
    """

    def __init__(self, game: str, seed: int) -> None:
        self.deal = deal(game, seed)
        self.state = State(self.deal)
        self.stock = [("s", i) for i in reversed(range(len(self.deal.stock)))]  # the next drawn at the end
        self.waste: list[tuple[str, int]] = []
        self.seen: set[tuple[str | int, ...]] = set()  # ("s", stock index) or ("t", column, row)
        self.stack: list[tuple[State, list[tuple[str, int]], list[tuple[str, int]], bool]] = []
        self.assisted_at: int | None = None
        self.entries = 0

    def play(self, move: Move) -> None:
        if move.kind == UNDO:
            self.state, self.stock, self.waste, disclosed = self.stack.pop()
            if disclosed and self.assisted_at is None:
                self.assisted_at = self.entries
            self.entries += 1
            return
        before = (copy.deepcopy(self.state), list(self.stock), list(self.waste))
        self.state.play(move)  # a fresh copy is kept: the engine's own undo is never used here
        if move.kind == DRAW:
            for _ in range(min(self.deal.rules.draw, len(self.stock))):
                self.waste.append(self.stock.pop())
        elif move.kind == REDEAL:
            self.stock, self.waste = self.waste[::-1], []
        elif move.kind in (W2T, W2F):
            self.waste.pop()
        shown: set[tuple[str | int, ...]] = set(self.waste)
        for col, down in enumerate(self.state.down):
            if self.deal.face_down[col] > down:
                shown |= {("t", col, row) for row in range(down, self.deal.face_down[col])}
        disclosed = bool(shown - self.seen)
        self.seen |= shown
        self.stack.append((*before, disclosed))
        self.entries += 1


UNDO_OFTEN = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("game", GAME_IDS)
@UNDO_OFTEN
@given(
    seed=st.integers(min_value=0, max_value=2**64 - 1),
    rng_seed=st.integers(min_value=0, max_value=2**32 - 1),
    length=st.integers(min_value=0, max_value=200),
)
def test_assisted_agrees_with_the_reference(game: str, seed: int, rng_seed: int, length: int) -> None:
    """Random play with many undos and redeals: the engine marks exactly where the reference does,
    replays and snapshots agree, and undo_would_assist() foretells each mark."""
    rng = random.Random(rng_seed)
    ref = Reference(game, seed)
    state = State(deal(game, seed))
    log: list[str] = []
    for _ in range(length):
        moves = [m for m in state.legal_moves() if m.kind in (DRAW, REDEAL, T2T, T2F, W2T, W2F) or rng.random() < 0.3]
        if state.can_undo() and (not moves or rng.random() < 0.3):
            move = Move(UNDO)
        elif moves:
            draws = [m for m in moves if m.kind in (DRAW, REDEAL)]
            move = rng.choice(draws if draws and rng.random() < 0.5 else moves)
        else:
            break
        foretold = state.undo_would_assist() if move.kind == UNDO else False
        marked_before = state.assisted
        state.play(move)
        ref.play(move)
        log.append(str(move))
        if move.kind == UNDO:
            assert foretold == (state.assisted and not marked_before)
        assert state.assisted_at == ref.assisted_at, log
        if rng.random() < 0.05:
            state = State.restore(deal(game, seed), state.snapshot())
    result = replay(game, seed, log)
    assert result.error is None and result.assisted_at == ref.assisted_at
    cut = len(log) // 2
    pieces = State(deal(game, seed))
    assert play_log(pieces, log[:cut]) is None and play_log(pieces, log[cut:], start=cut) is None
    assert pieces.assisted_at == ref.assisted_at
