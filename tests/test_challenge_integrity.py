"""The integrity check: every upcoming ready challenge's solution replayed from its seed by the engine
(issue 52: a challenge moved to another game stayed published with a solution that fails at move 0)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.test import Client
from pytest_django import Settings

from games import days
from games.models import Challenge
from solver_worker.services import INTEGRITY_CACHE_KEY
from solver_worker.tasks import check_challenges

pytestmark = pytest.mark.django_db

WINS = json.loads((Path(__file__).parents[1] / "games" / "tests" / "data" / "winning_logs.json").read_text())


def metrics(settings: Settings) -> str:
    settings.METRICS_TOKEN = "integrity-token"
    answer = Client(HTTP_HOST="localhost").get("/metrics", HTTP_AUTHORIZATION="Bearer integrity-token")
    return answer.content.decode()


def test_a_ready_challenge_whose_solution_does_not_win_is_named_counted_and_fails_the_command(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    cache.delete(INTEGRITY_CACHE_KEY)  # a Redis cache outlives a test
    seed, log = WINS["klondike"]["seed"], WINS["klondike"]["moves"]
    today = days.today()
    Challenge.objects.create(date=today, game="klondike", seed=seed, solution=log, status="ready")
    Challenge.objects.create(date=today - dt.timedelta(days=1), game="lucas", seed=1, solution=["s"], status="ready")
    assert "dailypatience_challenges_broken" not in metrics(settings)  # never checked: no figure
    assert check_challenges.run() == 0  # the past day is not checked; today's wins
    call_command("check_challenges")
    assert "wins its deal with its stored solution" in capsys.readouterr().out

    # The deal another game would give from the same seed: its solution fails (what moving it did).
    wrong = Challenge.objects.create(
        date=today + dt.timedelta(days=1), game="lucas", seed=seed, solution=log, status="ready"
    )
    Challenge.objects.create(date=today + dt.timedelta(days=2), game="maria", seed=3, solution=[], status="ready")
    assert check_challenges.run() == 2
    with pytest.raises(CommandError) as refused:
        call_command("check_challenges")
    assert f"{wrong.date} lucas (id {wrong.pk}): its solution does not win its deal" in str(refused.value)
    assert "ready without a solution" in str(refused.value) and "seed" not in str(refused.value)
    text = metrics(settings)
    assert "dailypatience_challenges_broken 2.0" in text and "dailypatience_challenges_checked 3.0" in text
