"""API benchmark: leaderboard reads against gunicorn + PostgreSQL + Redis, and validations by one worker.

    .venv/bin/python bench/api.py [--seconds 10] [--players 2000] [--connections 8] [--submissions 300]

Self-contained, bounded in time, and it only talks to 127.0.0.1:

1. Creates the database ``dailypatience_bench`` (dropped first if it exists), migrates it,
   seeds today's klondike challenge (seed 2, ready) with ``--players`` ranked valid results, and
   builds its Redis board once. Everything Redis-side (board, cache, Celery queue) lives in a
   Redis database of its own (``--redis-db``, default 11); the keys the run created there are
   deleted at the end, and nothing is purged or flushed in any other Redis database.
2. Starts ``gunicorn config.wsgi -w 2`` (production settings: DJANGO_DEBUG=false, no throttling)
   and measures, interleaved round by round so that machine noise hits both,
   ``GET /api/v1/health`` (a trivial DRF JSON endpoint of the same server) and
   ``GET /api/v1/leaderboards/<today>/klondike?limit=50`` (the public top 50) with the same
   number of concurrent keep-alive client connections. Load generator: ``wrk`` if it is on the
   PATH (``--tool auto``), else a Python asyncio client that checks every response (status 200,
   JSON body). Prints requests/s, p50, p99 and errors for each, the ratio board/trivial and the
   target: board >= 70% of the trivial rate and board p99 < 50 ms.
3. Creates ``--submissions`` pending submissions (new players; each log a legal random playout
   of 100-300 moves of the challenge's deal, bench/corpus.playout), starts one
   ``celery -A config worker --pool solo``, enqueues games.validate_submission for each and
   times until the database shows them all validated: submissions/s of one worker. Then the
   same number again through ``games.services.submission_validate`` in this process (no broker).
4. Always stops gunicorn and the worker; drops the database unless ``--keep``.

Figures depend on the machine and on whatever else runs on it: compare runs on one machine only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from redis import Redis

    from games.models import Challenge

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DB_NAME = "dailypatience_bench"
PG = "postgres://postgres@127.0.0.1:5432"
GAME, SEED = "klondike", 2
QUEUE = "dp-bench"
TARGET_RATIO, TARGET_P99_MS = 0.70, 50.0

BENCH_ENV = {
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(48),  # production refuses a weak one
    "DAILY_SECRET": secrets.token_urlsafe(48),  # production refuses a weak one
    "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
    "DJANGO_SECURE_SSL_REDIRECT": "false",  # plain HTTP on 127.0.0.1
    "API_THROTTLE": "false",
    "DJANGO_LOG_LEVEL": "WARNING",
    "CELERY_QUEUE": QUEUE,
    "CELERY_SOLVER_QUEUE": QUEUE + "-solver",  # the bench's worker takes no other run's solver jobs
}


def log(message: str) -> None:
    print(message, flush=True)


# --- Database and Redis ------------------------------------------------------------------------


def admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(statement)


def create_database(env: dict[str, str]) -> None:
    admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    admin_sql(f"CREATE DATABASE {DB_NAME}")
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300
    )
    log(f"database {DB_NAME}: created and migrated in {time.perf_counter() - started:.1f} s")


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def seed_board(players: int, rng: random.Random) -> Challenge:
    """Today's challenge and ``players`` ranked valid results on it; the Redis board built once."""
    from games import days
    from games.models import Attempt, Challenge, Result, Submission
    from leaderboard.services import leaderboard_rebuild

    started = time.perf_counter()
    today = days.today()
    challenge = Challenge.objects.create(date=today, game=GAME, seed=SEED, status=Challenge.Status.READY, difficulty=2)
    users = make_users("player", players)
    base = dt.datetime.combine(today, dt.time(0), tzinfo=dt.UTC)
    finished = [
        base + dt.timedelta(seconds=rng.randint(60, 20 * 3600), microseconds=rng.randint(0, 999_999)) for _ in users
    ]
    attempts = Attempt.objects.bulk_create(
        Attempt(player=u, challenge=challenge, ranked=True, assisted=rng.random() < 0.1, finished_at=f)
        for u, f in zip(users, finished, strict=True)
    )
    submissions = Submission.objects.bulk_create(
        Submission(attempt=a, moves=[], status=Submission.Status.VALID, validated_at=a.finished_at, validations=1)
        for a in attempts
    )
    results = []
    for attempt, submission, finished_at in zip(attempts, submissions, finished, strict=True):
        won = rng.random() < 0.35
        moves = rng.randint(90, 400)
        results.append(
            Result(
                submission=submission,
                player=attempt.player,
                challenge=challenge,
                ranked=True,
                assisted=attempt.assisted,
                won=won,
                score=rng.randint(400, 760) if won else rng.randint(0, 399),
                moves=moves,
                foundation_cards=52 if won else rng.randint(0, 40),
                play_time_ms=rng.randint(60_000, 1_800_000),
                finished_at=finished_at,
                disqualified=rng.random() < 0.01,
            )
        )
    Result.objects.bulk_create(results, batch_size=2000)
    if not leaderboard_rebuild(challenge_id=challenge.pk):
        raise SystemExit("could not build the Redis board")
    log(
        f"seeded {today} {GAME} (seed {SEED}): {players} players with ranked results, Redis board built "
        f"in {time.perf_counter() - started:.1f} s"
    )
    return challenge


