"""A Django cache on Redis that falls back to process memory while Redis is down.

The cache holds nothing that cannot be lost (request-throttling counters), so
a Redis failure must not fail the request: each operation that raises a Redis
or socket error trips :data:`core.circuit.REDIS` and is served by a
local-memory cache instead, and so is every operation while the breaker is
open. Throttling therefore goes on per process during an outage, and goes back
to Redis by itself afterwards.
"""

from __future__ import annotations

from typing import Any

import redis
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient

from core.circuit import REDIS, is_outage

FAILURES = (redis.RedisError, OSError)


def _failover(name: str) -> Any:
    def method(self: FailoverRedisCache, *args: Any, **kwargs: Any) -> Any:
        if not REDIS.is_open():
            try:
                return getattr(super(FailoverRedisCache, self), name)(*args, **kwargs)
            except FAILURES as exc:
                if is_outage(exc):
                    REDIS.trip(exc)
        return getattr(self.fallback, name)(*args, **kwargs)

    method.__name__ = name
    method.__doc__ = f"RedisCache.{name}, or the process-memory fallback while Redis is down."
    return method


class ReusedClientRedisCacheClient(RedisCacheClient):
    """Django's client makes a new ``redis.Redis`` for every operation, and redis-py fills a table of
    about 300 response callbacks in each one's constructor: 0.1 ms a call, more than the round trip.
    A ``redis.Redis`` is only a handle on its (thread-safe) connection pool, so one per pool is made
    once and kept."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, redis.Redis] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> redis.Redis:
        # Both private members of Django's RedisCacheClient (django/core/cache/backends/redis.py) are
        # missing from django-stubs.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class FailoverRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
        self.fallback = LocMemCache(f"failover:{server}", {"TIMEOUT": params.get("TIMEOUT", 300)})

    def ping(self) -> None:
        """Ask Redis itself (no fallback): raises when it is down. For the readiness check."""
        self._cache.get_client(write=True).ping()

    add = _failover("add")
    get = _failover("get")
    set = _failover("set")
    touch = _failover("touch")
    delete = _failover("delete")
    get_many = _failover("get_many")
    has_key = _failover("has_key")
    incr = _failover("incr")
    set_many = _failover("set_many")
    delete_many = _failover("delete_many")
    clear = _failover("clear")
