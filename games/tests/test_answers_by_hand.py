"""Answers built by hand on hot paths equal what their serializers (the schema's shapes) make of the same
data: an attempt with its position (a start, an attempt's page), and when its review and solution come."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
import time_machine
from django.utils import timezone

from engine import visible
from games import apis, days, services
from games.models import Attempt
from games.tests.factories import make_challenge, make_user

pytestmark = [pytest.mark.django_db]


def _by_serializers(attempt: Attempt, state: Any) -> dict[str, Any]:
    challenge = attempt.challenge
    after = days.after_the_day(challenge.date)
    after["review"] = f"/api/v1/attempts/{attempt.pk}/review"
    after["solution"] = f"/api/v1/daily/{challenge.date.isoformat()}/{challenge.game}/solution"
    data = dict(apis.AttemptOutput(attempt).data)
    data["after_the_day"] = dict(apis.AfterTheDayOutput(after).data)
    data["state"] = apis.StateOutput(visible(state)).data
    return data


def _same(attempt: Attempt) -> None:
    attempt = Attempt.objects.select_related("challenge").get(pk=attempt.pk)
    state = services.attempt_replay(attempt=attempt)
    with time_machine.travel(timezone.now(), tick=False):  # the play time so far, the same for both
        hand, reference = apis.attempt_data(attempt, state), _by_serializers(attempt, state)
    assert hand == reference
    assert list(hand) == list(reference)  # the same keys in the same order: the same bytes
    assert json.dumps(hand) == json.dumps(reference)


@pytest.mark.parametrize("game", ["klondike", "klondike-3", "forty-thieves", "josephine"])
def test_a_new_attempt(game: str) -> None:
    challenge = make_challenge(game=game)
    with time_machine.travel(timezone.now() + dt.timedelta(seconds=3.456), tick=False):
        _same(services.attempt_start(player=make_user(), challenge=challenge))


def test_an_attempt_with_moves_assisted_and_finished() -> None:
    challenge = make_challenge()
    player = make_user()
    attempt = services.attempt_start(player=player, challenge=challenge)
    services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=["s", "s", "s"])
    _same(attempt)
    Attempt.objects.filter(pk=attempt.pk).update(assisted=True)
    _same(attempt)
    from games.services.attempts import attempt_submit

    attempt_submit(attempt_id=attempt.pk, player=player, start=None, moves=None)
    _same(attempt)
    practice = services.attempt_start(player=player, challenge=challenge)
    assert not practice.ranked
    _same(practice)


def test_a_past_days_attempt() -> None:
    challenge = make_challenge(day=days.today() - dt.timedelta(days=3))
    _same(services.attempt_start(player=make_user(), challenge=challenge))
