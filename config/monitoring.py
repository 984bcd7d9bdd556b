"""Celery's liveness and task figures, kept in the broker's Redis and exposed by ``/metrics`` (config/metrics.py).

Several worker processes (prefork children, several containers) and one beat each write a few Redis keys;
any web process reads them all in its scrape's one pipeline, so nothing but the web has to be scraped:

- **Beat**: its scheduler (``HeartbeatScheduler``, ``CELERY_BEAT_SCHEDULER``) stamps ``<prefix>:hb:beat``
  with the time at each turn of its loop, at most every ``HEARTBEAT_SECONDS`` (it wakes at least that
  often: ``CELERY_BEAT_MAX_INTERVAL``). The stamp comes from beat's own loop, not from a task it sends, so
  a busy queue never makes beat look dead.
- **Workers**: each worker's main process (``HeartbeatStep``, a bootstep on the worker's timer, which
  runs whatever its pool's processes are busy with) stamps the hash ``<prefix>:hb:queues``, one field
  per queue it consumes, every ``HEARTBEAT_SECONDS``. The freshest worker on a queue wins; a queue whose
  every worker died ages from its last stamp on.
- **Tasks**: ``task_prerun`` / ``task_postrun`` in the process that runs a task count it by name and
  outcome (``succeeded``, ``failed``, ``retried``, ...) in ``<prefix>:tasks`` and its duration in the
  histogram buckets of ``<prefix>:task_seconds``: one pipelined round trip per task.

Why Redis and not prometheus_client's multiprocess files or an exporter: the workers run in other
containers than the web, so their files are out of its reach, and an exporter (celery-exporter, Flower)
is one more process to deploy and needs every worker sending events (``-E``: a broker message per task
state). The counters live as long as Redis does; after a flush they start again from 0, which
Prometheus's ``rate()`` takes as a counter reset.

Writing is best effort: with no Redis broker (eager tasks, tests) it does nothing, and a Redis that fails
costs one short timeout, is logged at debug level, and never fails the task or stops beat.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from celery import bootsteps
from celery.beat import PersistentScheduler
from django.conf import settings

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 15.0
# Upper bounds (seconds) of the task duration histogram's buckets; +Inf is implied.
DURATION_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
# What task_postrun's state becomes in dailypatience_celery_tasks_total{state}.
OUTCOMES = {"SUCCESS": "succeeded", "FAILURE": "failed", "RETRY": "retried", "REJECTED": "rejected"}


def key(name: str) -> str:
    """A key of this deployment's (the cache's prefix: parallel stacks on one Redis keep theirs apart)."""
    prefix = settings.CACHES["default"].get("KEY_PREFIX") or "dailypatience"
    return f"{prefix}:{name}"


def broker_client() -> Any | None:
    """A Redis client on the broker with the service's short timeouts, or None without a Redis broker."""
    url = getattr(settings, "CELERY_BROKER_URL", "") or ""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    import redis

    return redis.Redis.from_url(
        url, socket_timeout=settings.REDIS_SOCKET_TIMEOUT, socket_connect_timeout=settings.REDIS_CONNECT_TIMEOUT
    )


_writers: dict[str, Any] = {}  # broker URL -> this process's client (redis-py's pool reconnects after a fork)


def _write(what: str, fill: Callable[[Any], None]) -> None:
    """Run ``fill(pipeline)`` on the broker's Redis; never raises. While the broker is known to be down
    (core.circuit.BROKER) nothing is tried, so a task finishing then never waits on Redis's timeout."""
    from core.circuit import BROKER, is_outage

    url = getattr(settings, "CELERY_BROKER_URL", "") or ""
    if BROKER.is_open():
        return
    try:
        client = _writers.get(url)
        if client is None:
            client = broker_client()
            if client is None:
                return
            _writers[url] = client
        pipe = client.pipeline(transaction=False)
        fill(pipe)
        pipe.execute()
    except Exception as exc:  # a figure lost, never a task or beat's loop
        if is_outage(exc):
            BROKER.trip(exc)
        logger.debug("monitoring: could not record %s: %s", what, exc)


def stamp_beat(*, now: float | None = None) -> None:
    at = time.time() if now is None else now
    _write("beat's heartbeat", lambda pipe: pipe.set(key("hb:beat"), repr(at)))


