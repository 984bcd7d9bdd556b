"""Every test of the accounts app gets its own Redis key prefix for the boards (deleted afterwards), and
``backend`` runs a test once on the database alone and once with the Redis mirror (marked ``redis``)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from leaderboard import redis_store


@pytest.fixture(autouse=True)
def redis_prefix(settings: Any) -> Iterator[str]:
    prefix = f"test:accounts:{uuid.uuid4().hex}"
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
def backend(request: pytest.FixtureRequest, settings: Any) -> str:
    if request.param != "redis":
        settings.REDIS_URL = ""
    return str(request.param)
