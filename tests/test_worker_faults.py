"""Faults the service survives, with real processes: a Celery worker killed with SIGKILL mid-validation.

The worker is a `celery worker --pool solo` subprocess on a queue of its own (so parallel
runs never take each other's tasks). To kill it *during* a validation, deterministically,
another session holds an uncommitted ranked Result of the victim's (player, challenge): the
worker's own INSERT of that Result waits on the unique index, inside its transaction, after its
writes and before its COMMIT. The test waits until the worker's session is blocked there, then
sends SIGKILL while more submissions keep arriving. A second worker is then
started: every submission must end validated exactly once (``validations == 1``, one
Result each), none left pending, without beat.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection, connections, transaction
from django.test import Client
from django.utils import timezone

from games.models import Attempt, Challenge, Result, Submission
from games.tests.factories import make_challenge, make_user, token_for

ROOT = Path(__file__).resolve().parent.parent
WINS = ROOT / "games" / "tests" / "data" / "winning_logs.json"

pytestmark = [
    pytest.mark.broker,
    pytest.mark.slow,
    pytest.mark.redis(reason="a real broker for the worker"),
    pytest.mark.postgres(reason="the worker process needs a database it can share"),
    pytest.mark.django_db(transaction=True),
]

BOUND = 60.0  # seconds: every wait in this file gives up after this


def database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD'] or ''}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


def wait_until(what: str, check: Callable[[], bool], *, log: Path | None = None) -> None:
    deadline = time.monotonic() + BOUND
    while not check():
        if time.monotonic() > deadline:
            tail = log.read_text()[-3000:] if log is not None and log.exists() else ""
            pytest.fail(f"{what}: not within {BOUND:g} s\n{tail}")
        time.sleep(0.1)


class Worker:
    """One `celery -A config worker` process (pool solo, or prefork with one child) consuming ``queue`` only."""

    def __init__(self, *, queue: str, log: Path, pool: str) -> None:
        self.queue, self.log, self.pool = queue, log, pool
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {
            **os.environ,
            "DATABASE_URL": database_url(),
            "CELERY_QUEUE": self.queue,
            "CELERY_SOLVER_QUEUE": f"{self.queue}-solver",
        }
        mark = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("a") as out:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "config",
                    "worker",
                    "--pool",
                    self.pool,
                    "--concurrency",
                    "1",
                    "-Q",
                    self.queue,
                    "--hostname",
                    f"{self.queue}-{uuid.uuid4().hex[:6]}@%h",
                    "--without-mingle",
                    "--without-gossip",
                    "--without-heartbeat",
                    "--loglevel",
                    "INFO",
                ],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        wait_until(
            "the worker is ready", lambda: " ready." in self.log.read_text()[mark:] or not self.alive, log=self.log
        )
        assert self.alive, self.log.read_text()[-3000:]

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill_the_process_validating(self) -> None:
        """SIGKILL to the process running the task: the worker itself (solo), or its pool child (prefork)."""
        assert self.proc is not None
        if self.pool == "solo":
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)
            return
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        assert len(children) == 1, children
        os.kill(int(children[0]), signal.SIGKILL)
        wait_until(
            "the pool child is gone",
            lambda: (
                not Path(f"/proc/{children[0]}/stat").exists()
                or Path(f"/proc/{children[0]}/stat").read_text().split()[2] == "Z"
            ),
        )

    def stop(self) -> None:
        if self.proc is None or not self.alive:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def queue() -> Iterator[str]:
    """A queue name for this test only; the test process sends its validations there."""
    from config.celery import app

    name = f"test-faults-{uuid.uuid4().hex[:12]}"
    saved = app.conf.task_default_queue
    app.conf.task_default_queue = name
    try:
        yield name
    finally:
        app.conf.task_default_queue = saved
        _forget_queue(name)


def _forget_queue(name: str) -> None:
    """Delete the queue, its bindings and the killed worker's unacknowledged message: nothing is left in Redis."""
    import redis

    client = redis.Redis.from_url(os.environ["REDIS_URL"], socket_timeout=5)
    try:
        client.delete(name, f"{name}-solver")
        for key in client.scan_iter(match="_kombu.binding*"):  # the queue's bindings, under any exchange
            if name.encode() in key:
                client.delete(key)
            elif client.type(key) == b"set":
                stale = [m for m in client.smembers(key) if name.encode() in m]
                if stale:
                    client.srem(key, *stale)
        for tag, raw in client.hgetall("unacked").items():
            try:
                routing_key = json.loads(raw)[2]
            except (ValueError, IndexError, TypeError):
                continue
            if routing_key == name:
                client.hdel("unacked", tag)
                client.zrem("unacked_index", tag)
    finally:
        client.close()


@pytest.fixture
def workers(tmp_path: Path, queue: str, pool: str) -> Iterator[Callable[[], Worker]]:
    started: list[Worker] = []

    def start() -> Worker:
        worker = Worker(queue=queue, log=tmp_path / "worker.log", pool=pool)
        worker.start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def winning_logs() -> dict[str, tuple[int, list[str]]]:
    data = json.loads(WINS.read_text())
    return {game: (int(row["seed"]), list(row["moves"])) for game, row in data.items()}


