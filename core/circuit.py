"""Circuit breakers: after a dependency failed, skip it for a few seconds instead of waiting on it again.

Redis is a cache and a broker, never the only copy of anything: when it fails,
callers fall back (process memory for the cache, PostgreSQL for the boards, the
pending-submission sweep for the broker). A failure costs one short socket
timeout (``REDIS_SOCKET_TIMEOUT``); the breaker then stays *open* for
``REDIS_RETRY_AFTER`` seconds, during which callers take their fallback at
once, and the next call after that tries the dependency again. One breaker per
dependency and process; nothing is shared between processes.
"""

from __future__ import annotations

import logging
import threading
import time

import redis
from django.conf import settings

logger = logging.getLogger(__name__)


class Circuit:
    def __init__(self, name: str) -> None:
        self.name = name
        self._open_until = 0.0
        self._lock = threading.Lock()

    def is_open(self) -> bool:
        """True while the dependency is known to be down: take the fallback without trying it."""
        return time.monotonic() < self._open_until

    def trip(self, exc: BaseException | None = None) -> None:
        """The dependency just failed: skip it for REDIS_RETRY_AFTER seconds."""
        retry_after = float(getattr(settings, "REDIS_RETRY_AFTER", 5.0))
        with self._lock:
            was_open = self.is_open()
            self._open_until = time.monotonic() + retry_after
        if not was_open:
            logger.warning("%s is down (%s); using the fallback for %.0f s", self.name, exc, retry_after)

    def reset(self) -> None:
        with self._lock:
            self._open_until = 0.0


# The Django cache (request throttling) and the leaderboards' Redis client.
REDIS = Circuit("redis")
# The Celery broker (sending validations).
BROKER = Circuit("broker")


def is_outage(exc: BaseException) -> bool:
    """A connection or timeout error (Redis is down or hangs), not an error answer to one command."""
    return isinstance(exc, redis.ConnectionError | redis.TimeoutError | OSError)


def reset_all() -> None:
    for circuit in (REDIS, BROKER):
        circuit.reset()
