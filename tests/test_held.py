"""Answers a process holds for a few seconds (core.held): /daily and the day's counts."""

from __future__ import annotations

import functools
import time
from typing import Any

import pytest
from django.test import Client
from pytest_django import Settings

from core import held
from games.tests.factories import make_challenge
from leaderboard.tests.factories import make_result, make_user

pytestmark = [pytest.mark.django_db, pytest.mark.held_counts]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    clock = Clock()
    monkeypatch.setattr(time, "monotonic", clock)  # the module core.held reads its clock from
    return clock


def _players() -> Any:
    return Client(HTTP_HOST="localhost").get("/api/v1/daily").json()["challenges"][0]["players"]


def test_daily_is_held_for_counts_seconds_then_counted_again(clock: Clock, settings: Settings) -> None:
    settings.COUNTS_SECONDS = 10
    challenge = make_challenge()
    make_result(challenge=challenge, player=make_user("first"))
    assert _players() == 1
    make_result(challenge=challenge, player=make_user("second"))
    clock.now += 9.9
    assert _players() == 1  # the held answer: the same for every caller, a few seconds old at most
    clock.now += 0.2
    assert _players() == 2


def test_nothing_is_held_with_zero_seconds(clock: Clock, settings: Settings) -> None:
    settings.COUNTS_SECONDS = 0
    challenge = make_challenge()
    make_result(challenge=challenge, player=make_user("first"))
    assert _players() == 1
    make_result(challenge=challenge, player=make_user("second"))
    assert _players() == 2


def test_a_full_table_starts_again() -> None:
    for i in range(held._MAX + 5):
        held.held(("k", i), 60, functools.partial(int, i))
    assert len(held._held) <= held._MAX
    assert held.held(("k", held._MAX + 4), 60, lambda: -1) in (held._MAX + 4, -1)


def test_a_day_still_being_prepared_is_not_held(clock: Clock, settings: Settings) -> None:
    """While the day's deals are being prepared, each shows on /daily as soon as it is ready."""
    settings.COUNTS_SECONDS = 10
    client = Client(HTTP_HOST="localhost")
    assert client.get("/api/v1/daily").json()["challenges"] == []
    make_challenge(game="klondike")
    assert [c["game"] for c in client.get("/api/v1/daily").json()["challenges"]] == ["klondike"]
