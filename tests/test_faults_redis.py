"""Redis is a cache and a broker, never a single point of failure (issue 11, item 5).

Each test points the service at a Redis in one of these states, never at the
shared one: a ``redis-server`` of its own (started on a free port, then
stopped or flushed), a closed port (nothing listening), an unroutable address,
and a server that accepts connections but never answers. In each, API calls
still answer (throttling in process memory, boards from PostgreSQL), a submit
is stored and answered 202 within a bounded time and is validated later by the
sweep, and ``/readyz`` names what is down while ``/healthz`` stays ok.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle

from config.celery import app
from core.circuit import BROKER
from games import services
from games.models import Submission
from games.tests.factories import make_challenge, make_user, token_for
from leaderboard import redis_store
from leaderboard.selectors.boards import leaderboard_page
from leaderboard.tests.factories import make_result

# Far above the ~0.5 s one timeout costs, far below the 19 s (and 60 s) it took before.
BOUND = 3.0

pytestmark = pytest.mark.django_db


# --- Redis in a given state --------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class OwnRedis:
    """A redis-server of the test's own, on a free port, without persistence."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, socket_timeout=1)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    def flush(self) -> None:
        redis.Redis(port=self.port).flushdb()


class SilentServer:
    """Accepts TCP connections and never answers: a Redis that hangs."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.url = f"redis://127.0.0.1:{self.sock.getsockname()[1]}/0"
        self.accepted: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted.append(conn)  # read nothing, answer nothing

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self.accepted:
            conn.close()
        self.sock.close()


class FullBacklog:
    """A port whose accept queue is full: new connections are never established (connect times out)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(0)
        port = self.sock.getsockname()[1]
        self.url = f"redis://127.0.0.1:{port}/0"
        self.fillers: list[socket.socket] = []
        for _ in range(4):
            filler = socket.socket()
            filler.setblocking(False)
            with contextlib.suppress(BlockingIOError):  # completes in the kernel's queue, or never
                filler.connect(("127.0.0.1", port))
            self.fillers.append(filler)
        time.sleep(0.1)

    def close(self) -> None:
        for filler in self.fillers:
            filler.close()
        self.sock.close()


@pytest.fixture
def own_redis() -> Iterator[OwnRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = OwnRedis()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def use_redis(settings: Settings) -> Iterator[Callable[[str], None]]:
    """Point the cache, the leaderboards and Celery at a Redis URL (Celery really sends)."""
    saved = {key: app.conf[key] for key in ("broker_url", "result_backend", "task_always_eager")}

    def reset_pools() -> None:  # the next send (and result) connects to the conf's URLs afresh
        app._pool = None
        app.amqp._producer_pool = None
        app._backend_cache = None
        app._local.__dict__.pop("backend", None)

    def point(url: str) -> None:
        settings.REDIS_URL = url
        settings.CACHES = {
            "default": {
                "BACKEND": "config.cache.FailoverRedisCache",
                "LOCATION": url,
                "KEY_PREFIX": "dailypatience",
                "OPTIONS": settings.REDIS_CLIENT_OPTIONS,
            }
        }
        app.conf.update(broker_url=url, result_backend=url, task_always_eager=False)
        reset_pools()

    yield point
    app.conf.update(saved)
    reset_pools()


def _closed_port_url() -> str:
    return f"redis://127.0.0.1:{_free_port()}/0"


@pytest.fixture(params=["stopped", "closed port", "unreachable", "unroutable", "silent"])
def redis_down(request: pytest.FixtureRequest, use_redis: Callable[[str], None]) -> Iterator[str]:
    """The service's Redis, down in one of five ways."""
    if request.param == "stopped":
        if shutil.which("redis-server") is None:
            pytest.skip("redis-server is not installed")
        server = OwnRedis()
        server.start()
        use_redis(server.url)
        redis_store.get_client().ping()  # type: ignore[union-attr]  # it was up...
        server.stop()  # ... and is gone
        yield request.param
    elif request.param == "closed port":
        use_redis(_closed_port_url())
        yield request.param
    elif request.param == "unreachable":
        backlog = FullBacklog()
        use_redis(backlog.url)
        yield request.param
        backlog.close()
    elif request.param == "unroutable":
        use_redis("redis://192.0.2.1:6379/0")  # TEST-NET-1: times out or is refused
        yield request.param
    else:
        silent = SilentServer()
        use_redis(silent.url)
        yield request.param
        silent.close()


# --- Helpers ------------------------------------------------------------------------------------


def _player_client() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_user())}")
    return client


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    started = time.monotonic()
    value = call()
    return value, time.monotonic() - started


