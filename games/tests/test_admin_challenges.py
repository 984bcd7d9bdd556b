"""Django admin of the days' deals (games.admin, ChallengeAdmin): challenges, their seeds and verifications.
(A replaced seed proven by the solver worker's task: solver_worker/tests/test_seed_replacement.py.)"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Challenge, SeedVerification
from games.tests.factories import make_challenge, make_staff, make_user
from games.tests.test_admin import finished_submission

pytestmark = pytest.mark.django_db

WINS = json.loads((Path(__file__).parents[2] / "games" / "tests" / "data" / "winning_logs.json").read_text())


def test_challenge_list_and_solution_move_by_move(admin_client: Client) -> None:
    seed, log = WINS["klondike"]["seed"], WINS["klondike"]["moves"]
    challenge = make_challenge(seed=seed, solution=log)
    finished_submission(challenge, log)
    page = admin_client.get(reverse("admin:games_challenge_changelist"))
    assert page.status_code == 200 and b"100%" in page.content  # one player, who won
    change = admin_client.get(reverse("admin:games_challenge_change", args=[challenge.pk]))
    assert change.status_code == 200
    assert change.content.count(b"<code>") == len(log)


def test_the_challenge_list_names_each_column_once_and_shows_the_skipped_seeds(admin_client: Client) -> None:
    challenge = make_challenge()
    Challenge.objects.filter(pk=challenge.pk).update(seeds_lost=2, seeds_unknown=1)
    page = admin_client.get(reverse("admin:games_challenge_changelist")).content.decode()
    headers = re.findall(r'<th scope="col"[^>]*>.*?<(?:a|span)[^>]*>([^<]+)<', page, re.S)
    assert [h.strip().lower() for h in headers].count("win rate") == 1, headers
    assert "skipped (lost / unknown)" in page.lower() and "2 / 1" in page
    change = admin_client.get(reverse("admin:games_challenge_change", args=[challenge.pk])).content.decode()
    assert "Seeds skipped: proven unwinnable." in change  # the counts, read-only, on the challenge's page too


def test_publish_only_ready_and_unpublish(admin_client: Client) -> None:
    ready = Challenge.objects.create(date="2026-01-01", game="maria", seed=1, status="ready", published=False)
    pending = Challenge.objects.create(date="2026-01-01", game="lucas", status="pending", published=False)
    url = reverse("admin:games_challenge_changelist")
    admin_client.post(url, {"action": "publish", "_selected_action": [ready.pk, pending.pk]})
    ready.refresh_from_db()
    pending.refresh_from_db()
    assert ready.published and not pending.published
    admin_client.post(url, {"action": "unpublish", "_selected_action": [ready.pk]})
    ready.refresh_from_db()
    assert not ready.published


def test_replacing_the_seed_of_a_played_challenge_is_refused_in_the_admin(admin_client: Client) -> None:
    challenge = make_challenge()
    services.attempt_start(player=make_user(), challenge=challenge)
    url = reverse("admin:games_challenge_change", args=[challenge.pk])
    form = {
        "date": str(challenge.date),
        "game": "klondike",
        "published": "on",
        "replace_seed": "12",
        "verifications-TOTAL_FORMS": "0",
        "verifications-INITIAL_FORMS": "0",
    }
    page = admin_client.post(url, form, follow=True).content.decode()
    assert "already started" in page
    assert not SeedVerification.objects.exists()
    challenge.refresh_from_db()
    assert challenge.seed_int == 2026


def test_a_day_not_over_keeps_its_seed_and_solution_from_staff_without_the_permission(caplog: Any) -> None:
    import datetime as dt

    from games import days

    seed, log = WINS["klondike"]["seed"], WINS["klondike"]["moves"]
    today = make_challenge(seed=seed, solution=log)
    tomorrow = make_challenge(seed=seed, solution=log, day=days.today() + dt.timedelta(days=1))
    yesterday = make_challenge(seed=seed, solution=log, day=days.today() - dt.timedelta(days=1))
    checked = {c.pk: 987654321 + i for i, c in enumerate((today, tomorrow, yesterday))}  # seeds asked for
    for challenge in (today, tomorrow, yesterday):
        SeedVerification.objects.create(challenge=challenge, seed=checked[challenge.pk])
    shown = re.compile(rf'Seed:</label>\s*<div class="readonly">{seed}</div>')
    staff, _ = make_staff("view_challenge", "change_challenge", "view_seedverification")
    listing = staff.get(reverse("admin:games_challenge_changelist")).content.decode()
    assert f"{checked[yesterday.pk]}:" in listing  # a past day's last verification, with its seed
    assert str(checked[today.pk]) not in listing and str(checked[tomorrow.pk]) not in listing
    with caplog.at_level("WARNING", logger="dailypatience.audit"):
        for challenge in (today, tomorrow):  # not in the queryset: "does not exist", back to the index
            answer = staff.get(reverse("admin:games_challenge_change", args=[challenge.pk]))
            page = answer.content.decode()
            assert answer.status_code == 302
            assert not shown.search(page) and str(checked[challenge.pk]) not in page and page.count("<code>") == 0
        past = staff.get(reverse("admin:games_challenge_change", args=[yesterday.pk])).content.decode()
        assert shown.search(past) and str(checked[yesterday.pk]) in past and past.count("<code>") == len(log)
    assert not caplog.records  # nothing of a day not over was shown

    allowed, user = make_staff("view_challenge", "change_challenge", "view_seedverification", "view_future_deal")
    with caplog.at_level("WARNING", logger="dailypatience.audit"):
        page = allowed.get(reverse("admin:games_challenge_change", args=[tomorrow.pk])).content.decode()
        assert shown.search(page) and str(checked[tomorrow.pk]) in page and page.count("<code>") == len(log)
        allowed.get(reverse("admin:games_challenge_change", args=[yesterday.pk]))  # over: not logged
    assert [r.getMessage() for r in caplog.records] == [
        f"admin: {user.username} (id {user.pk}) saw the seed and solution of klondike {tomorrow.date}, a day not over"
    ]
