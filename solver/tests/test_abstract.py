"""the image game (``solver.abstract``): Klondike proofs of loss in the game that forgets where face-up cards
lie. The image game wins whenever the deal can be won (docs/solver-proofs.md has the argument), so "lost"
there is a proof; these tests hold it to the engine's own exhaustive search and to known wins."""

from __future__ import annotations

import collections
import json
import pathlib
import random
import time

import pytest

from engine import deal
from solver import SolveOptions, solve_deal
from solver.abstract import realize
from solver.core import Compiled
from solver.log import to_log, wins
from solver.reference import PYTHON
from solver.reference.image import search
from solver.search import SOLVED, UNSOLVABLE
from solver.state import SearchState

from .test_search_helpers import brute_force, klondike_endgame

STUDY = pathlib.Path(__file__).resolve().parents[2] / "docs" / "winnability"


@pytest.mark.parametrize("game", ["klondike", "klondike-3"])
def test_the_image_game_decides_as_the_engines_exhaustive_search(game: str) -> None:
    """Random small positions shaped like real ones: the image game's verdict is the engine's (a
    lost image is a lost position; "a won image is a win": a won image's line, realized, is a win
    the engine accepts)."""
    rng = random.Random(f"abstract-{game}")
    seen: collections.Counter[tuple[bool, str]] = collections.Counter()
    for _ in range(110):
        d = klondike_endgame(game, rng, rng.randint(10, 18), rng.choice((2, 3, 4)))
        truth = brute_force(d, limit=40_000)
        if truth is None:
            continue
        out = search(SearchState(d), max_positions=200_000, seconds=30)
        assert out.status == ("won" if truth else "lost"), d
        if truth:
            line = realize(SearchState(d), out.line)
            assert line is not None and wins(d, to_log(d, line), limit=False), d
        seen[truth, out.status] += 1
    assert seen[False, "lost"] >= 10 and seen[True, "won"] >= 10, seen


def _study(game: str, status: str, count: int) -> list[int]:
    verdict: dict[int, str] = {}
    with open(STUDY / f"{game}.jsonl") as rows:
        for line in rows:
            row = json.loads(line)
            if verdict.get(row["seed"]) not in ("solved", "unsolvable"):
                verdict[row["seed"]] = row["status"]
    seeds = sorted(s for s, v in verdict.items() if v == status)
    return random.Random(7).sample(seeds, count)


@pytest.mark.parametrize("game", ["klondike", "klondike-3"])
def test_won_study_deals_are_won_images_and_their_lines_win(game: str) -> None:
    """A sample of the study's won deals (``bench/image.py`` runs every decided one)."""
    for seed in _study(game, "solved", 30):
        d = deal(game, seed)
        out = Compiled().image(SearchState(d), deadline=time.perf_counter() + 10, max_positions=2_000_000)
        assert out.status != "lost", (game, seed, out)
        if out.status == "won":
            line = realize(SearchState(d), out.line)
            assert line is not None and wins(d, to_log(d, line)), (game, seed)


def test_proves_known_losses_of_the_study() -> None:
    """Study deals the complete search proved lost (1000066 in 0.3 s there; 1000108 in more): the
    image game's search agrees, in far fewer positions."""
    for seed, most in ((1000066, 2_000), (1000108, 20_000)):
        out = search(SearchState(deal("klondike", seed)), max_positions=most, seconds=30)
        assert out.status == "lost", (seed, out)


def test_the_core_searches_the_image_game_position_for_position_as_the_reference() -> None:
    """The C search (``Compiled.image``) and the Python reference: the same verdict in the same number of
    positions, on small positions of both draws and on real deals."""
    rng = random.Random("abstract-core")
    core = Compiled()
    positions = [
        klondike_endgame(rng.choice(("klondike", "klondike-3")), rng, rng.randint(10, 30), rng.choice((2, 3, 4, 7)))
        for _ in range(120)
    ]
    positions += [deal(g, s) for g in ("klondike", "klondike-3") for s in range(1000000, 1000010)]
    kinds: collections.Counter[str] = collections.Counter()
    for d in positions:
        want = search(SearchState(d), max_positions=40_000, seconds=60)
        got = core.image(SearchState(d), deadline=time.perf_counter() + 60, max_positions=40_000)
        assert (got.status, got.positions) == (want.status, want.positions), d
        kinds[got.status] += 1
    assert min(kinds.values()) >= 5, kinds


def test_the_core_refuses_what_it_cannot_hold() -> None:
    with pytest.raises(ValueError, match="image"):
        Compiled().image(SearchState(deal("forty-thieves", 1)), deadline=time.perf_counter() + 1)


LOST_BY_IMAGE = 1000048  # Klondike, lost: 80,140 image positions; the deal's own search needs 6.25 M nodes


def test_solve_deal_proves_a_loss_through_the_image_game_within_its_share() -> None:
    """A node budget (deterministic): the complete search's share ends undecided, the image game's
    share proves the loss. Without the phase the deal stays undecided."""
    d = deal("klondike", LOST_BY_IMAGE)
    out = solve_deal(d, seconds=120, max_nodes=1_000_000)
    assert out.status == UNSOLVABLE and out.stats.get("image") == 1, out.stats
    no_image = SolveOptions(image_share=0)
    assert solve_deal(d, seconds=120, max_nodes=1_000_000, options=no_image).status == "unknown"


def test_the_python_reference_offers_the_same_phase() -> None:
    out = PYTHON.image(SearchState(deal("klondike", 1000007)), deadline=time.perf_counter() + 60)
    assert out.status == "lost" and out.positions == 50_782


WON_BY_IMAGE = 1000127  # Klondike: no 10 s or 30 s solve had decided it; its image is won in 28,428 positions


def test_solve_deal_wins_through_the_image_game() -> None:
    """A node budget: the complete search's share ends undecided, the image game's line is the win."""
    d = deal("klondike", WON_BY_IMAGE)
    out = solve_deal(d, seconds=120, max_nodes=2_000_000)
    assert out.status == SOLVED and out.stats.get("image_won") == 1 and "image_unrealized" not in out.stats
    assert out.moves is not None and wins(d, out.moves)
    no_image = SolveOptions(image_share=0)
    assert solve_deal(d, seconds=120, max_nodes=2_000_000, options=no_image).status == "unknown"
