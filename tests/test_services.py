"""The backing services the settings point at are really used and reachable.

With no environment these run against SQLite, the in-memory cache and eager
Celery; with DATABASE_URL / REDIS_URL (as in CI) against PostgreSQL and Redis.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.core.cache import cache
from django.db import connection

from config.celery import app

REDIS_URL = os.environ.get("REDIS_URL", "")
needs_redis = pytest.mark.redis


@pytest.mark.django_db
def test_database_is_the_configured_one() -> None:
    url = os.environ.get("DATABASE_URL", "")
    expected = {"postgres": "postgresql", "postgresql": "postgresql"}.get(urlsplit(url).scheme, "sqlite")
    assert connection.vendor == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_cache_round_trip() -> None:
    key = f"test:{uuid.uuid4()}"
    cache.set(key, {"n": 1}, timeout=30)
    try:
        assert cache.get(key) == {"n": 1}
    finally:
        cache.delete(key)
    assert cache.get(key) is None
    expected = "RedisCache" if REDIS_URL else "LocMemCache"
    assert settings.CACHES["default"]["BACKEND"].endswith(expected)


@pytest.mark.skipif(bool(REDIS_URL), reason="REDIS_URL is set: tasks go to the broker")
def test_task_runs_in_process_without_redis() -> None:
    from celery.contrib.testing.tasks import ping

    result = ping.delay()
    assert result.get(timeout=5) == "pong"


@pytest.fixture
def celery_worker() -> Iterator[None]:
    import celery.contrib.testing.tasks  # noqa: F401  (registers celery.ping)
    from celery.contrib.testing.worker import start_worker

    # A real worker thread consuming from the Redis broker; start_worker pings
    # it through the broker and the result backend before yielding.
    with start_worker(app, pool="solo", perform_ping_check=True, shutdown_timeout=10):
        yield


@needs_redis
@pytest.mark.broker
def test_task_round_trip_through_redis(celery_worker: None) -> None:
    from celery.contrib.testing.tasks import ping

    result = ping.delay()
    assert result.get(timeout=20) == "pong"