def submit(client: Client, attempt: Attempt, token: str) -> int:
    response = client.post(
        f"/api/v1/attempts/{attempt.pk}/submit",
        "{}",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert response.status_code == 202, response.content
    return int(response.json()["id"])


@contextmanager
def conflicting_result(*, player_id: int, challenge: Challenge) -> Iterator[None]:
    """An uncommitted ranked Result of (player, challenge), in another session, while the block runs.

    The validation's own INSERT of that player's ranked Result then waits on the unique index
    for this transaction to end: the worker is stopped inside its validation transaction, after
    its writes and before its COMMIT. Rolled back on exit, so the row never exists.
    """
    inserted, release = threading.Event(), threading.Event()
    failure: list[BaseException] = []

    def hold() -> None:
        try:
            with transaction.atomic():
                now = timezone.now()
                Result.objects.create(
                    submission_id=2**62,
                    player_id=player_id,
                    challenge=challenge,
                    ranked=True,
                    won=False,
                    score=0,
                    moves=0,
                    foundation_cards=0,
                    play_time_ms=0,
                    finished_at=now,  # FK checks wait for COMMIT
                )
                inserted.set()
                release.wait(BOUND)
                transaction.set_rollback(True)
        except BaseException as exc:  # pragma: no cover - reported below
            failure.append(exc)
            inserted.set()
        finally:
            connections.close_all()

    thread = threading.Thread(target=hold)
    thread.start()
    inserted.wait(BOUND)
    assert not failure, failure
    try:
        yield
    finally:
        release.set()
        thread.join(BOUND)


def worker_blocked_on_result_insert() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            " AND query LIKE 'INSERT INTO \"games_result\"%%'"
        )
        return int(cursor.fetchone()[0]) > 0


@pytest.mark.parametrize("pool", ["solo", "prefork"])
def test_a_worker_killed_mid_validation_loses_nothing_and_validates_each_submission_once(
    workers: Callable[[], Worker], pool: str
) -> None:
    """solo: the worker dies, its task stays unacknowledged; a new worker resends the pending ones on start.
    prefork: the pool child dies; the parent requeues the task (reject_on_worker_lost) and forks another.
    """
    logs = winning_logs()
    (game_a, (seed_a, log_a)), (game_b, (seed_b, log_b)) = list(logs.items())[:2]
    challenge_a = make_challenge(game=game_a, seed=seed_a, solution=log_a)
    challenge_b = make_challenge(game=game_b, seed=seed_b, solution=log_b)

    def attempts(challenge: Challenge, log: list[str], n: int, name: str) -> list[Attempt]:
        return [
            Attempt.objects.create(player=make_user(f"{name}{i}"), challenge=challenge, ranked=True, moves=log)
            for i in range(n)
        ]

    before, victim = attempts(challenge_a, log_a, 5, "early"), attempts(challenge_a, log_a, 1, "victim")[0]
    during, after = attempts(challenge_b, log_b, 4, "during"), attempts(challenge_a, log_a, 4, "late")
    client = Client(HTTP_HOST="localhost")
    tokens = {a.pk: token_for(a.player) for a in [*before, victim, *during, *after]}  # not under the lock below

    first = workers()
    with conflicting_result(player_id=victim.player_id, challenge=challenge_a):
        ids = [submit(client, attempt, tokens[attempt.pk]) for attempt in [*before, victim]]
        wait_until("the worker blocks inside the victim's validation", worker_blocked_on_result_insert, log=first.log)
        assert Submission.objects.get(pk=ids[-1]).status == Submission.Status.PENDING
        ids += [submit(client, attempt, tokens[attempt.pk]) for attempt in during]  # the burst goes on meanwhile
        first.kill_the_process_validating()
    ids += [submit(client, attempt, tokens[attempt.pk]) for attempt in after]  # and after it died
    if pool == "solo":  # with no worker at all: the killed transaction left nothing
        victim_submission = Submission.objects.get(pk=ids[5])
        assert (victim_submission.status, victim_submission.validations) == (Submission.Status.PENDING, 0)
        assert not Result.objects.filter(submission=victim_submission).exists()
        second = workers()
    else:
        second = first  # the same worker goes on with a new pool child
    wait_until(
        "every submission is validated after the restart",
        lambda: not Submission.objects.filter(pk__in=ids, status=Submission.Status.PENDING).exists(),
        log=second.log,
    )
    rows = list(Submission.objects.filter(pk__in=ids).values_list("status", "validations"))
    assert len(rows) == len(ids) == 14
    assert rows == [(Submission.Status.VALID, 1)] * len(ids)
    assert Result.objects.filter(submission_id__in=ids).count() == len(ids)
    assert sorted(Result.objects.values_list("submission_id", flat=True)) == sorted(ids)  # one each, no more
