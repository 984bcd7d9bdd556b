"""A daily cycle that does not depend on luck: the coming days prepared at beat's start, the difficulty model
and expired sessions on the schedule, a stuck preparer's claim shown and released, Verify now saying what
it did."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from pytest_django import Settings

from config import celery as celery_config
from core import tasks as core_tasks
from core.circuit import BROKER
from games import days
from games.models import Challenge
from games.services import challenges
from games.services.challenges import PREPARE_LEASE
from games.tests.factories import make_staff
from solver_worker import services
from solver_worker.solving import SolveOutcome
from solver_worker.tasks import prepare_upcoming_days

pytestmark = pytest.mark.django_db


def test_beats_start_prepares_the_coming_days_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[str] = []
    monkeypatch.setattr(celery_config.app, "send_task", lambda name, **kw: sent.append(name))
    celery_config.prepare_days_on_beat_start()
    assert sent == ["solver_worker.prepare_upcoming_days"]

    def refused(name: str, **kw: Any) -> None:
        raise ConnectionError("broker down")

    monkeypatch.setattr(celery_config.app, "send_task", refused)
    celery_config.prepare_days_on_beat_start()  # beat still starts; the hourly entry follows


def test_the_coming_days_are_prepare_ahead_days(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, str]] = []
    monkeypatch.setattr("solver_worker.tasks.prepare_challenge.delay", lambda day, game: asked.append((day, game)))
    settings.PREPARE_AHEAD_DAYS = 2
    assert prepare_upcoming_days.run() == len(asked) == 3 * len({g for _, g in asked})
    assert {d for d, _ in asked} == {(days.today() + dt.timedelta(days=n)).isoformat() for n in range(3)}


def test_expired_sessions_are_cleared_by_their_task() -> None:
    from games.tasks import clear_expired_sessions

    Session.objects.create(session_key="old", session_data="", expire_date=timezone.now() - dt.timedelta(days=1))
    Session.objects.create(session_key="new", session_data="", expire_date=timezone.now() + dt.timedelta(days=1))
    clear_expired_sessions.run()
    assert list(Session.objects.values_list("session_key", flat=True)) == ["new"]


def test_the_difficulty_task_fits_into_the_configured_model(settings: Settings, tmp_path: Path) -> None:
    from games.tasks import calibrate_difficulty

    settings.DIFFICULTY_MODEL = tmp_path / "shared" / "model.json"
    assert "nothing to fit" in calibrate_difficulty.run()  # no day over with players yet


# --- a preparer's claim --------------------------------------------------------------------------------


def test_a_preparer_records_who_holds_the_claim() -> None:
    seen: list[str] = []

    def solver(game: str, seed: int, seconds: float) -> SolveOutcome:
        seen.append(Challenge.objects.get(game=game).claimed_by)
        return SolveOutcome("unsolvable", [], 1, 0.0, None)

    services.challenge_prepare(day=days.today(), game="klondike", max_seeds=1, solver=solver)
    assert seen == [services.claim_holder()] and " pid " in seen[0]


def stuck(minutes: int, game: str = "maria") -> Challenge:
    challenge = Challenge.objects.create(date=days.today() + dt.timedelta(days=1), game=game)
    Challenge.objects.filter(pk=challenge.pk).update(
        status=Challenge.Status.VERIFYING,
        claimed_by="worker-7 pid 42",
        updated_at=timezone.now() - dt.timedelta(minutes=minutes),
    )
    return Challenge.objects.get(pk=challenge.pk)


def test_a_stuck_claim_is_shown_with_its_holder_and_age_and_released_by_an_action(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("solver_worker.tasks.prepare_challenge.delay", lambda *a: None)
    challenge = stuck(25)
    url = reverse("admin:games_challenge_changelist")
    viewer, _ = make_staff("view_challenge", "view_future_deal")
    page = viewer.get(url).content.decode()
    assert "held by worker-7 pid 42, last progress 25 min ago, abandoned" in page
    assert (
        "held by worker-7 pid 42"
        in viewer.get(reverse("admin:games_challenge_change", args=[challenge.pk])).content.decode()
    )
    assert viewer.post(url, {"action": "release_claim", "_selected_action": [challenge.pk]}).status_code == 403
    assert Challenge.objects.get(pk=challenge.pk).status == Challenge.Status.VERIFYING

    operator, user = make_staff("view_challenge", "change_challenge", "view_future_deal")
    answer = operator.post(url, {"action": "release_claim", "_selected_action": [challenge.pk]}, follow=True)
    assert "claim released" in answer.content.decode()
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.PENDING and challenge.claimed_by == ""
    (entry,) = LogEntry.objects.filter(user=user, object_id=str(challenge.pk))
    assert "Released the preparer's claim (held by worker-7 pid 42" in entry.get_change_message()
    # Nothing to release any more: said, not logged.
    answer = operator.post(url, {"action": "release_claim", "_selected_action": [challenge.pk]}, follow=True)
    assert "no claim to release" in answer.content.decode() and LogEntry.objects.count() == 1


def test_verify_now_says_what_it_really_did(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[tuple[str, str]] = []
    queue = mock.Mock()  # core.tasks.send finds the task by name: this one only records what is sent
    queue.apply_async.side_effect = lambda args, **options: sent.append(tuple(args))
    monkeypatch.setattr(core_tasks, "task", lambda name: queue if name == "solver_worker.prepare_challenge" else None)
    live, abandoned = stuck(3, "maria"), stuck(int(PREPARE_LEASE.total_seconds() / 60) + 5, "lucas")
    pending = Challenge.objects.create(date=days.today() + dt.timedelta(days=1), game="limited")
    operator, _ = make_staff("view_challenge", "change_challenge", "view_future_deal")
    url = reverse("admin:games_challenge_changelist")

    def verify(challenge: Challenge) -> str:
        post = {"action": "verify_now", "_selected_action": [challenge.pk]}
        return operator.post(url, post, follow=True).content.decode()

    page = verify(live)
    assert "nothing sent: it is being prepared (held by worker-7 pid 42, last progress 3 min ago, live)" in page
    assert sent == []
    page = verify(abandoned)
    assert "preparation sent to the solver queue (the abandoned claim" in page and len(sent) == 1
    page = verify(pending)
    assert "preparation sent to the solver queue; it is pending now" in page and len(sent) == 2

    queue.apply_async.side_effect = ConnectionError("broker down")
    assert "not sent, the broker is unreachable" in verify(pending) and len(sent) == 2
    assert BROKER.is_open()
    BROKER.reset()


def test_admin_client_sees_no_claim_on_a_ready_challenge(admin_client: Client) -> None:
    ready = Challenge.objects.create(date=days.today(), game="klondike", seed=5, status=Challenge.Status.READY)
    page = admin_client.get(reverse("admin:games_challenge_change", args=[ready.pk])).content.decode()
    assert "held by" not in page


def test_the_challenge_list_says_how_many_days_are_ready_per_game(settings: Settings) -> None:
    settings.PREPARE_AHEAD_DAYS = 2
    for offset in (0, 1):
        Challenge.objects.create(
            date=days.today() + dt.timedelta(days=offset), game="klondike", seed=offset + 1, status="ready"
        )
    Challenge.objects.create(date=days.today() + dt.timedelta(days=1), game="maria", seed=3, status="ready")
    assert challenges.days_prepared_ahead(first=days.today(), count=3)["klondike"] == 2
    viewer, _ = make_staff("view_challenge")  # counts only, no seed: shown without the permission too
    page = viewer.get(reverse("admin:games_challenge_changelist"))
    shown = dict(page.context["days_ahead"])
    assert shown["klondike"] == 2 and shown["maria"] == 0 and shown["lucas"] == 0  # maria: today is not ready
    summary = page.content.decode().split('id="days-ahead"')[1].split("</div>")[0]
    assert "Days ready from today (of 3 kept prepared" in summary and "<td>2</td>" in summary