def make_users(prefix: str, count: int) -> list[User]:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.hashers import make_password

    user_model = get_user_model()
    unusable = make_password(None)  # one "!..." value: none of these accounts can log in
    return user_model.objects.bulk_create(
        (user_model(username=f"{prefix}{i:06d}", password=unusable) for i in range(count)), batch_size=2000
    )


def redis_client(url: str) -> Redis:
    import redis

    return redis.Redis.from_url(url)


# --- Processes --------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop(proc: subprocess.Popen[bytes] | None, name: str) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        log(f"{name} did not stop in 20 s: killing it")
        proc.kill()
        proc.wait()


def http_get(url: str, timeout: float = 5.0) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), exc.headers.get("Content-Type", "")


def wait_http(url: str, proc: subprocess.Popen[bytes], log_path: Path, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"gunicorn exited ({proc.returncode}):\n{log_path.read_text()[-3000:]}")
        with contextlib.suppress(OSError):
            if http_get(url, timeout=2)[0] == 200:
                return
        time.sleep(0.2)
    raise SystemExit(f"gunicorn did not answer {url} in {timeout:.0f} s:\n{log_path.read_text()[-3000:]}")


# --- Load generation --------------------------------------------------------------------------


def cpu_seconds(master_pid: int) -> float:
    """User + system CPU time of gunicorn's workers (the master's children), from /proc."""
    try:
        children = Path(f"/proc/{master_pid}/task/{master_pid}/children").read_text().split()
    except OSError:
        return 0.0
    total = 0
    for pid in children:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


@dataclass
class Run:
    """One measured stretch of one endpoint."""

    requests: int = 0
    errors: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # gunicorn workers' CPU time during the run
    latencies_ms: list[float] = field(default_factory=list)  # every request (python tool)
    p50_ms: float = 0.0  # as reported (wrk)
    p99_ms: float = 0.0


def check_body(status: int, body: bytes) -> bool:
    if status != 200:
        return False
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


class Client:
    """What one client connection sends: a GET, or each player's own requests (``request(i)``), with a
    hook told of every answer (``answered(i, status, body)``, True when it is the expected one)."""

    def __init__(self, path: str, headers: list[str] | None = None) -> None:
        self.path, self.headers = path, headers or []

    def request(self, i: int, host: str, port: int) -> bytes:
        extra = "".join(f"{h}\r\n" for h in self.headers)
        return f"GET {self.path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n{extra}\r\n".encode()

    def answered(self, i: int, status: int, body: bytes) -> bool:
        return check_body(status, body)


async def _python_load(host: str, port: int, client: Client | str, connections: int, seconds: float) -> Run:
    run = Run()
    if isinstance(client, str):
        client = Client(client)
    deadline = time.perf_counter() + seconds

    async def one_connection(i: int) -> None:
        reader = writer = None
        while time.perf_counter() < deadline:
            try:
                if reader is None or writer is None:
                    reader, writer = await asyncio.open_connection(host, port)
                request = client.request(i, host, port)
                t0 = time.perf_counter()
                writer.write(request)
                status_line = await reader.readline()
                status = int(status_line.split()[1])
                length, close = 0, False
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b""):
                        break
                    name, _, value = line.decode("latin-1").partition(":")
                    name = name.strip().lower()
                    if name == "content-length":
                        length = int(value)
                    elif name == "connection" and value.strip().lower() == "close":
                        close = True
                body = await reader.readexactly(length)
                run.latencies_ms.append((time.perf_counter() - t0) * 1000)
                run.requests += 1
                if not client.answered(i, status, body):
                    run.errors += 1
                if close:  # gunicorn's sync workers answer one request per connection
                    writer.close()
                    reader = writer = None
            except (OSError, ValueError, IndexError, asyncio.IncompleteReadError):
                run.errors += 1
                if writer is not None:
                    writer.close()
                reader = writer = None
        if writer is not None:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(one_connection(i) for i in range(connections)))
    run.seconds = time.perf_counter() - started
    return run


