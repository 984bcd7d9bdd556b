"""Small factories for the leaderboard tests: rows built directly, no services."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from games.models import Challenge
from games.tests.factories import make_result as make_result  # one factory of results for every app's tests

_seq = itertools.count(1)
BASE_TIME = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)
# The keys of an entry of any board (leaderboard.serializers.EntrySerializer): the public, league and friends'.
ENTRY_KEYS = {
    "rank",
    "player",
    "won",
    "score",
    "moves",
    "play_time_ms",
    "time",
    "finished_at",
    "assisted",
    "attempt",
    "replay",
    "review",
}


def make_user(username: str | None = None) -> User:
    return get_user_model().objects.create_user(username=username or f"player{next(_seq)}", password="x")


def make_challenge(*, date: dt.date, game: str = "klondike", **fields: Any) -> Challenge:
    values: dict[str, Any] = {"status": Challenge.Status.READY, "seed": 1000 + next(_seq), "difficulty": 2}
    values.update(fields)
    return Challenge.objects.create(date=date, game=game, **values)
