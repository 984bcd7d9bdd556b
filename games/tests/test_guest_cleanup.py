"""Guests nobody came back as are deleted once idle (games.services.guests), by beat (and keep_days_ready:
solver_worker/tests/test_keep_days_ready.py)."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.utils import timezone
from pytest_django import Settings

from games import services, tasks
from games.models import Attempt, Guest
from games.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)


def guest_at(when: dt.datetime) -> User:
    with time_machine.travel(when, tick=False):
        return services.guest_create()


def exists(user: User) -> bool:
    return get_user_model().objects.filter(pk=user.pk).exists()


def test_only_guests_idle_for_the_kept_days_are_deleted_with_their_games() -> None:
    old = NOW - dt.timedelta(days=40)
    with time_machine.travel(old, tick=False):
        challenge = make_challenge(game="klondike", day=old.date())
        recent_day = make_challenge(game="klondike", day=(NOW - dt.timedelta(days=3)).date())
    idle, practised = guest_at(old), guest_at(old)
    with time_machine.travel(old + dt.timedelta(hours=1), tick=False):
        practice = Attempt.objects.create(
            player=practised, challenge=challenge, ranked=False, finished_at=timezone.now()
        )
    new = guest_at(NOW - dt.timedelta(days=10))
    logged_in = guest_at(old)
    get_user_model().objects.filter(pk=logged_in.pk).update(last_login=NOW - dt.timedelta(days=2))
    played = guest_at(old)
    with time_machine.travel(NOW - dt.timedelta(days=3), tick=False):
        Attempt.objects.create(player=played, challenge=recent_day, ranked=True)  # open, started 3 days ago
    ranked = guest_at(old)
    with time_machine.travel(old, tick=False):
        make_result(
            challenge=challenge, player=ranked, won=False, score=10, moves=3, play_time_ms=1000, finished_at=old
        )
    with time_machine.travel(old, tick=False):
        account = make_user()  # not a guest: never deleted here

    assert services.guests_delete_idle(now=NOW, keep_days=30) == 2
    assert not exists(idle) and not exists(practised) and not Attempt.objects.filter(pk=practice.pk).exists()
    assert all(exists(u) for u in (new, logged_in, played, ranked, account))
    assert Guest.objects.count() == 4
    assert services.guests_delete_idle(now=NOW, keep_days=30) == 0  # nothing left to do
    assert services.guests_delete_idle(now=NOW, keep_days=5) == 1  # "new" too, with a shorter keep


def test_the_beat_task_deletes_by_the_setting(settings: Settings) -> None:
    settings.GUEST_KEEP_DAYS = 7
    guest = guest_at(timezone.now() - dt.timedelta(days=8))
    kept = guest_at(timezone.now() - dt.timedelta(days=6))
    assert tasks.delete_idle_guests.delay().get() == 1
    assert not exists(guest) and exists(kept)
    from django.conf import settings as live

    assert live.CELERY_BEAT_SCHEDULE["delete-idle-guests"]["task"] == "games.delete_idle_guests"
