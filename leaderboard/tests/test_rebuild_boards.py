"""``manage.py rebuild_boards``: every Redis board written again from PostgreSQL, equal to the database's ranking."""

from __future__ import annotations

import datetime as dt
from io import StringIO
from typing import Any

import pytest
import redis
from django.core.management import CommandError, call_command
from pytest_django import Settings

from games import days
from leaderboard import redis_store
from leaderboard.selectors.boards import leaderboard_page
from leaderboard.tests.factories import make_challenge, make_result

pytestmark = pytest.mark.django_db


def rebuild(*args: str) -> str:
    out = StringIO()
    call_command("rebuild_boards", *args, stdout=out)
    return out.getvalue()


def board_in_redis(client: redis.Redis, challenge: Any) -> tuple[int, int] | None:
    keys = redis_store.board_keys(challenge=challenge)
    if not client.exists(keys.members):
        return None
    return client.zcard(keys.all), client.zcard(keys.clean)


def test_every_board_is_rebuilt_from_postgresql(redis_client: redis.Redis, settings: Settings) -> None:
    today = days.today()
    klondike = make_challenge(date=today, game="klondike")
    josephine = make_challenge(date=today - dt.timedelta(days=2), game="josephine")
    ancient = make_challenge(date=today - dt.timedelta(days=400), game="klondike")
    for i in range(12):
        make_result(challenge=klondike, score=10 * i, assisted=i % 4 == 0)
    for i in range(5):
        make_result(challenge=josephine, score=i)
    make_result(challenge=ancient)
    make_result(challenge=klondike, ranked=False)  # practice: never on a board
    for challenge in (klondike, josephine, ancient):  # a Redis that lost everything
        keys = redis_store.board_keys(challenge=challenge)
        redis_client.delete(keys.all, keys.clean, keys.members, keys.version, keys.pages)
        assert board_in_redis(redis_client, challenge) is None

    out = rebuild()
    assert board_in_redis(redis_client, klondike) == (12, 9)
    assert board_in_redis(redis_client, josephine) == (5, 5)
    assert board_in_redis(redis_client, ancient) is None  # outside the days a board lives in Redis
    assert f"{today} klondike         12 entries" in out
    assert "2 board(s) rebuilt" in out

    # Read through Redis, the rebuilt board is the database's ranking.
    page = leaderboard_page(challenge=klondike, offset=0, limit=50, clean=False)
    assert page.source == "redis"
    scores = [e.score for e in page.entries]
    assert scores == sorted(scores, reverse=True) and len(scores) == 12

    assert "1 board(s) rebuilt" in rebuild("--date", str(ancient.date))
    assert board_in_redis(redis_client, ancient) == (1, 1)
    assert "3 board(s) rebuilt" in rebuild("--all")


@pytest.mark.redis
def test_a_bad_date_is_an_error() -> None:
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        rebuild("--date", "yesterday")


def test_a_missing_redis_is_an_error(settings: Settings) -> None:
    settings.REDIS_URL = ""
    with pytest.raises(CommandError, match="REDIS_URL is not set"):
        rebuild()