def python_load(port: int, path: Client | str, connections: int, seconds: float) -> Run:
    return asyncio.run(_python_load("127.0.0.1", port, path, connections, seconds))


class MovesClient(Client):
    """Player i plays its own line of real moves (a legal playout of the deal), one move a batch."""

    def __init__(self, players: list[tuple[str, int, list[str]]]) -> None:
        super().__init__("")
        self.players = players  # (token, attempt id, line)
        self.sent = [0] * len(players)

    def request(self, i: int, host: str, port: int) -> bytes:
        token, attempt, line = self.players[i]
        n = self.sent[i] % len(line)  # (a line long enough never wraps within a run)
        body = json.dumps({"from": self.sent[i], "moves": [line[n]]}).encode()
        head = (
            f"POST /api/v1/attempts/{attempt}/moves HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Accept: application/json\r\nContent-Type: application/json\r\nAuthorization: Token {token}\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        )
        return head.encode() + body

    def answered(self, i: int, status: int, body: bytes) -> bool:
        if status != 200:
            return False
        self.sent[i] = json.loads(body)["log_length"]
        return True


class TokensClient(Client):
    """A logged-in GET: connection i is player i (its own token)."""

    def __init__(self, path: str, tokens: list[str]) -> None:
        super().__init__(path)
        self.tokens = tokens

    def request(self, i: int, host: str, port: int) -> bytes:
        self.headers = [f"Authorization: Token {self.tokens[i % len(self.tokens)]}"]
        return super().request(i, host, port)


WRK_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}


