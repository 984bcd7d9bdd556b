"""Leaderboard test fixtures: a Redis key prefix of each test's own and ``backend`` (both shared with the
apps above, in leaderboard/tests/fixtures.py), ``no_redis``, and ``redis_client`` (a test using it is
marked ``redis`` too: the root conftest.py)."""

from __future__ import annotations

import pytest
import redis
from pytest_django import Settings

from leaderboard import redis_store
from leaderboard.tests.fixtures import backend, redis_prefix

__all__ = ["backend", "redis_prefix"]  # the shared fixtures, found here by their names


@pytest.fixture
def no_redis(settings: Settings) -> None:
    settings.REDIS_URL = ""


@pytest.fixture
def redis_client() -> redis.Redis:
    client = redis_store.get_client()
    assert client is not None
    return client
