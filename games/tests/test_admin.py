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
from games.tests.factories import make_challenge, make_staff, make_user

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


def test_the_move_logs_of_a_day_not_over_need_the_permission_and_each_view_is_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    import datetime as dt

    from games import days

    log = ["s", "s", "s"]
    today = finished_submission(make_challenge(seed=5), log)
    with time_machine.travel(dt.datetime.now(dt.UTC) - dt.timedelta(days=1)):
        past = finished_submission(make_challenge(seed=6, day=days.today()), log)

    def pages(client: Client, submission: Submission) -> list[str]:
        return [
            client.get(reverse(f"admin:games_{name}_change", args=[pk])).content.decode()
            for name, pk in (("attempt", submission.attempt_id), ("submission", submission.pk))
        ]

    reviewer, _ = make_staff("view_attempt", "view_submission")
    with caplog.at_level("WARNING", logger="dailypatience.audit"):
        assert all("&quot;s&quot;" not in page for page in pages(reviewer, today))  # not found, redirected
        assert all("hidden until" not in page and "&quot;s&quot;" in page for page in pages(reviewer, past))
    assert not caplog.records

    allowed, user = make_staff("view_attempt", "view_submission", "view_future_deal")
    with caplog.at_level("WARNING", logger="dailypatience.audit"):
        assert all("&quot;s&quot;" in page for page in pages(allowed, today))
        pages(allowed, past)  # over: not logged
    assert [r.getMessage() for r in caplog.records] == [
        f"admin: {user.username} (id {user.pk}) saw the moves of {what} of klondike {days.today()}, a day not over"
        for what in (f"attempt {today.attempt_id}", f"submission {today.pk}")
    ]