def stamp_queues(queues: Iterable[str], *, now: float | None = None) -> None:
    at = repr(time.time() if now is None else now)
    names = sorted(set(queues))
    if names:
        _write("a worker's heartbeat", lambda pipe: pipe.hset(key("hb:queues"), mapping=dict.fromkeys(names, at)))


def record_task(*, task: str, state: str, seconds: float | None) -> None:
    outcome = OUTCOMES.get(state, state.lower())

    def fill(pipe: Any) -> None:
        pipe.hincrby(key("tasks"), f"{task}|{outcome}", 1)
        if seconds is not None:
            bucket = next((str(b) for b in DURATION_BUCKETS if seconds <= b), "+Inf")
            pipe.hincrby(key("task_seconds"), f"{task}|{bucket}", 1)
            pipe.hincrbyfloat(key("task_seconds"), f"{task}|sum", seconds)

    _write("a task's outcome", fill)


# --- Beat ------------------------------------------------------------------------------------------


class HeartbeatScheduler(PersistentScheduler):
    """Celery's default scheduler (its schedule file, ``--schedule``) that stamps beat's heartbeat."""

    _stamped = 0.0

    def tick(self, *args: Any, **kwargs: Any) -> float:
        now = time.monotonic()
        if now - self._stamped >= HEARTBEAT_SECONDS:
            self._stamped = now
            stamp_beat()
        return float(super().tick(*args, **kwargs))


# --- Workers ---------------------------------------------------------------------------------------


class HeartbeatStep(bootsteps.StartStopStep):
    """Stamps the queues this worker consumes, on the worker's timer, from its main process."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        super().__init__(worker, **kwargs)
        self.tref: Any = None

    def start(self, worker: Any) -> None:
        queues = list(worker.app.amqp.queues.consume_from or worker.app.amqp.queues)
        stamp_queues(queues)
        self.tref = worker.timer.call_repeatedly(HEARTBEAT_SECONDS, stamp_queues, (queues,), priority=10)

    def stop(self, worker: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None


# --- Tasks -----------------------------------------------------------------------------------------

_started: dict[str, float] = {}  # task id -> time.monotonic() at its start, in the process running it


def _task_started(task_id: str | None = None, **kwargs: Any) -> None:
    if task_id:
        if len(_started) > 10_000:  # ids whose postrun never came (a process killed under them)
            _started.clear()
        _started[task_id] = time.monotonic()


def _task_done(task_id: str | None = None, task: Any = None, state: str | None = None, **kwargs: Any) -> None:
    began = _started.pop(task_id, None) if task_id else None
    seconds = time.monotonic() - began if began is not None else None
    record_task(task=getattr(task, "name", None) or "unknown", state=state or "unknown", seconds=seconds)


def connect(app: Any) -> None:
    """Counts every task the app's processes run, and adds the heartbeat to its workers."""
    from celery.signals import task_postrun, task_prerun

    task_prerun.connect(_task_started, weak=False, dispatch_uid="config.monitoring.task_started")
    task_postrun.connect(_task_done, weak=False, dispatch_uid="config.monitoring.task_done")
    app.steps["worker"].add(HeartbeatStep)


# --- Reading (config/metrics.py) -------------------------------------------------------------------


def read_commands(pipe: Any) -> int:
    """Queue the reads of every figure above on ``pipe``; returns how many answers they make."""
    pipe.get(key("hb:beat"))
    pipe.hgetall(key("hb:queues"))
    pipe.hgetall(key("tasks"))
    pipe.hgetall(key("task_seconds"))
    return 4


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def parse(answers: list[Any]) -> dict[str, Any]:
    """The answers of ``read_commands``, decoded: beat's stamp, {queue: stamp}, {(task, outcome): n},
    {task: ({bucket: n}, sum)}."""
    beat, queues, tasks, durations = answers
    counts: dict[tuple[str, str], int] = {}
    for field, n in tasks.items():
        name, _, outcome = _text(field).rpartition("|")
        counts[(name, outcome)] = int(n)
    histograms: dict[str, tuple[dict[str, int], float]] = {}
    for field, n in durations.items():
        name, _, bucket = _text(field).rpartition("|")
        buckets, _ = histograms.setdefault(name, ({}, 0.0))
        if bucket == "sum":
            histograms[name] = (buckets, float(n))
        else:
            buckets[bucket] = int(n)
    return {
        "beat": float(beat) if beat is not None else None,
        "queues": {_text(q): float(at) for q, at in queues.items()},
        "tasks": counts,
        "durations": histograms,
    }
