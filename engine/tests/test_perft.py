"""Perft: the number of move sequences from fixed positions guards the move generator.

The counts in ``data/perft.json`` were made by ``python -m engine.tests.make_perft``, which first
checks every node down to depth 3 against an independent, SPEC-derived move generator. A change
in ``legal_moves()`` (a lost or an extra move anywhere in the tree) changes a count here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import GAME_IDS
from engine.tests.make_perft import checked_perft, perft, start

DATA = Path(__file__).resolve().parent / "data" / "perft.json"
POSITIONS = json.loads(DATA.read_text())["positions"]


def _id(pos: dict[str, Any]) -> str:
    return f"{pos['game']}-{pos['seed']}-{len(pos['log'])}"


def test_every_game_has_two_seeds_from_the_deal() -> None:
    for game in GAME_IDS:
        seeds = {p["seed"] for p in POSITIONS if p["game"] == game and not p["log"]}
        assert len(seeds) >= 2, game
    assert all(len(p["counts"]) >= 3 for p in POSITIONS)


@pytest.mark.parametrize("pos", POSITIONS, ids=_id)
def test_perft(pos: dict[str, Any]) -> None:
    state = start(pos["game"], pos["seed"], pos["log"])
    before = (state.key(), state.score, state.moves)
    for depth, expected in enumerate(pos["counts"], 1):
        assert perft(state, depth) == expected, f"depth {depth}"
    assert (state.key(), state.score, state.moves) == before  # perft leaves the position as it was


@pytest.mark.parametrize("pos", POSITIONS, ids=_id)
def test_perft_against_the_reference_generator(pos: dict[str, Any]) -> None:
    """Depth 2 with the SPEC-derived generator checked at every node (copies, no undo)."""
    counts = checked_perft(start(pos["game"], pos["seed"], pos["log"]), 2)
    assert counts == pos["counts"][:2]
