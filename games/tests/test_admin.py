"""Django admin of the games app: attempts and submissions."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games import services
from games.models import Challenge, Result, Submission
from games.tests.factories import make_challenge, make_user

pytestmark = pytest.mark.django_db


def finished_submission(challenge: Challenge, moves: list[str]) -> Submission:
    """A game played at a person's pace by the server's clock (ten moves every ten seconds; faster would
    be held for review, games.pace), ending now."""
    player = make_user()
    with time_machine.travel(timezone.now() - dt.timedelta(seconds=len(moves) + 11), tick=True) as clock:
        attempt = services.attempt_start(player=player, challenge=challenge)
        for start in range(0, len(moves), 10):
            clock.shift(dt.timedelta(seconds=10))
            services.attempt_append_moves(
                attempt_id=attempt.pk, player=player, start=start, moves=moves[start : start + 10]
            )
    submission, _ = services.attempt_submit(attempt_id=attempt.pk, player=player)
    return services.submission_validate(submission_id=submission.pk)


def test_disqualify_and_revalidate_from_the_submission_list(admin_client: Client) -> None:
    challenge = make_challenge()
    submission = finished_submission(challenge, ["s", "s"])
    url = reverse("admin:games_submission_changelist")
    assert admin_client.get(url).status_code == 200
    assert admin_client.get(reverse("admin:games_submission_change", args=[submission.pk])).status_code == 200
    admin_client.post(url, {"action": "disqualify", "_selected_action": [submission.pk]})
    assert Result.objects.get().disqualified
    admin_client.post(url, {"action": "revalidate", "_selected_action": [submission.pk]})
    result = Result.objects.get()
    assert result.disqualified and result.moves == 2
    board = Client(HTTP_HOST="localhost").get(f"/api/v1/leaderboards/{challenge.date}/klondike").json()
    assert board["entries"] == []
