"""An admin's new seed for a challenge (games.admin, ChallengeAdmin), proven by this app's task: the request
only queues it; the worker's ``solver_worker.verify_seed`` proves it, or refuses it and keeps the seed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.test import Client
from django.urls import reverse

from games.models import Challenge, SeedVerification
from solver_worker import services as preparation
from solver_worker.solving import SolveOutcome
from solver_worker.tasks import verify_seed

pytestmark = pytest.mark.django_db

WINS = json.loads((Path(__file__).parents[2] / "games" / "tests" / "data" / "winning_logs.json").read_text())


def test_replacing_the_seed_is_verified_by_a_solver_task(
    admin_client: Client, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    seed, log = WINS["klondike"]["seed"], WINS["klondike"]["moves"]
    challenge = Challenge.objects.create(date="2026-01-02", game="klondike", status="pending")
    sent: list[int] = []
    queued = mock.Mock()  # the task is only queued (core.tasks.send finds it by name)
    queued.apply_async.side_effect = lambda args, **options: sent.extend(args)
    monkeypatch.setattr("core.tasks.task", lambda name: queued if name == "solver_worker.verify_seed" else None)
    monkeypatch.setattr(preparation, "default_solver", lambda g, s, sec: SolveOutcome("solved", log, 9, 0.1, 2))
    url = reverse("admin:games_challenge_change", args=[challenge.pk])
    form = {
        "date": "2026-01-02",
        "game": "klondike",
        "published": "on",
        "replace_seed": str(seed),
        "verifications-TOTAL_FORMS": "0",
        "verifications-INITIAL_FORMS": "0",
    }
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(url, form, follow=True)
    assert response.status_code == 200
    challenge.refresh_from_db()
    assert challenge.status == "pending" and challenge.seed is None  # nothing solved inside the request
    (verification,) = SeedVerification.objects.filter(challenge=challenge)
    assert sent == [verification.pk] and verification.status == "queued"
    page = admin_client.get(url).content.decode()
    assert "Seed verifications" in page and "queued" in page

    assert verify_seed.run(verification.pk) == "proven"  # what the solver worker does
    challenge.refresh_from_db()
    assert challenge.status == "ready" and challenge.seed_int == seed and challenge.solution == log
    assert "proven" in admin_client.get(url).content.decode()

    form["replace_seed"] = "12"  # the fake solver's log does not win deal 12: refused, the ready seed stays
    admin_client.post(url, form)
    latest = SeedVerification.objects.filter(challenge=challenge).first()
    assert latest is not None and latest.seed == 12
    assert verify_seed.run(latest.pk) == "failed"
    challenge.refresh_from_db()
    assert challenge.status == "ready" and challenge.seed_int == seed and "12" in challenge.failure
    assert "failed" in admin_client.get(url).content.decode()
