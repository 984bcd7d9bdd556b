"""The production entry points as separate processes on this machine: what docker-compose.yml runs.

Used by the stack tests (tests/test_stack.py, tests/test_front_door.py), by bench/day.py, and on its
own to bring the whole stack up on this machine (README "The stack on one machine")::

    .venv/bin/python bench/stack.py up --port 8000

- ``proxy``: nginx (Debian's, ``apt-get install nginx``) running config/nginx/nginx.conf.template,
  the very file docker-compose.yml's ``proxy`` runs, rendered with this run's port, gunicorn's
  address, the static folder and the run's own folder for the pid, temporary files and logs
  (:func:`render_nginx_conf`). Clients talk to it (``Stack.url``); it serves ``/static/`` itself and
  passes the rest to gunicorn;
- ``web``: ``gunicorn -c config/gunicorn.py config.wsgi:application`` (PROMETHEUS_MULTIPROC_DIR set,
  so /metrics sums the workers), after ``manage.py migrate`` and ``collectstatic`` (into the run's
  own folder, as the Dockerfile does at build time);
- ``worker-validation``: ``celery -A config worker -Q <validation queue>``;
- ``worker-solver``: ``celery -A config worker -Q <solver queue> --concurrency 1``;
- ``worker-winnable``: ``celery -A config worker -Q <winnable queue>`` (the still-winnable light);
- ``worker-prepare``: ``celery -A config worker -Q <prepare queue> --concurrency 1`` (the coming days);
- ``beat``: ``celery -A config beat``.

All with ``DJANGO_DEBUG=false`` (HTTPS redirect and secure cookies off: plain HTTP on 127.0.0.1),
``DJANGO_NUM_PROXIES=1`` (the proxy in front) and ``LOG_FORMAT=json``, on a PostgreSQL database
created for the run (dropped at the end) and on the given Redis database with names unique to the
run: queues ``<run>-validation`` / ``-solver`` / ``-winnable`` / ``-prepare``, cache prefix ``<run>``,
boards under the database's own name. ``stop()`` deletes every Redis key the run made that carries its id, its
queues' bindings and unacknowledged entries; nothing is flushed.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import http.client
import itertools
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PG = "postgres://postgres@127.0.0.1:5432"
NGINX_TEMPLATE = ROOT / "config" / "nginx" / "nginx.conf.template"

# Each process's command after the executable's own path; docker-compose.yml runs the same
# (tests/test_stack.py checks that its services start with these words).
COMMANDS = {
    "web": ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"],
    "worker-validation": ["celery", "-A", "config", "worker", "-Q"],
    "worker-solver": ["celery", "-A", "config", "worker", "-Q"],
    "worker-winnable": ["celery", "-A", "config", "worker", "-Q"],
    "worker-prepare": ["celery", "-A", "config", "worker", "-Q"],
    "beat": ["celery", "-A", "config", "beat"],
}


def nginx_binary() -> str | None:
    """The nginx to run: ``$NGINX`` if set (its path; empty: none), else the one on the PATH or Debian's
    (``/usr/sbin``, often not on a user's PATH); None where there is none."""
    chosen = os.environ.get("NGINX")
    if chosen is not None:
        return chosen if chosen and os.access(chosen, os.X_OK) else None
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/usr/local/sbin")


def render_nginx_conf(values: dict[str, str]) -> str:
    """config/nginx/nginx.conf.template with its ``${DP_...}`` names filled in, as the official image's
    envsubst step does (docker-compose.yml: ``NGINX_ENVSUBST_FILTER=DP_``)."""
    text = NGINX_TEMPLATE.read_text()
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    left = sorted(set(re.findall(r"\$\{(DP_\w*)\}", text)))
    if left:
        raise ValueError(f"no value for {left} in {NGINX_TEMPLATE}")
    return text


def throwaway_tls(folder: Path) -> dict[str, str]:
    """A self-signed certificate and its key for localhost, made now in ``folder`` (openssl; a day's
    validity), as the template's ``DP_TLS_CERT`` and ``DP_TLS_KEY``: the proxy's TLS settings are read
    on every run, and no key is ever kept in the repository."""
    cert, key = folder / "tls-cert.pem", folder / "tls-key.pem"
    if not (cert.exists() and key.exists()):
        command = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1"
        names = "subjectAltName=DNS:localhost,IP:127.0.0.1"
        args = [*command.split(), "-subj", "/CN=localhost", "-addext", names, "-keyout", str(key), "-out", str(cert)]
        subprocess.run(args, check=True, capture_output=True, timeout=60)
    return {"DP_TLS_CERT": str(cert), "DP_TLS_KEY": str(key)}


_addresses = itertools.count()
_addresses_lock = threading.Lock()


def fresh_source_address() -> str:
    """A loopback address not handed out before in this process (127.1.0.1, 127.1.0.2, ...), to connect
    from: load generators spread their requests over many, as many players would, so that the proxy's
    per-address limits (config/nginx/nginx.conf.template) do not take them for one flooding client.
    Linux answers every 127.0.0.0/8 address on the loopback interface."""
    with _addresses_lock:
        n = next(_addresses) % (250 * 250 * 250)
    return f"127.{1 + n // 62500}.{n // 250 % 250}.{1 + n % 250}"


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
    url: str,
    *,
    method: str = "GET",
    data: Any = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
    source: str | None = None,
) -> Http:
    """One request on a new connection (from the loopback address ``source``, if given)."""
    body = json.dumps(data).encode() if data is not None else None
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(
        parts.hostname or "127.0.0.1",
        parts.port or 80,
        timeout=timeout,
        source_address=(source, 0) if source else None,
    )
    sent = dict(headers or {})
    if body is not None:
        sent.setdefault("Content-Type", "application/json")
    try:
        conn.request(method, parts.path + (f"?{parts.query}" if parts.query else ""), body=body, headers=sent)
        response = conn.getresponse()
        return Http(response.status, response.read(), dict(response.getheaders()))
    finally:
        conn.close()


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
    port: int = 0  # the proxy's: where clients connect (0: a free one, chosen at start)
    web_port: int = 0  # gunicorn's, on 127.0.0.1: only the proxy (and benchmarks) talk to it
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
    def prepare_queue(self) -> str:
        return f"{self.run}-prepare"

    @property
    def url(self) -> str:
        """The site, through the proxy."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def web_url(self) -> str:
        """gunicorn itself, behind the proxy's back (benchmarks of the web process alone)."""
        return f"http://127.0.0.1:{self.web_port}"

    @property
    def static_root(self) -> Path:
        return self.workdir / "static"

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
            "DJANGO_NUM_PROXIES": "1",  # the proxy sets X-Forwarded-For to the client's address
            "DATABASE_URL": f"{PG}/{self.db_name}",
            "REDIS_URL": self.redis_url,
            "CACHE_KEY_PREFIX": self.run,
            "CELERY_QUEUE": self.validation_queue,
            "CELERY_SOLVER_QUEUE": self.solver_queue,
            "CELERY_WINNABLE_QUEUE": self.winnable_queue,
            "CELERY_PREPARE_QUEUE": self.prepare_queue,
            "SOLVER_SECONDS": str(self.solver_seconds),
            "SOLVER_MAX_SEEDS": str(self.solver_max_seeds),
            "PREPARE_AHEAD_DAYS": "0",  # beat's start prepares today's games only: a run lasts minutes
            "METRICS_TOKEN": self.metrics_token,
            "PROMETHEUS_MULTIPROC_DIR": str(self.workdir / "prometheus"),
            "LOG_FORMAT": "json",
            "DJANGO_LOG_LEVEL": "INFO",
            "PYTHONUNBUFFERED": "1",
            "DJANGO_STATIC_ROOT": str(self.static_root),
            **self.extra_env,
        }

    def log(self, name: str) -> Path:
        if name == "proxy":  # nginx's error log, and anything it says on standard error before opening it
            return self.workdir / "nginx" / "error.log"
        if name == "access":  # nginx's access log: a JSON object a line
            return self.workdir / "nginx" / "access.log"
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

    def nginx_conf(self) -> Path:
        """The proxy's configuration for this run: the repository's template, rendered."""
        run_dir = self.workdir / "nginx"
        run_dir.mkdir(parents=True, exist_ok=True)
        path = run_dir / "nginx.conf"
        path.write_text(
            render_nginx_conf(
                {
                    "DP_LISTEN": f"127.0.0.1:{self.port}",  # plain HTTP: no " ssl"
                    **throwaway_tls(run_dir),
                    "DP_REDIRECT_LISTEN": f"unix:{run_dir / 'redirect.sock'}",
                    "DP_HTTPS_PORT": str(self.port),
                    "DP_HSTS_SECONDS": "60",
                    "DP_UPSTREAM": f"127.0.0.1:{self.web_port}",
                    "DP_STATIC_ROOT": str(self.static_root),
                    "DP_RUN_DIR": str(run_dir),
                    "DP_LOG_DIR": str(run_dir),
                }
            )
        )
        return path

    def _spawn_proxy(self) -> None:
        nginx = nginx_binary()
        if nginx is None:
            raise RuntimeError("nginx is not installed (Debian: apt-get install nginx)")
        conf = self.nginx_conf()
        # The official image's own main settings, given here on the command line: in the foreground,
        # and (as root) workers with this user's rights, which can read the run's static folder.
        settings = "daemon off;" + (f" user {getpass.getuser()};" if os.geteuid() == 0 else "")
        check = subprocess.run(
            [nginx, "-t", "-q", "-p", str(conf.parent), "-c", str(conf), "-g", settings],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if check.returncode != 0:
            raise RuntimeError(f"nginx -t refused {conf}:\n{check.stderr}")
        out = self.log("proxy").open("ab")
        self.procs["proxy"] = subprocess.Popen(
            [nginx, "-p", str(conf.parent), "-c", str(conf), "-g", settings],
            cwd=self.workdir,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        out.close()

    def start(self, *, timeout: float = 60.0) -> None:
        (self.workdir / "prometheus").mkdir(parents=True, exist_ok=True)  # gunicorn empties it at start
        self.port = self.port or free_port()
        self.web_port = self.web_port or free_port()
        host = socket.gethostname()
        self._spawn(
            "web",
            [
                *COMMANDS["web"],
                "--bind",
                f"127.0.0.1:{self.web_port}",
                "--workers",
                str(self.web_workers),
                "--access-logfile",
                "-",
            ],
        )
        self._spawn_proxy()
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
            "worker-prepare",
            [
                *COMMANDS["worker-prepare"],
                self.prepare_queue,
                "--hostname",
                f"prepare-{self.run}@{host}",
                "--loglevel=INFO",
                "--concurrency=1",
            ],
        )
        self._spawn(
            "beat", [*COMMANDS["beat"], "--loglevel=INFO", f"--schedule={self.workdir / 'celerybeat-schedule'}"]
        )
        deadline = time.monotonic() + timeout
        waiting = {"proxy", "web", "worker-validation", "worker-solver", "worker-winnable", "worker-prepare", "beat"}
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
        self.warm_up()

    def warm_up(self, rounds: int = 3) -> None:
        """A few rounds of parallel requests through the proxy, so that every gunicorn worker has loaded
        the views (Django imports them on a first request, a second or more of CPU on a busy machine)."""
        paths = ["/api/v1/health", "/healthz", "/api/v1/daily", "/api/v1/games"]

        def ask(path: str) -> None:
            with contextlib.suppress(OSError):
                request(f"{self.url}{path}", timeout=30, source=fresh_source_address())

        for _ in range(rounds):
            threads = [threading.Thread(target=ask, args=(p,)) for p in paths * self.web_workers * 2]
            for t in threads:
                t.start()
            for t in threads:
                t.join()

    def _ready(self, name: str) -> bool:
        if name in ("web", "proxy"):
            with contextlib.suppress(OSError):
                return request(f"{self.web_url if name == 'web' else self.url}/healthz", timeout=2).status == 200
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


# --- `bench/stack.py up`: the whole stack on this machine, until Ctrl-C or SIGTERM --------------------


def up(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="bench/stack.py up",
        description="Start the production stack on this machine (nginx, gunicorn, the Celery workers, beat) "
        "on the PostgreSQL at 127.0.0.1:5432 (user postgres) and the given Redis; stop it all on Ctrl-C or SIGTERM.",
    )
    parser.add_argument("--port", type=int, default=8000, help="the proxy's port on 127.0.0.1 (default 8000)")
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
        help="Redis (default: $REDIS_URL, else redis://127.0.0.1:6379/0); the run's keys carry its id",
    )
    parser.add_argument("--web-workers", type=int, default=2, help="gunicorn workers (default 2)")
    parser.add_argument("--solver-seconds", type=float, default=10.0, help="the solver's budget per seed")
    parser.add_argument("--keep", action="store_true", help="keep the run's database at the end")
    args = parser.parse_args(argv)

    stopping = threading.Event()

    def on_signal(signum: int, frame: object) -> None:
        stopping.set()

    # Set before anything starts, so that a SIGTERM during start-up still cleans up.
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    workdir = Path(tempfile.mkdtemp(prefix="dp-stack-"))
    stack = Stack(
        redis_url=args.redis_url,
        workdir=workdir,
        web_workers=args.web_workers,
        solver_seconds=args.solver_seconds,
        solver_max_seeds=20,
        port=args.port,
    )
    try:
        if is_listening(args.port):
            print(f"port {args.port} is taken on 127.0.0.1: choose another with --port", file=sys.stderr)
            return 1
        print(f"starting: database {stack.db_name}, logs in {workdir}", flush=True)
        stack.create_database()
        if not stopping.is_set():
            stack.start(timeout=120)
            stack.send_task("solver_worker.prepare_upcoming_days")  # beat's hourly task, once now
            print(
                f"Daily Patience is up at {stack.url}/ (nginx in front of gunicorn at {stack.web_url}, "
                f"{stack.web_workers} workers; Celery workers validation, solver, winnable; beat)\n"
                f"run {stack.run}: pids {' '.join(str(p.pid) for p in stack.procs.values())}\n"
                "Ctrl-C or SIGTERM stops everything it started"
                + ("" if args.keep else " and drops the database")
                + ".",
                flush=True,
            )
        while not stopping.wait(1.0):
            for name, proc in stack.procs.items():
                if proc.poll() is not None:
                    print(f"{name} exited ({proc.returncode}); stopping\n{stack.tail(name)}", file=sys.stderr)
                    stopping.set()
                    break
        return 0
    except Exception as exc:
        print(f"could not start: {exc}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second signal does not cut the clean-up short
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        print("stopping", flush=True)
        stack.stop(drop=not args.keep)
        shutil.rmtree(workdir / "static", ignore_errors=True)
        print(f"stopped; logs in {workdir}" + ("" if args.keep else f"; database {stack.db_name} dropped"), flush=True)


def is_listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1)
        return s.connect_ex(("127.0.0.1", port)) == 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    if sys.argv[1:2] != ["up"]:
        print("usage: bench/stack.py up [--port N] [--redis-url URL] [--web-workers N] [--keep]", file=sys.stderr)
        raise SystemExit(2)
    raise SystemExit(up(sys.argv[2:]))