def _wrk_ms(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()  # type: ignore[union-attr]
    return float(number) * WRK_UNITS[unit]


def wrk_load(port: int, path: str, connections: int, seconds: float) -> Run:
    threads = max(1, min(2, connections))
    cmd = [
        "wrk",
        "-t",
        str(threads),
        "-c",
        str(connections),
        "-d",
        f"{max(1, round(seconds))}s",
        "--latency",
        "-H",
        "Accept: application/json",
        f"http://127.0.0.1:{port}{path}",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 30, check=True).stdout
    run = Run()
    m = re.search(r"(\d+) requests in ([\d.]+)(us|ms|s|m)", out)
    if not m:
        raise SystemExit(f"could not read wrk's output:\n{out}")
    run.requests = int(m.group(1))
    run.seconds = _wrk_ms(m.group(2) + m.group(3)) / 1000
    run.p50_ms = _wrk_ms(re.search(r"^\s+50%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    run.p99_ms = _wrk_ms(re.search(r"^\s+99%\s+(\S+)", out, re.M).group(1))  # type: ignore[union-attr]
    if m := re.search(r"Non-2xx or 3xx responses: (\d+)", out):
        run.errors += int(m.group(1))
    if m := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out):
        run.errors += sum(map(int, m.groups()))
    return run


@dataclass
class Summary:
    rate: float
    p50_ms: float
    p99_ms: float
    requests: int
    errors: int
    cpu_ms: float  # gunicorn workers' CPU time per request


def summarise(runs: list[Run]) -> Summary:
    requests = sum(r.requests for r in runs)
    seconds = sum(r.seconds for r in runs)
    errors = sum(r.errors for r in runs)
    latencies = [x for r in runs for x in r.latencies_ms]
    if latencies:  # python tool: exact percentiles over every request
        q = statistics.quantiles(latencies, n=100, method="inclusive")
        p50, p99 = q[49], q[98]
    else:  # wrk: request-weighted mean of the rounds' p50, worst round's p99
        p50 = sum(r.p50_ms * r.requests for r in runs) / max(1, requests)
        p99 = max(r.p99_ms for r in runs)
    cpu_ms = sum(r.cpu_seconds for r in runs) * 1000 / max(1, requests)
    return Summary(requests / seconds if seconds else 0.0, p50, p99, requests, errors, cpu_ms)


def verify(port: int, path: str, check: object = None) -> dict[str, Any]:
    status, body, content_type = http_get(f"http://127.0.0.1:{port}{path}")
    if status != 200 or "application/json" not in content_type:
        raise SystemExit(f"GET {path}: {status} {content_type}\n{body[:500]!r}")
    data: dict[str, Any] = json.loads(body)
    if callable(check):
        check(data)
    return data


def measure_http(
    port: int, board_path: str, args: argparse.Namespace, players: int, master_pid: int, extra: dict[str, Client]
) -> dict[str, Summary]:
    tool = args.tool
    if tool == "auto":
        tool = "wrk" if shutil.which("wrk") else "python"
    wrk_or_python = wrk_load if tool == "wrk" else python_load

    def load(port: int, path: str | Client, connections: int, seconds: float) -> Run:
        # Logged-in reads and moves need each connection's own token and state: the Python client.
        if isinstance(path, Client):
            return python_load(
                port, path, len(getattr(path, "players", None) or getattr(path, "tokens", [])) or connections, seconds
            )
        return wrk_or_python(port, path, connections, seconds)

    def board_ok(data: dict[str, Any]) -> None:
        entries = data.get("entries")
        if not isinstance(entries, list) or len(entries) != min(50, data.get("total", 0)) or data["total"] < 1:
            raise SystemExit(f"unexpected board: {str(data)[:300]}")
        if [e["rank"] for e in entries] != list(range(1, len(entries) + 1)):
            raise SystemExit("board ranks are not 1..n")

    verify(port, "/api/v1/health", lambda d: d == {"status": "ok"} or sys.exit(f"health said {d}"))
    board = verify(port, board_path, board_ok)
    log(
        f"\nHTTP: gunicorn -w 2 (sync workers) on 127.0.0.1:{port}; {args.connections} connections; tool: {tool}; "
        f"board of {board['total']} ranked entries ({players} seeded)"
    )

    rounds = max(1, args.rounds)
    per_run = max(1.0, args.seconds / rounds)
    warm = min(2.0, per_run)
    cases: list[tuple[str, str | Client]] = [("health", "/api/v1/health"), ("board", board_path), *extra.items()]
    for _, path in cases[:2]:  # warm both workers' imports, connections and caches
        load(port, path, args.connections, warm)
    runs: dict[str, list[Run]] = {name: [] for name, _ in cases}
    for i in range(rounds):
        for name, path in cases:
            cpu_before = cpu_seconds(master_pid)
            run = load(port, path, args.connections, per_run)
            run.cpu_seconds = cpu_seconds(master_pid) - cpu_before
            runs[name].append(run)
            log(
                f"  round {i + 1}/{rounds} {name:>8}: {run.requests / run.seconds:8.0f} req/s"
                f"  ({run.requests} requests, {run.errors} errors,"
                f" server CPU {run.cpu_seconds * 1000 / max(1, run.requests):.2f} ms a request)"
            )
    verify(port, board_path, board_ok)  # still the right answer after the load
    return {name: summarise(r) for name, r in runs.items()}


def make_players_for_load(
    challenge: Challenge, count: int, rng: random.Random
) -> tuple[list[tuple[str, int, list[str]]], list[str]]:
    """``count`` new players with tokens and an open ranked attempt each, a long legal line to play;
    and tokens of ``count`` of the seeded players (for ?around=me)."""
    from bench.corpus import playout
    from games.auth import tokens_create
    from games.models import Attempt
    from games.selectors import counted_results

    users = make_users("mover", count)
    attempts = Attempt.objects.bulk_create(Attempt(player=u, challenge=challenge, ranked=True) for u in users)
    tokens = tokens_create(user_ids=[u.pk for u in users])
    lines = [playout(GAME, SEED, 2500, rng) for _ in users]
    movers = [(t, a.pk, line) for t, a, line in zip(tokens, attempts, lines, strict=True)]
    ranked = list(counted_results().filter(challenge=challenge).values_list("player_id", flat=True)[:count])
    return movers, tokens_create(user_ids=ranked)


# --- Submissions ------------------------------------------------------------------------------


def make_pending(challenge: Challenge, prefix: str, count: int, rng: random.Random) -> list[int]:
    """``count`` new players, each with a finished ranked attempt and a pending submission of a playout."""
    from bench.corpus import playout
    from games.models import Attempt, Submission

    users = make_users(prefix, count)
    now = dt.datetime.now(dt.UTC)
    logs = [playout(GAME, SEED, rng.randint(100, 300), rng) for _ in users]
    attempts = Attempt.objects.bulk_create(
        Attempt(player=u, challenge=challenge, ranked=True, moves=moves, finished_at=now)
        for u, moves in zip(users, logs, strict=True)
    )
    subs = Submission.objects.bulk_create(Submission(attempt=a, moves=a.moves) for a in attempts)
    return [s.pk for s in subs]


def count_pending(ids: list[int]) -> int:
    from games.models import Submission

    return Submission.objects.filter(pk__in=ids, status=Submission.Status.PENDING).count()


def count_invalid(ids: list[int]) -> int:
    from games.models import Submission

    return Submission.objects.filter(pk__in=ids, status=Submission.Status.INVALID).count()


def measure_worker(
    challenge: Challenge,
    args: argparse.Namespace,
    env: dict[str, str],
    tmp: Path,
    procs: dict[str, subprocess.Popen[bytes]],
) -> tuple[float, float]:
    from config.celery import app
    from games.models import Submission
    from games.tasks import validate_submission

    rng = random.Random(7)
    n = args.submissions
    ids = make_pending(challenge, "worker", n, rng)
    total_moves = sum(len(m) for m in Submission.objects.filter(pk__in=ids).values_list("moves", flat=True))
    log(f"\nsubmissions: {n} pending, {total_moves} moves in all ({total_moves / n:.0f} a log)")

    with app.connection_for_write() as conn:
        purged = app.control.purge(connection=conn)  # the bench queue, in the bench's Redis database only
    if purged:
        log(f"  purged {purged} stale messages from the bench queue")
    worker_log = tmp / "worker.log"
    hostname = f"bench{os.getpid()}@127.0.0.1"
    with worker_log.open("w") as out:
        procs["worker"] = subprocess.Popen(
            [
                str(ROOT / ".venv/bin/celery"),
                "-A",
                "config",
                "worker",
                "--pool",
                "solo",
                "-n",
                hostname,
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
                "--loglevel",
                "WARNING",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 60
    while not app.control.ping(destination=[hostname], timeout=0.5):
        if procs["worker"].poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the worker did not start:\n{worker_log.read_text()[-3000:]}")

    started = time.perf_counter()
    for sid in ids:
        validate_submission.delay(sid)
    enqueued = time.perf_counter() - started
    deadline = time.monotonic() + max(120.0, n * 0.5)
    while (left := count_pending(ids)) and time.monotonic() < deadline:
        if procs["worker"].poll() is not None:
            raise SystemExit(f"the worker died:\n{worker_log.read_text()[-3000:]}")
        time.sleep(0.02)
    wall = time.perf_counter() - started
    stop(procs.pop("worker"), "worker")
    if left:
        raise SystemExit(f"{left} submissions still pending after {wall:.0f} s:\n{worker_log.read_text()[-3000:]}")
    if bad := count_invalid(ids):
        raise SystemExit(f"{bad} playouts were judged invalid: the corpus and the engine disagree")
    worker_rate = n / wall
    log(
        f"  one worker (celery --pool solo): {worker_rate:7.1f} submissions/s  {1000 / worker_rate:6.1f} ms each "
        f"({n} in {wall:.2f} s, enqueueing took {enqueued * 1000:.0f} ms of it)"
    )

    from games import services

    ids = make_pending(challenge, "inproc", n, rng)
    started = time.perf_counter()
    for sid in ids:
        services.submission_validate(submission_id=sid)
    wall = time.perf_counter() - started
    if count_pending(ids) or count_invalid(ids):
        raise SystemExit("in-process validation left pending or invalid submissions")
    inproc_rate = n / wall
    log(
        f"  in process (services.submission_validate, no broker): {inproc_rate:7.1f} submissions/s  "
        f"{1000 / inproc_rate:6.1f} ms each"
    )
    return worker_rate, inproc_rate


# --- Main -------------------------------------------------------------------------------------


@contextlib.contextmanager
def redis_cleanup(url: str) -> Iterator[None]:
    """Delete, at the end, every key this run created in the bench's Redis database."""
    client = redis_client(url)
    before = set(client.scan_iter(count=1000))
    if before:
        log(f"note: Redis {url} already holds {len(before)} keys; they are left alone")
    try:
        yield
    finally:
        created = [k for k in client.scan_iter(count=1000) if k not in before]
        for start in range(0, len(created), 1000):
            client.delete(*created[start : start + 1000])
        log(f"Redis: deleted the {len(created)} keys this run created in {url}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per endpoint (default 10)")
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds the seconds are split into")
    parser.add_argument("--players", type=int, default=2000, help="ranked results on the board (default 2000)")
    parser.add_argument("--connections", type=int, default=8, help="concurrent client connections (default 8)")
    parser.add_argument("--submissions", type=int, default=300, help="submissions for the worker (0: skip)")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--movers", type=int, default=50, help="players sending moves batches at once (default 50)")
    parser.add_argument("--tool", choices=["auto", "wrk", "python"], default="auto", help="load generator")
    parser.add_argument("--redis-db", type=int, default=11, help="Redis database used by the run (default 11)")
    parser.add_argument("--keep", action="store_true", help=f"keep the database {DB_NAME} afterwards")
    args = parser.parse_args()

    redis_url = f"redis://127.0.0.1:6379/{args.redis_db}"
    env = {**os.environ, **BENCH_ENV, "DATABASE_URL": f"{PG}/{DB_NAME}", "REDIS_URL": redis_url}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    procs: dict[str, subprocess.Popen[bytes]] = {}
    rng = random.Random(20261130)
    tmp = Path(tempfile.mkdtemp(prefix="bench-api-"))
    log(
        f"bench/api.py: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} "
        "(other processes on this machine make the figures noisy)"
    )
    created = False
    try:
        with redis_cleanup(redis_url):
            create_database(env)
            created = True
            setup_django(env)
            challenge = seed_board(args.players, rng)
            from games import days

            board_path = f"/api/v1/leaderboards/{days.today().isoformat()}/{GAME}?limit=50"
            port = free_port()
            gunicorn_log = tmp / "gunicorn.log"
            with gunicorn_log.open("w") as out:
                procs["gunicorn"] = subprocess.Popen(
                    [
                        str(ROOT / ".venv/bin/gunicorn"),
                        "config.wsgi",
                        "-w",
                        str(args.workers),
                        "-b",
                        f"127.0.0.1:{port}",
                    ],
                    cwd=ROOT,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                )
            wait_http(f"http://127.0.0.1:{port}/api/v1/health", procs["gunicorn"], gunicorn_log)
            movers, readers = make_players_for_load(challenge, args.movers, rng)
            today = days.today().isoformat()
            extra: dict[str, Client] = {
                # The same trivial endpoint through the Python client: the fair yardstick for the cases
                # below, which need it (per-connection tokens and state) and whose client shares the CPU.
                "health-py": Client("/api/v1/health"),
                "around": TokensClient(f"/api/v1/leaderboards/{today}/{GAME}?around=me", readers[: args.connections]),
                "page": Client(f"/api/v1/leaderboards/{today}/{GAME}?limit=50&offset=100"),
                "moves": MovesClient(movers),
            }
            results = measure_http(port, board_path, args, args.players, procs["gunicorn"].pid, extra)
            stop(procs.pop("gunicorn"), "gunicorn")

            log("")
            names = {
                "health": ("health (trivial JSON)", None),
                "health-py": ("health, Python client", None),
                "board": ("leaderboard top 50", TARGET_RATIO),
                "around": ("?around=me (logged in)", 0.5),
                "page": ("uncached board page", 0.5),
                "moves": (f"moves, {len(movers)} players", TARGET_RATIO),
            }
            for key, (name, target) in names.items():
                s = results[key]
                base = results["health" if key == "board" else "health-py"]
                ratio = s.rate / base.rate if base.rate else 0.0
                verdict = ""
                if target is not None:
                    met = ratio >= target and s.p99_ms < TARGET_P99_MS and s.errors == 0
                    verdict = f"  ratio {ratio:4.0%} (target >= {target:.0%}, p99 < {TARGET_P99_MS:.0f} ms): " + (
                        "met" if met else "NOT met"
                    )
                log(
                    f"{name:>24}: {s.rate:8.0f} req/s  p50 {s.p50_ms:6.2f} ms  p99 {s.p99_ms:6.2f} ms  "
                    f"errors {s.errors}/{s.requests}  CPU {s.cpu_ms:.2f} ms{verdict}"
                )

            if args.submissions > 0:
                measure_worker(challenge, args, env, tmp, procs)
    finally:
        for name in list(procs):
            stop(procs.pop(name), name)
        if created and not args.keep:
            from django.db import connections

            connections.close_all()
            admin_sql(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
            log(f"database {DB_NAME}: dropped")
        elif created:
            log(f"database {DB_NAME}: kept (--keep)")
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
