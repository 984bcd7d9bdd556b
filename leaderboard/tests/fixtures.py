"""Fixtures for the tests of any app that writes or reads the boards: the leaderboard's, and the apps above
it (accounts), whose conftest.py imports them by name. Every test gets its own Redis key prefix, and
``backend`` runs a test once on the database path and once through Redis (marked ``redis``: skipped when
REDIS_URL is unset)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from pytest_django import Settings

from leaderboard import redis_store


@pytest.fixture(autouse=True)
def redis_prefix(settings: Settings) -> Iterator[str]:
    """A fresh key prefix; the test's keys (and only those) are deleted afterwards."""
    prefix = f"test:lb:{uuid.uuid4().hex}"
    settings.LEADERBOARD_REDIS_PREFIX = prefix
    yield prefix
    client = redis_store.get_client()
    if client is not None:
        try:
            keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
            if keys:
                client.delete(*keys)
        except redis.RedisError:
            pass


@pytest.fixture(params=["database", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request: pytest.FixtureRequest, settings: Settings) -> str:
    """Where boards are read from: the database only, or Redis in front of it."""
    if request.param != "redis":
        settings.REDIS_URL = ""
    return str(request.param)
