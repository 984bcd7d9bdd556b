"""The production entry points as separate processes on this machine: what docker-compose.yml runs.

Used by the stack test (tests/test_stack.py) and by bench/day.py:

- ``web``: ``gunicorn -c config/gunicorn.py config.wsgi:application`` (PROMETHEUS_MULTIPROC_DIR set,
  so /metrics sums the workers), after ``manage.py migrate`` and ``collectstatic`` (into the run's
  own folder, as the Dockerfile does at build time);
- ``worker-validation``: ``celery -A config worker -Q <validation queue>``;
- ``worker-solver``: ``celery -A config worker -Q <solver queue> --concurrency 1``;
- ``worker-winnable``: ``celery -A config worker -Q <winnable queue>`` (the still-winnable light);
- ``beat``: ``celery -A config beat``.

All with ``DJANGO_DEBUG=false`` (HTTPS redirect and secure cookies off: plain HTTP on 127.0.0.1) and
``LOG_FORMAT=json``, on a PostgreSQL database created for the run (dropped at the end) and on the
given Redis database with names unique to the run: queues ``<run>-validation`` / ``-solver`` / ``-winnable``,
cache prefix ``<run>``, boards under the database's own name. ``stop()`` deletes every Redis key the
run made that carries its id, its queues' bindings and unacknowledged entries; nothing is flushed.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PG = "postgres://postgres@127.0.0.1:5432"

# Each process's command after the executable's own path; docker-compose.yml runs the same
# (tests/test_stack.py checks that its services start with these words).
COMMANDS = {
    "web": ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"],
    "worker-validation": ["celery", "-A", "config", "worker", "-Q"],
    "worker-solver": ["celery", "-A", "config", "worker", "-Q"],
    "worker-winnable": ["celery", "-A", "config", "worker", "-Q"],
    "beat": ["celery", "-A", "config", "beat"],
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(statement)


@dataclass
class Http:
    status: int
    body: bytes
    headers: dict[str, str]

    def json(self) -> Any:
        return json.loads(self.body)


def request(
    url: str, *, method: str = "GET", data: Any = None, headers: dict[str, str] | None = None, timeout: float = 30.0
) -> Http:
    body = json.dumps(data).encode() if data is not None else None
    req = urllib.request.Request(url, data=body, method=method, headers=dict(headers or {}))
    if body is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return Http(r.status, r.read(), dict(r.headers.items()))
    except urllib.error.HTTPError as exc:
        return Http(exc.code, exc.read(), dict(exc.headers.items()))


@dataclass
class Stack:
    redis_url: str
    workdir: Path
    web_workers: int = 2
    validation_concurrency: int = 2
    solver_seconds: float = 5.0
    solver_max_seeds: int = 10
    extra_env: dict[str, str] = field(default_factory=dict)
    run: str = field(default_factory=lambda: f"dpstack{uuid.uuid4().hex[:10]}")
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    port: int = 0
    metrics_token: str = field(default_factory=lambda: uuid.uuid4().hex)
    daily_secret: str = field(default_factory=lambda: secrets.token_urlsafe(48))
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(48))

    @property
    def db_name(self) -> str:
        return self.run

    @property
    def validation_queue(self) -> str:
        return f"{self.run}-validation"

    @property
    def solver_queue(self) -> str:
        return f"{self.run}-solver"

    @property
    def winnable_queue(self) -> str:
        return f"{self.run}-winnable"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "CELERY_", "PROMETHEUS_"))}
        return {
            **keep,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DJANGO_DEBUG": "false",
            "DJANGO_SECRET_KEY": self.secret_key,  # production refuses a weak one
            "DAILY_SECRET": self.daily_secret,  # production refuses a weak one
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DJANGO_SECURE_SSL_REDIRECT": "false",  # plain HTTP on 127.0.0.1
            "DJANGO_SECURE_COOKIES": "false",
            "DATABASE_URL": f"{PG}/{self.db_name}",
            "REDIS_URL": self.redis_url,
            "CACHE_KEY_PREFIX": self.run,
            "CELERY_QUEUE": self.validation_queue,
            "CELERY_SOLVER_QUEUE": self.solver_queue,
            "CELERY_WINNABLE_QUEUE": self.winnable_queue,
            "SOLVER_SECONDS": str(self.solver_seconds),
            "SOLVER_MAX_SEEDS": str(self.solver_max_seeds),
            "PREPARE_AHEAD_DAYS": "0",  # beat's start prepares today's games only: a run lasts minutes
            "METRICS_TOKEN": self.metrics_token,
            "PROMETHEUS_MULTIPROC_DIR": str(self.workdir / "prometheus"),
            "LOG_FORMAT": "json",
            "DJANGO_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
            "DJANGO_STATIC_ROOT": str(self.workdir / "static"),
            **self.extra_env,
        }

    def log(self, name: str) -> Path:
        return self.workdir / f"{name}.log"

    # --- Lifecycle -------------------------------------------------------------------------------

    def create_database(self) -> None:
        admin_sql(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")
        admin_sql(f"CREATE DATABASE {self.db_name}")
        self.manage("migrate", "--no-input", "-v", "0", timeout=300)
        self.manage("collectstatic", "--no-input", "-v", "0", timeout=300)  # as the Dockerfile does at build

    def manage(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done

    def _spawn(self, name: str, args: list[str]) -> None:
        exe = str(Path(sys.executable).parent / args[0])
        out = self.log(name).open("ab")
        self.procs[name] = subprocess.Popen(
            [exe, *args[1:]], cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        out.close()

    def start(self, *, timeout: float = 60.0) -> None:
        (self.workdir / "prometheus").mkdir(parents=True, exist_ok=True)  # gunicorn empties it at start
        self.port = free_port()
        host = socket.gethostname()
        self._spawn(
            "web",
            [
                *COMMANDS["web"],
                "--bind",
                f"127.0.0.1:{self.port}",
                "--workers",
                str(self.web_workers),
                "--access-logfile",
                "-",
            ],
        )
        self._spawn(
            "worker-validation",
            [
                *COMMANDS["worker-validation"],
                self.validation_queue,
                "--hostname",
                f"validation-{self.run}@{host}",
                "--loglevel=INFO",
                f"--concurrency={self.validation_concurrency}",
            ],
        )
        self._spawn(
            "worker-solver",
            [
                *COMMANDS["worker-solver"],
                self.solver_queue,
                "--hostname",
                f"solver-{self.run}@{host}",
                "--loglevel=INFO",
                "--concurrency=1",
            ],
        )
        self._spawn(
            "worker-winnable",
            [
                *COMMANDS["worker-winnable"],
                self.winnable_queue,
                "--hostname",
                f"winnable-{self.run}@{host}",
                "--loglevel=INFO",
                "--concurrency=1",
            ],
        )
        self._spawn(
            "beat", [*COMMANDS["beat"], "--loglevel=INFO", f"--schedule={self.workdir / 'celerybeat-schedule'}"]
        )
        deadline = time.monotonic() + timeout
        waiting = {"web", "worker-validation", "worker-solver", "worker-winnable", "beat"}
        while waiting:
            for name in sorted(waiting):
                proc = self.procs[name]
                if proc.poll() is not None:
                    raise RuntimeError(f"{name} exited ({proc.returncode}):\n{self.tail(name)}")
                if self._ready(name):
                    waiting.discard(name)
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"not ready within {timeout:g} s: {sorted(waiting)}\n"
                    + "\n".join(self.tail(n) for n in sorted(waiting))
                )
            time.sleep(0.2)

    def _ready(self, name: str) -> bool:
        if name == "web":
            with contextlib.suppress(OSError):
                return request(f"{self.url}/healthz", timeout=2).status == 200
            return False
        text = self.log(name).read_text(errors="replace")
        return " ready." in text if name.startswith("worker") else "beat: Starting" in text

    def tail(self, name: str, chars: int = 3000) -> str:
        path = self.log(name)
        return f"--- {name} ---\n" + (path.read_text(errors="replace")[-chars:] if path.exists() else "(no log)")

    def send_task(self, name: str, **kwargs: Any) -> None:
        """Send a task as the web process would (the stack's settings and queues)."""
        code = (
            "import json, sys, django; django.setup(); from config.celery import app; "
            "app.send_task(sys.argv[1], kwargs=json.loads(sys.argv[2]))"
        )
        subprocess.run(
            [sys.executable, "-c", code, name, json.dumps(kwargs)],
            cwd=ROOT,
            env=self.env,
            check=True,
            timeout=60,
            capture_output=True,
        )

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(f"{PG}/{self.db_name}") as conn:
            return list(conn.execute(query, params).fetchall())

    def stop(self, *, drop: bool = True) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs.values():
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        self.forget_redis()
        if drop:
            with contextlib.suppress(Exception):
                admin_sql(f"DROP DATABASE IF EXISTS {self.db_name} WITH (FORCE)")
        shutil.rmtree(self.workdir / "prometheus", ignore_errors=True)

    def forget_redis(self) -> None:
        """Every key of this run (its id is in each name), its bindings and unacknowledged entries."""
        import redis

        client = redis.Redis.from_url(self.redis_url, socket_timeout=5)
        run = self.run.encode()
        try:
            for key in client.scan_iter(match=f"*{self.run}*", count=1000):
                client.delete(key)
            for key in client.scan_iter(match="_kombu.binding*"):
                if client.type(key) == b"set":
                    stale = [m for m in client.smembers(key) if run in m]
                    if stale:
                        client.srem(key, *stale)
            for tag, raw in client.hgetall("unacked").items():
                with contextlib.suppress(ValueError, IndexError, TypeError):
                    if run.decode() in str(json.loads(raw)[2]):
                        client.hdel("unacked", tag)
                        client.zrem("unacked_index", tag)
        finally:
            client.close()
