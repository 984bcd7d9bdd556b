"""Carrying verdicts between the studies of a game and its weaker game (``transfer``): Forty Thieves
and Josephine, Klondike draw 3 and Klondike."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import GAME_IDS, State, deal, find_rules
from engine.moves import T2F, W2F
from engine.rules import stronger_game, weaker_game
from solver import solve as solve_game
from study import transfer
from study.cli import main
from study.rows import study_rows
from study.transfer import as_log_of

EASY_FT = 1004262  # won in about 100 nodes (docs/winnability)
LOST_FT = 1000799  # proven lost (docs/winnability)
EASY_K3 = 1000004  # Klondike draw 3, won in about 60 nodes (docs/winnability)
PAIRS = [("josephine", "forty-thieves"), ("klondike", "klondike-3")]


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_the_weaker_games_are_forty_thieves_in_josephine_and_draw_3_in_klondike() -> None:
    assert {g: weaker_game(find_rules(g)) for g in GAME_IDS if weaker_game(find_rules(g))} == dict(PAIRS)
    assert {g: stronger_game(find_rules(g)) for g in GAME_IDS if stronger_game(find_rules(g))} == {
        weak: strong for strong, weak in PAIRS
    }


@pytest.mark.parametrize("strong, weak", PAIRS)
@pytest.mark.parametrize(
    "seed", [0, 1, 2, 99, EASY_FT, LOST_FT, *(random.Random(26).getrandbits(64) for _ in range(20))]
)
def test_the_two_games_deal_the_same_cards(strong: str, weak: str, seed: int) -> None:
    a, b = deal(weak, seed), deal(strong, seed)
    assert (a.tableau, a.stock, a.waste, a.foundations) == (b.tableau, b.stock, b.waste, b.foundations)


def _position(state: State) -> tuple[object, ...]:
    return (
        [tuple(c) for c in state.tab],
        tuple(state.down),
        tuple(state.stock),
        tuple(state.waste),
        tuple(state.found),
        state.won,
    )


@pytest.mark.parametrize("strong, weak", PAIRS)
@pytest.mark.parametrize("seed", range(12))
def test_every_line_of_the_weaker_game_is_a_line_of_the_stronger_one(strong: str, weak: str, seed: int) -> None:
    """The argument behind ``weaker_game``, checked on random play: after each move of the weaker
    game, its log so far written by ``as_log_of`` leaves the stronger game in the same position.
    Moves to foundations come first half the time, so that lines go deep and some are won."""
    rng = random.Random(seed)
    moves: list[str] = []
    state = State(deal(weak, seed))
    for _ in range(400):
        legal = list(state.legal_moves())
        if not legal:
            break
        to_foundation = [m for m in legal if m.kind in (T2F, W2F)]
        move = rng.choice(to_foundation if to_foundation and rng.random() < 0.5 else legal)
        state.play(move)
        moves.append(str(move))
        if len(moves) % 25 == 0 or state.won:
            other = State(deal(strong, seed))
            for text in as_log_of(strong, seed, weak, moves):
                other.play_text(text)
            assert _position(other) == _position(state)
        if state.won:
            break
    assert len(moves) > 25


def test_a_draw_of_three_becomes_three_draws_of_one() -> None:
    size = len(deal("klondike-3", 5).stock)
    assert size == 24  # eight draws of three
    log = ["s"] * 8 + ["r", "s"]
    assert as_log_of("klondike", 5, "klondike-3", log) == ["s"] * size + ["r", "s", "s", "s"]
    # A log the weaker game refuses (a ninth draw from an empty stock) comes back as it was.
    assert as_log_of("klondike", 5, "klondike-3", ["s"] * 9) == ["s"] * 9
    assert as_log_of("josephine", 5, "forty-thieves", ["s", "s", "wf1"]) == ["s", "s", "wf1"]  # same draw


def test_a_forty_thieves_win_found_again_is_a_josephine_win_and_a_josephine_loss_a_forty_thieves_loss(
    tmp_path: Path,
) -> None:
    weak, strong = tmp_path / "ft.jsonl", tmp_path / "jo.jsonl"
    _write(
        weak,
        [
            {"game": "forty-thieves", "seed": EASY_FT, "status": "solved", "seconds": 0.1},
            {"game": "forty-thieves", "seed": 7, "status": "unknown", "seconds": 1},
            {"game": "forty-thieves", "seed": 8, "status": "unsolvable", "seconds": 1},
            {"game": "forty-thieves", "seed": 9, "status": "solved", "seconds": 1},  # not in the other study
        ],
    )
    _write(
        strong,
        [
            {"game": "josephine", "seed": EASY_FT, "status": "unknown", "seconds": 1},
            {"game": "josephine", "seed": 7, "status": "unsolvable", "seconds": 1},
            {"game": "josephine", "seed": 8, "status": "unsolvable", "seconds": 1},
        ],
    )
    assert main(["transfer", str(weak), str(strong), "--seconds", "5"]) == 0
    jo, ft = study_rows(str(strong)), study_rows(str(weak))
    won = jo["josephine", EASY_FT]
    assert won["status"] == "solved" and won["via"] == "forty-thieves" and won["length"]
    assert ft["forty-thieves", 7]["status"] == "unsolvable" and ft["forty-thieves", 7]["via"] == "josephine"
    assert ft["forty-thieves", 8].get("via") is None  # already decided: untouched
    assert ("josephine", 9) not in jo  # only seeds both studies hold
    # Run again: nothing left to carry, nothing added.
    lines = len(strong.read_text().splitlines()), len(weak.read_text().splitlines())
    assert main(["transfer", str(weak), str(strong)]) == 0
    assert (len(strong.read_text().splitlines()), len(weak.read_text().splitlines())) == lines


def test_a_win_not_found_again_or_not_replayed_as_a_win_adds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    weak, strong = tmp_path / "ft.jsonl", tmp_path / "jo.jsonl"
    _write(weak, [{"game": "forty-thieves", "seed": s, "status": "solved", "seconds": 1} for s in (EASY_FT, 5)])
    _write(strong, [{"game": "josephine", "seed": s, "status": "unknown", "seconds": 1} for s in (EASY_FT, 5)])
    real_solve = solve_game  # what study.transfer calls, until the test replaces it

    def solve(game: str, seed: int, **kw: object) -> object:
        result = real_solve(game, seed, seconds=5)
        if seed == 5:
            result.status = "unknown"
        else:
            assert result.moves is not None
            result.moves = result.moves[:-1]  # a log one move short of the win
        return result

    monkeypatch.setattr(transfer, "solve", solve)
    assert main(["transfer", str(weak), str(strong)]) == 0
    assert all(r["status"] == "unknown" for r in study_rows(str(strong)).values())
    assert capsys.readouterr().err.count("left undecided") == 2


def test_a_klondike_draw_3_win_is_a_klondike_win_and_a_klondike_loss_a_draw_3_loss(tmp_path: Path) -> None:
    weak, strong = tmp_path / "k3.jsonl", tmp_path / "k1.jsonl"
    _write(
        weak,
        [
            {"game": "klondike-3", "seed": EASY_K3, "status": "solved", "seconds": 0.1},
            {"game": "klondike-3", "seed": 7, "status": "unknown", "seconds": 1},
        ],
    )
    _write(
        strong,
        [
            {"game": "klondike", "seed": EASY_K3, "status": "unknown", "seconds": 1},
            {"game": "klondike", "seed": 7, "status": "unsolvable", "seconds": 1},
        ],
    )
    assert main(["transfer", str(weak), str(strong), "--seconds", "5"]) == 0
    k1, k3 = study_rows(str(strong)), study_rows(str(weak))
    won = k1["klondike", EASY_K3]
    assert won["status"] == "solved" and won["via"] == "klondike-3"
    assert k3["klondike-3", 7]["status"] == "unsolvable" and k3["klondike-3", 7]["via"] == "klondike"
    assert main(["transfer", str(strong), str(weak)]) == 2  # the wrong way round


def test_games_that_are_not_such_a_pair_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    _write(a, [{"game": "lucas", "seed": 1, "status": "solved", "seconds": 1}])
    _write(b, [{"game": "josephine", "seed": 1, "status": "unknown", "seconds": 1}])
    assert main(["transfer", str(a), str(b)]) == 2
    assert "not a weaker game" in capsys.readouterr().err
    assert main(["transfer", str(b), str(a)]) == 2  # the wrong way round too
    assert len(b.read_text().splitlines()) == 1


def test_rows_without_a_verdict_carry_nothing_and_break_nothing(tmp_path: Path) -> None:
    """A row with no status (hand-edited, or cut off) is neither a win nor a loss to carry."""
    weak, strong = tmp_path / "ft.jsonl", tmp_path / "jo.jsonl"
    _write(weak, [{"game": "forty-thieves", "seed": 1}, {"game": "forty-thieves", "seed": 2, "status": "unknown"}])
    _write(strong, [{"game": "josephine", "seed": 1, "status": "unsolvable"}, {"game": "josephine", "seed": 2}])
    assert main(["transfer", str(weak), str(strong)]) == 0
    assert study_rows(str(weak))["forty-thieves", 1]["status"] == "unsolvable"  # a loss needs no status here
    assert len(strong.read_text().splitlines()) == 2
