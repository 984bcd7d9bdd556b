"""Carrying verdicts between the studies of Forty Thieves and Josephine (``transfer``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine import GAME_IDS, deal, find_rules
from solver_worker import cli
from solver_worker.cli import main, study_rows, weaker_game

EASY_FT = 1004262  # won in about 100 nodes (docs/winnability)
LOST_FT = 1000799  # proven lost (docs/winnability)


def _write(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_only_josephine_has_a_weaker_game_and_it_is_forty_thieves() -> None:
    assert {g: weaker_game(find_rules(g)) for g in GAME_IDS if weaker_game(find_rules(g))} == {
        "josephine": "forty-thieves"
    }


@pytest.mark.parametrize(
    "seed", [0, 1, 2, 99, EASY_FT, LOST_FT, *(random.Random(26).getrandbits(64) for _ in range(20))]
)
def test_the_two_games_deal_the_same_cards(seed: int) -> None:
    ft, jo = deal("forty-thieves", seed), deal("josephine", seed)
    assert (ft.tableau, ft.stock, ft.waste, ft.foundations) == (jo.tableau, jo.stock, jo.waste, jo.foundations)


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
    real_solve = cli.solve

    def solve(game: str, seed: int, **kw: object) -> object:
        result = real_solve(game, seed, seconds=5)
        if seed == 5:
            result.status = "unknown"
        else:
            result.moves = result.moves[:-1]  # a log one move short of the win
        return result

    monkeypatch.setattr(cli, "solve", solve)
    assert main(["transfer", str(weak), str(strong)]) == 0
    assert all(r["status"] == "unknown" for r in study_rows(str(strong)).values())
    assert capsys.readouterr().err.count("left undecided") == 2


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
