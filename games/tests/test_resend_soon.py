"""A submission whose validation could not be sent (the broker did not answer in time: down, or slower
than its timeout on a starved machine) is sent again within about a minute, not left for minutes: the
player's table waits on it."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone

from games import services
from games.models import Submission
from games.services import submissions
from games.services.attempts import attempt_submit
from games.tests.factories import make_challenge, make_user

pytestmark = [pytest.mark.django_db]


def test_the_sweep_runs_every_minute() -> None:
    entry = settings.CELERY_BEAT_SCHEDULE["resend-pending-submissions"]
    assert entry["task"] == "games.resend_pending_submissions" and entry["schedule"] == 60


def test_a_submission_left_pending_is_sent_again_after_a_minute(monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[int] = []
    monkeypatch.setattr(submissions, "send", lambda name, args: False)  # the publish timed out
    player = make_user()
    attempt = services.attempt_start(player=player, challenge=make_challenge())
    submission, _ = attempt_submit(attempt_id=attempt.pk, player=player, start=None, moves=None)
    assert Submission.objects.get(pk=submission.pk).status == Submission.Status.PENDING

    def record(name: str, args: Any) -> bool:
        sent.extend(args)
        return True

    monkeypatch.setattr(submissions, "send", record)
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=30), tick=False):
        assert services.submissions_resend_pending() == 0  # still young: perhaps queued behind a burst
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=61), tick=False):
        assert services.submissions_resend_pending() == 1
    assert sent == [submission.pk]
