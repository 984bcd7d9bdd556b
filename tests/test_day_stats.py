"""How hard was it, really (issue 28, items 6 and 7): a day's statistics once it is over, and the
difficulty model calibrated on past days."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings
from rest_framework.test import APIClient

from games import difficulty, stats
from games.models import Challenge
from games.tests.factories import token_for
from leaderboard.tests.factories import make_challenge, make_result, make_user

DAY = dt.date(2026, 12, 1)
NOON = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
MIDNIGHT = dt.datetime(2026, 12, 2, 0, 0, tzinfo=dt.UTC)
URL = f"/api/v1/daily/{DAY}/klondike/stats"


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


@pytest.fixture
def day_played(db: None) -> tuple[Challenge, User]:
    """Five ranked results (one assisted, one disqualified, one held), a practice one."""
    challenge = make_challenge(date=DAY, solution=["s"] * 30 + ["wf1"] * 70, solver_nodes=5000, seeds_lost=3)
    me = make_user()
    make_result(challenge=challenge, player=me, won=True, moves=104, play_time_ms=251_500)
    make_result(challenge=challenge, won=True, moves=131, play_time_ms=400_000)
    make_result(challenge=challenge, won=False, moves=95, play_time_ms=90_000, assisted=True)
    make_result(challenge=challenge, won=False, moves=160, play_time_ms=600_000)
    make_result(challenge=challenge, won=True, moves=20, play_time_ms=9_000, disqualified=True)
    held = make_result(challenge=challenge, won=True, moves=21, play_time_ms=8_000)
    held.held = True
    held.save(update_fields=["held"])
    make_result(challenge=challenge, player=me, ranked=False, won=True, moves=300)
    return challenge, me


def test_nothing_of_the_day_before_it_is_over(day_played: tuple[Challenge, User]) -> None:
    _, me = day_played
    with time_machine.travel(NOON, tick=False):
        for client in (APIClient(), client_for(me), client_for(make_user())):
            for address in (None, "203.0.113.9"):
                extra: dict[str, Any] = {} if address is None else {"HTTP_X_FORWARDED_FOR": address}
                answer = client.get(URL, **extra)
                assert answer.status_code == 404
                error = answer.json()["error"]
                assert "once that day is over" in error["message"]
                assert error["details"]["ready_in_seconds"] == 12 * 3600


def test_after_the_day_the_share_won_and_the_histograms_with_mine_marked(
    day_played: tuple[Challenge, User], tmp_path: Path
) -> None:
    _, me = day_played
    with time_machine.travel(MIDNIGHT, tick=False), override_settings(DIFFICULTY_MODEL=tmp_path / "none.json"):
        body = client_for(me).get(URL).json()
        anonymous = APIClient().get(URL).json()
    assert body["players"] == 4 and body["won"] == 2 and body["win_rate"] == 0.5  # held, disqualified, practice out
    moves = body["moves"]
    assert moves["width"] == 10 and moves["bins"][0]["low"] == 90 and moves["bins"][-1]["high"] == 170
    assert sum(b["players"] for b in moves["bins"]) == 4 and sum(b["won"] for b in moves["bins"]) == 2
    assert moves["bins"][moves["mine"]] == {"low": 100, "high": 110, "players": 1, "won": 1}
    seconds = body["seconds"]
    assert seconds["width"] == 100 and seconds["bins"][seconds["mine"]]["low"] == 200  # 251.5 s
    assert body["me"] == {"won": True, "moves": 104, "play_time_ms": 251_500, "moves_bin": 1, "time_bin": 2}
    assert anonymous["me"] is None and anonymous["moves"]["mine"] is None
    assert body["difficulty"] == {
        "rating": 2,
        "solver": 2,
        "calibrated": False,
        "predicted_win_rate": None,
        "model_days": 0,
        "min_days": difficulty.MIN_DAYS,
        "solver_nodes": 5000,
        "solution_moves": 100,
        "seeds_skipped": 3,
    }


def test_a_day_nobody_played_and_bad_paths(db: None) -> None:
    make_challenge(date=DAY)
    with time_machine.travel(MIDNIGHT, tick=False):
        body = APIClient().get(URL).json()
        assert (
            body["players"] == 0
            and body["win_rate"] is None
            and body["moves"] == {"width": 0, "bins": [], "mine": None}
        )
        for path in (
            f"/api/v1/daily/{DAY}/nope/stats",
            "/api/v1/daily/2026-13-01/klondike/stats",
            "/api/v1/daily/2026-11-30/klondike/stats",
            "/api/v1/daily/x/klondike/stats",
        ):
            answer = APIClient().get(path)
            assert answer.status_code in (400, 404) and answer["Content-Type"].startswith("application/json"), path


# -- the model ------------------------------------------------------------------------------------

TRUE = difficulty.EXAMPLE


def test_the_fit_recovers_a_known_model() -> None:
    data = difficulty.synthetic_days(300, 7)
    fitted = difficulty.fit(data)
    assert all(abs(a - b) < 0.35 for a, b in zip(fitted, TRUE, strict=True)), fitted
    errors = [abs(difficulty.predict(fitted, d.x) - difficulty.predict(TRUE, d.x)) for d in data]
    assert max(errors) < 0.05
    svg = difficulty.fit_svg(data, fitted)
    assert svg.startswith("<svg") and svg.count("<circle") == 300


def test_rating_bands() -> None:
    assert [difficulty.rating(p) for p in (0.95, 0.8, 0.79, 0.5, 0.3, 0.1)] == [1, 1, 2, 3, 4, 5]


def test_the_calibrated_rating_is_used_only_from_min_days(db: None, tmp_path: Path) -> None:
    challenge = make_challenge(date=DAY, solution=["wf1"] * 60, solver_nodes=10**6, seeds_lost=0)
    path = tmp_path / "model.json"
    with override_settings(DIFFICULTY_MODEL=path):
        assert not stats.challenge_rating(challenge).calibrated  # no file
        path.write_text("{not json")
        assert not stats.challenge_rating(challenge).calibrated
        model = difficulty.Model(coefficients=TRUE, days=difficulty.MIN_DAYS - 1, players=999, fitted_at="x")
        path.write_text(json.dumps(model.to_json()))
        rating = stats.challenge_rating(challenge)
        assert not rating.calibrated and rating.value == 2 and rating.model_days == difficulty.MIN_DAYS - 1
        model = difficulty.Model(coefficients=TRUE, days=difficulty.MIN_DAYS, players=999, fitted_at="y")
        path.write_text(json.dumps(model.to_json()))
        os.utime(path, (1, 2))  # a new mtime: the model is read again
        rating = stats.challenge_rating(challenge)
        p = difficulty.predict(TRUE, stats.challenge_features(challenge))
        assert rating.calibrated and rating.predicted_win_rate == round(p, 4) and rating.value == difficulty.rating(p)
        assert rating.solver == 2
        with time_machine.travel(NOON, tick=False):
            shown = APIClient().get(f"/api/v1/daily/{DAY}/klondike").json()
        assert shown["difficulty"] == rating.value and shown["difficulty_calibrated"] is True


def test_the_command_fits_on_days_over_with_enough_players(db: None, tmp_path: Path) -> None:
    rng = random.Random(3)
    for i in range(4):
        challenge = make_challenge(
            date=DAY - dt.timedelta(days=i + 1), solution=["wf1"] * (52 + 20 * i), solver_nodes=10 ** (i + 1)
        )
        for k in range(difficulty.MIN_PLAYERS):
            make_result(challenge=challenge, won=rng.random() < 0.9 - 0.2 * i, moves=100 + k)
    thin = make_challenge(date=DAY - dt.timedelta(days=9))
    make_result(challenge=thin)  # one player: not a data point
    model_path = tmp_path / "m" / "model.json"
    with time_machine.travel(NOON, tick=False):
        call_command("calibrate_difficulty", "--model", str(model_path))
    data = json.loads(model_path.read_text())
    assert (
        data["days"] == 4 and data["players"] == 4 * difficulty.MIN_PLAYERS and data["features"] == difficulty.FEATURES
    )
    assert (model_path.parent / "fit.svg").read_text().count("<circle") == 4
