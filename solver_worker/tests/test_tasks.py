"""The beat task that keeps the coming days ready sends work only where it is needed."""

from __future__ import annotations

import datetime as dt
from unittest import mock

import pytest
from django.utils import timezone

from engine import GAME_IDS
from games import days
from games.models import Challenge
from solver_worker import tasks

pytestmark = pytest.mark.django_db


def test_prepare_upcoming_days_skips_ready_and_busy_challenges() -> None:
    today = days.today()
    Challenge.objects.create(date=today, game="klondike", seed=2, status="ready")
    busy = Challenge.objects.create(date=today, game="maria", status="verifying")
    stale = Challenge.objects.create(date=today, game="lucas", status="verifying")
    Challenge.objects.filter(pk=stale.pk).update(updated_at=timezone.now() - dt.timedelta(hours=2))
    with mock.patch.object(tasks.prepare_challenge, "delay") as delay:
        sent = tasks.prepare_upcoming_days(ahead=1)
    sent_for = {call.args for call in delay.call_args_list}
    assert sent == 2 * len(GAME_IDS) - 2
    assert (today.isoformat(), "klondike") not in sent_for and (today.isoformat(), busy.game) not in sent_for
    assert (today.isoformat(), "lucas") in sent_for  # a verification that died long ago is sent again
    assert ((today + dt.timedelta(days=1)).isoformat(), "klondike") in sent_for
