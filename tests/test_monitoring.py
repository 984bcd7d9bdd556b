"""Celery on /metrics (config/monitoring.py): beat's and the workers' heartbeats, the tasks' counts and
durations, written by the processes that run them into Redis and read by any web process; the held
results' figures; and gunicorn's lines as JSON with the request's id (config/gunicorn.py, config/logs.py)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from pytest_django import Settings

from config import monitoring
from config.celery import app
from games.models import FairPlayCase, Result
from games.tests.factories import make_challenge, make_user
from tests.test_observability import scrape

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def own_keys(settings: Settings) -> Iterator[str]:
    """This test's own monitoring keys (the cache's prefix) on the test Redis, deleted afterwards."""
    import redis

    prefix = f"test-monitoring-{uuid.uuid4().hex}"
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": prefix}}
    settings.CELERY_BROKER_URL = os.environ["REDIS_URL"]
    settings.DEBUG = True
    yield prefix
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    for key in client.scan_iter(f"{prefix}:*"):
        client.delete(key)


@pytest.fixture
def frozen_time(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """time.time() as the stamps and the scrape read it, moved by hand."""
    now = [1_900_000_000.0]
    monkeypatch.setattr(time, "time", lambda: now[0])  # the module config.monitoring and config.metrics read
    return now


@app.task(name="tests.monitoring.works")
def works() -> int:
    return 1


@app.task(name="tests.monitoring.fails")
def fails() -> None:
    raise ValueError("on purpose")


@pytest.mark.redis(reason="the heartbeats and counters live in Redis")
@pytest.mark.django_db
def test_heartbeats_age_and_a_queue_never_seen_is_infinitely_old(own_keys: str, frozen_time: list[float]) -> None:
    before = scrape(Client())
    assert before[("dailypatience_beat_heartbeat_age_seconds", ())] == float("inf")  # never seen: alert fires
    assert before[("dailypatience_worker_heartbeat_age_seconds", (("queue", "validation"),))] == float("inf")

    monitoring.stamp_beat()
    monitoring.stamp_queues(["validation", "solver", "retired"])  # "retired": a queue no longer configured
    frozen_time[0] += 40
    monitoring.stamp_queues(["solver"])  # a second worker on the solver queue: the freshest counts
    frozen_time[0] += 5
    s = scrape(Client())
    assert s[("dailypatience_beat_heartbeat_age_seconds", ())] == 45
    assert s[("dailypatience_worker_heartbeat_age_seconds", (("queue", "validation"),))] == 45
    assert s[("dailypatience_worker_heartbeat_age_seconds", (("queue", "solver"),))] == 5
    for queue in ("winnable", "prepare"):
        assert s[("dailypatience_worker_heartbeat_age_seconds", (("queue", queue),))] == float("inf")
    assert ("dailypatience_worker_heartbeat_age_seconds", (("queue", "retired"),)) not in s  # no false alarm


@pytest.mark.redis(reason="the heartbeats and counters live in Redis")
@pytest.mark.django_db
def test_tasks_are_counted_by_outcome_with_their_durations(own_keys: str) -> None:
    # Through Celery's own signals, as in a worker's process (apply: run here, signals and all).
    for _ in range(3):
        assert works.apply().get() == 1
    assert fails.apply(throw=False).state == "FAILURE"
    monitoring.record_task(task="tests.monitoring.works", state="RETRY", seconds=400.0)  # past the last bound
    s = scrape(Client())

    def sample(name: str, **labels: str) -> float:
        return s[(name, tuple(sorted(labels.items())))]

    assert sample("dailypatience_celery_tasks_total", task="tests.monitoring.works", state="succeeded") == 3
    assert sample("dailypatience_celery_tasks_total", task="tests.monitoring.works", state="retried") == 1
    assert sample("dailypatience_celery_tasks_total", task="tests.monitoring.fails", state="failed") == 1
    works_count = sample("dailypatience_celery_task_duration_seconds_count", task="tests.monitoring.works")
    assert works_count == 4
    assert sample("dailypatience_celery_task_duration_seconds_bucket", task="tests.monitoring.works", le="0.01") >= 0
    assert sample("dailypatience_celery_task_duration_seconds_bucket", task="tests.monitoring.works", le="300.0") == 3
    assert sample("dailypatience_celery_task_duration_seconds_bucket", task="tests.monitoring.works", le="+Inf") == 4
    assert sample("dailypatience_celery_task_duration_seconds_sum", task="tests.monitoring.works") >= 400.0
    assert sample("dailypatience_celery_task_duration_seconds_count", task="tests.monitoring.fails") == 1


@pytest.mark.redis(reason="the heartbeats live in Redis")
@pytest.mark.django_db
def test_beats_loop_stamps_its_heartbeat(own_keys: str, tmp_path: Path, frozen_time: list[float]) -> None:
    scheduler = monitoring.HeartbeatScheduler(app, schedule_filename=str(tmp_path / "schedule"), lazy=False)
    try:
        wait = scheduler.tick()
        assert 0 < wait <= app.conf.beat_max_loop_interval  # woken often enough to stamp
    finally:
        scheduler.close()
    frozen_time[0] += 30
    assert scrape(Client())[("dailypatience_beat_heartbeat_age_seconds", ())] == 30


@pytest.mark.redis(reason="the heartbeats live in Redis")
@pytest.mark.django_db
def test_a_workers_main_process_stamps_the_queues_it_consumes_on_its_timer(
    own_keys: str, frozen_time: list[float]
) -> None:
    calls: list[tuple[float, Any, tuple[Any, ...]]] = []

    def call_repeatedly(secs: float, fun: Any, args: tuple[Any, ...], priority: int) -> str:
        calls.append((secs, fun, args))
        return "tref"

    timer = SimpleNamespace(call_repeatedly=call_repeatedly)
    queues = SimpleNamespace(consume_from={"prepare": object()}, keys=lambda: ["validation", "prepare"])
    worker = SimpleNamespace(app=SimpleNamespace(amqp=SimpleNamespace(queues=queues)), timer=timer)
    step = monitoring.HeartbeatStep(worker)
    step.start(worker)
    assert [(secs, args) for secs, _, args in calls] == [(monitoring.HEARTBEAT_SECONDS, (["prepare"],))]
    s = scrape(Client())
    assert s[("dailypatience_worker_heartbeat_age_seconds", (("queue", "prepare"),))] == 0
    assert s[("dailypatience_worker_heartbeat_age_seconds", (("queue", "validation"),))] == float("inf")
    frozen_time[0] += 15
    _, fun, args = calls[0]
    fun(*args)  # the timer's next call
    assert scrape(Client())[("dailypatience_worker_heartbeat_age_seconds", (("queue", "prepare"),))] == 0
    # The step is on the app's worker blueprint.
    assert monitoring.HeartbeatStep in app.steps["worker"]


def test_a_redis_that_fails_loses_the_figure_not_the_task(settings: Settings) -> None:
    from core.circuit import BROKER

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    monitoring.record_task(task="x", state="SUCCESS", seconds=0.1)
    assert BROKER.is_open()  # the next figures are skipped at once, not each after a timeout
    monitoring.stamp_beat()
    monitoring.stamp_queues(["validation"])
    assert works.apply().get() == 1


def test_without_a_redis_broker_nothing_is_written(settings: Settings) -> None:
    settings.CELERY_BROKER_URL = "memory://"
    assert monitoring.broker_client() is None
    monitoring.record_task(task="x", state="SUCCESS", seconds=0.1)  # and no error


@pytest.mark.django_db
def test_held_and_orphaned_results(settings: Settings) -> None:
    settings.DEBUG = True
    challenge = make_challenge(game="klondike", seed=11)

    def result(name: str, *, held: bool) -> Result:
        from games.models import Attempt, Submission

        attempt = Attempt.objects.create(player=make_user(name), challenge=challenge, ranked=True, moves=["s"])
        sub = Submission.objects.create(attempt=attempt, moves=["s"], status=Submission.Status.VALID)
        return Result.objects.create(
            submission=sub,
            player=attempt.player,
            challenge=challenge,
            ranked=True,
            won=False,
            score=1,
            moves=1,
            foundation_cards=0,
            play_time_ms=1000,
            finished_at=challenge.created_at,
            held=held,
        )

    held = result("held1", held=True)
    FairPlayCase.objects.create(result=held, kind=FairPlayCase.Kind.PACE, holds=True, reason="fast")
    orphan = result("held2", held=True)
    FairPlayCase.objects.create(result=orphan, kind=FairPlayCase.Kind.PACE, holds=True, reason="fast", status="cleared")
    flagged = result("free", held=False)
    FairPlayCase.objects.create(result=flagged, kind=FairPlayCase.Kind.ADDRESS, holds=False, reason="same address")
    s = scrape(Client())
    assert s[("dailypatience_results_held", ())] == 2
    assert s[("dailypatience_results_held_orphaned", ())] == 1
    assert s[("dailypatience_fair_play_hold_oldest_seconds", ())] >= 0


# --- gunicorn's lines ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_with_log_format_json_every_line_gunicorn_writes_is_json_with_the_request_id(tmp_path: Path) -> None:
    port = free_port()
    out, err = tmp_path / "out", tmp_path / "err"
    env = {**os.environ, "LOG_FORMAT": "json", "DJANGO_DEBUG": "true", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "p")}
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    with out.open("wb") as o, err.open("wb") as e:
        proc = subprocess.Popen(
            [gunicorn, "-c", "config/gunicorn.py", "config.wsgi:application", "--bind", f"127.0.0.1:{port}",
             "--workers", "1", "--access-logfile", "-"],
            cwd=ROOT, env=env, stdout=o, stderr=e,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/health", headers={"X-Request-ID": "gu-1"})
                with urllib.request.urlopen(req, timeout=5) as answer:
                    assert answer.headers["X-Request-ID"] == "gu-1"
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, err.read_text()
                time.sleep(0.2)
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/nowhere?q=1", timeout=5)
        except urllib.error.HTTPError as missing:
            assert missing.code == 404
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    lines = [line for line in (out.read_text() + err.read_text()).splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line: one JSON object, or this fails
    assert any(r["logger"] == "gunicorn.error" and "Booting worker" in r["message"] for r in records), lines
    access = [r for r in records if r["logger"] == "gunicorn.access"]
    health = [r for r in access if r.get("path") == "/api/v1/health" and r.get("request_id") == "gu-1"]
    assert health and health[-1]["status"] == 200 and health[-1]["method"] == "GET", access
    missing_lines = [r for r in records if r.get("path") == "/nowhere" or "/nowhere" in r["message"]]
    ids = {r.get("request_id") for r in missing_lines}
    assert len(missing_lines) == 2 and len(ids) == 1 and None not in ids, missing_lines  # Django's and gunicorn's


def test_gunicorn_writes_access_lines_only_when_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from gunicorn.glogging import Logger

    from config import gunicorn as conf

    written: list[object] = []
    monkeypatch.setattr(Logger, "access", lambda self, resp, *args: written.append(resp))
    for accesslog, expected in ((None, []), ("-", ["answer"])):
        written.clear()
        logger = conf.AccessOnRequest.__new__(conf.AccessOnRequest)
        logger.cfg = SimpleNamespace(accesslog=accesslog)
        logger.access("answer", None, {}, None)
        assert written == expected, accesslog