def _board_ids(challenge: Any) -> list[int]:
    return [entry.result_id for entry in leaderboard_page(challenge=challenge, offset=0, limit=50).entries]


# --- With Redis down ---------------------------------------------------------------------------


@pytest.mark.broker
@pytest.mark.throttled
def test_api_answers_and_still_throttles_in_process_memory(redis_down: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AnonRateThrottle, "rate", "5/min", raising=False)
    client = APIClient(REMOTE_ADDR="203.0.113.9")
    statuses = []
    started = time.monotonic()
    for _ in range(6):
        statuses.append(client.get("/api/v1/games").status_code)
    assert statuses == [200] * 5 + [429]
    assert time.monotonic() - started < BOUND  # one timeout, then the breaker skips Redis


@pytest.mark.broker
@pytest.mark.throttled
def test_login_limits_hold_in_process_memory(redis_down: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """core.limits keeps counting wrong passwords while Redis is down (config.cache's memory fallback)."""
    monkeypatch.setattr(AnonRateThrottle, "allow_request", lambda self, request, view: True)
    make_user("locked-out")
    client = APIClient(REMOTE_ADDR="203.0.113.10")
    started = time.monotonic()
    statuses = [
        client.post(
            "/api/v1/auth/token",
            {"username": "locked-out", "password": f"guess{i}"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"10.4.{i}.1",
        ).status_code
        for i in range(8)
    ]
    assert statuses[:5] == [401] * 5 and statuses[-1] == 429
    assert time.monotonic() - started < BOUND


@pytest.mark.broker
def test_boards_and_ranks_come_from_postgresql(redis_down: str) -> None:
    challenge = make_challenge(seed=11)
    results = [make_result(challenge=challenge, score=score) for score in (300, 900, 600)]
    expected = [results[1].pk, results[2].pk, results[0].pk]

    page, elapsed = _timed(lambda: leaderboard_page(challenge=challenge, offset=0, limit=10))
    assert [e.result_id for e in page.entries] == expected
    assert page.source == "database"
    assert elapsed < BOUND

    response = APIClient().get(f"/api/v1/leaderboards/{challenge.date}/{challenge.game}")
    assert response.status_code == 200
    assert [e["score"] for e in response.json()["entries"]] == [900, 600, 300]

    owner = results[2].player
    client = APIClient()
    client.force_authenticate(owner)
    mine = client.get(f"/api/v1/leaderboards/{challenge.date}/{challenge.game}?around=me").json()
    assert mine["me"]["rank"] == 2


@pytest.mark.broker
def test_submit_is_stored_and_answered_quickly_then_sent_by_the_sweep(
    redis_down: str, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    challenge = make_challenge(seed=12)
    client = _player_client()
    attempt = client.post(f"/api/v1/daily/{challenge.date}/{challenge.game}/attempts")
    assert attempt.status_code == 201

    with django_capture_on_commit_callbacks(execute=True):
        response, elapsed = _timed(lambda: client.post(f"/api/v1/attempts/{attempt.json()['id']}/submit"))
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "pending"
    assert elapsed < BOUND
    submission = Submission.objects.get(pk=response.json()["id"])
    assert submission.status == Submission.Status.PENDING

    # A second submit meanwhile does not even try the broker (the breaker is open).
    other = _player_client()
    second = other.post(f"/api/v1/daily/{challenge.date}/{challenge.game}/attempts").json()
    with django_capture_on_commit_callbacks(execute=True):
        response, elapsed = _timed(lambda: other.post(f"/api/v1/attempts/{second['id']}/submit"))
    assert response.status_code == 202
    assert elapsed < 1.0

    # The broker is back: the sweep sends what was left pending.
    app.conf.task_always_eager = True
    BROKER.reset()
    assert services.submissions_resend_pending(older_than=dt.timedelta(0)) == 2
    submission.refresh_from_db()
    assert submission.status == Submission.Status.VALID


@pytest.fixture
def operator(settings: Settings) -> APIClient:
    """A client with the metrics token, which /readyz's details need."""
    settings.METRICS_TOKEN = "readyz-test-token"
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Bearer readyz-test-token")
    return client


@pytest.mark.broker
def test_readyz_names_what_is_down_and_healthz_stays_live(redis_down: str, operator: APIClient) -> None:
    response, elapsed = _timed(lambda: operator.get("/readyz"))
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert set(body["down"]) == {"cache", "broker"}
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["cache"].startswith("down: ")
    assert elapsed < BOUND
    assert operator.get("/healthz").status_code == 200
    # Without the token (or with another): what is down, not why (hosts, ports, error texts).
    for client in (APIClient(), APIClient(HTTP_AUTHORIZATION="Bearer guess")):
        anonymous = client.get("/readyz")
        assert anonymous.status_code == 503
        assert anonymous.json() == {"status": "unavailable", "down": body["down"]}
        assert b"6379" not in anonymous.content and b"Error" not in anonymous.content


# --- With Redis up, flushed, restarted --------------------------------------------------------


@pytest.mark.broker
def test_readyz_ok_when_everything_answers(
    own_redis: OwnRedis, use_redis: Callable[[str], None], operator: APIClient
) -> None:
    use_redis(own_redis.url)
    assert APIClient().get("/readyz").json() == {"status": "ok", "down": []}
    response = operator.get("/readyz")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "status": "ok",
        "down": [],
        "checks": {"database": "ok", "migrations": "ok", "cache": "ok", "broker": "ok"},
    }


def test_readyz_without_redis_uses_process_memory(settings: Settings, operator: APIClient) -> None:
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    response = operator.get("/readyz")  # tasks run in process here (not marked broker)
    assert response.status_code == 200
    assert response.json()["checks"] == {
        "database": "ok",
        "migrations": "ok",
        "cache": "ok (process memory)",
        "broker": "ok (tasks run in process)",
    }


@pytest.mark.broker
def test_flushed_redis_boards_are_rebuilt_equal_to_postgresql(
    own_redis: OwnRedis, use_redis: Callable[[str], None], settings: Settings
) -> None:
    use_redis(own_redis.url)
    settings.LEADERBOARD_REDIS_PREFIX = "test:faults"
    challenge = make_challenge(seed=13)
    results = [make_result(challenge=challenge, score=score, moves=100 + i) for i, score in enumerate((5, 50, 20))]
    expected = [results[1].pk, results[2].pk, results[0].pk]
    first = leaderboard_page(challenge=challenge, offset=0, limit=10)
    assert first.source == "redis"
    assert [e.result_id for e in first.entries] == expected

    own_redis.flush()
    again = leaderboard_page(challenge=challenge, offset=0, limit=10)
    assert again.source == "redis"  # rebuilt from PostgreSQL on the read after the flush
    assert [e.result_id for e in again.entries] == expected


@pytest.mark.broker
def test_redis_back_after_an_outage_is_used_again(
    own_redis: OwnRedis, use_redis: Callable[[str], None], settings: Settings
) -> None:
    use_redis(own_redis.url)
    settings.LEADERBOARD_REDIS_PREFIX = "test:faults"
    settings.REDIS_RETRY_AFTER = 0.3
    challenge = make_challenge(seed=14)
    make_result(challenge=challenge)
    own_redis.stop()
    assert leaderboard_page(challenge=challenge, offset=0, limit=10).source == "database"
    assert APIClient().get("/api/v1/games").status_code == 200
    own_redis.start()
    time.sleep(0.4)  # the breaker's REDIS_RETRY_AFTER
    assert leaderboard_page(challenge=challenge, offset=0, limit=10).source == "redis"
    assert APIClient().get("/readyz").status_code == 200


def test_readyz_names_the_database_when_it_is_down(monkeypatch: pytest.MonkeyPatch, operator: APIClient) -> None:
    from django.db import DatabaseError

    from config import views

    def unreachable() -> str:
        raise DatabaseError("connection refused")

    monkeypatch.setitem(views.READINESS_CHECKS, "database", unreachable)
    assert APIClient().get("/readyz").json() == {"status": "unavailable", "down": ["database"]}
    response = operator.get("/readyz")
    assert response.status_code == 503
    assert response.json()["down"] == ["database"]
    assert response.json()["checks"]["database"] == "down: DatabaseError: connection refused"
