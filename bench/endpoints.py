"""Worker CPU per request of the hot endpoints, against health and against the calibration floor.

    .venv/bin/python bench/endpoints.py [--worker-class gthread] [--requests 200] [--pairs 7] [--players 2000]

Bounded in time and count, and it only talks to 127.0.0.1:

1. Creates the database ``dailypatience_endpoints`` (dropped first), migrates it, seeds today's klondike
   with ``--players`` ranked results (bench/api.py's seeding), builds its Redis board and runs ANALYZE
   (the plans are those of a database whose statistics are current). Redis: database ``--redis-db``,
   keys of the run deleted at the end, nothing flushed.
2. Starts one gunicorn worker (``-c config/gunicorn.py --workers 1 --worker-class <class>``, production
   settings, no throttling, ``BENCH_FLOOR=true`` for the calibration endpoint ``config/bench.py``).
3. For each endpoint, ``--pairs`` back-to-back pairs of windows over one keep-alive connection: a window
   of ``--requests`` ``GET /api/v1/health``, then a window of as many requests to the endpoint. Each
   window's cost is the worker's CPU time from /proc divided by its requests; every response is checked.
   Prints per endpoint the median CPU per request, the median of the pairs' ratios to health, and for
   the moves batches the fraction of the floor (floor CPU / batch CPU: 1.0 would be a batch costing no
   more than its one UPDATE in a bare view), next to the targets of README's benchmark table.
4. Stops gunicorn; drops the database unless ``--keep``.

Figures depend on the machine and on whatever else runs on it: compare runs on one machine only.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.api import (  # noqa: E402
    BENCH_ENV,
    GAME,
    PG,
    admin_sql,
    cpu_seconds,
    free_port,
    log,
    make_users,
    redis_cleanup,
    seed_board,
    setup_django,
    stop,
    wait_http,
)
from bench.corpus import playout  # noqa: E402

DB_NAME = "dailypatience_endpoints"

# README's benchmark table: worker CPU per request (ms), ratio to health, fraction of the floor.
TARGETS = {
    "moves-1": "<= 2.5 ms, >= 0.85 of the floor",
    "moves-40": "<= 3.0 ms",
    "board-top": "<= 0.7x health",
    "board-page": "<= 3.5 ms",
    "board-around-me": "<= 2.3 ms",
    "daily": "<= 3 ms",
    "start": "<= 4 ms",
    "submit": "<= 4 ms",
}

Request = tuple[str, str, bytes | None, dict[str, str], int]  # method, path, body, headers, expected status


@dataclass
class Window:
    cpu_ms: float  # worker CPU per request
    seconds: float


class Lines:
    """Legal batches for the moves windows: each bench player's ranked attempt and a playout of its deal,
    handed out in chunks from where each attempt's stored log ends."""

    def __init__(self, players: list[tuple[str, int, list[str]]]) -> None:
        self.players = players  # (token, attempt id, line)
        self.current = 0
        self.position = [0] * len(players)

    def next_batch(self, size: int) -> Request:
        while True:
            token, attempt_id, line = self.players[self.current]
            start = self.position[self.current]
            if start + size <= len(line):
                self.position[self.current] = start + size
                body = json.dumps({"from": start, "moves": line[start : start + size]}).encode()
                return ("POST", f"/api/v1/attempts/{attempt_id}/moves", body, _auth(token), 200)
            self.current += 1
            if self.current == len(self.players):
                raise SystemExit("the playouts are used up: raise --lines")


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Token {token}", "Content-Type": "application/json"}


def measure(conn: http.client.HTTPConnection, requests: Iterator[Request], count: int, master: int) -> Window:
    started, cpu = time.perf_counter(), cpu_seconds(master)
    for _ in range(count):
        send(conn, next(requests))
    return Window((cpu_seconds(master) - cpu) * 1000 / count, time.perf_counter() - started)


def endless(make: Callable[[int], Request]) -> Iterator[Request]:
    i = 0
    while True:
        yield make(i)
        i += 1


def bench_players(prefix: str, count: int) -> list[tuple[object, str]]:
    from games.auth import tokens_create

    users = make_users(prefix, count)
    return list(zip(users, tokens_create(user_ids=[u.pk for u in users]), strict=True))


def send(conn: http.client.HTTPConnection, request: Request) -> bytes:
    """One request on the keep-alive connection; its body, or the run stops on an unexpected status."""
    method, path, body, headers, expected = request
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    data = response.read()
    if response.status != expected:
        raise SystemExit(f"{method} {path}: {response.status}, expected {expected}: {data[:300]!r}")
    return data


def profile_start(directory: str, name: str, master: int) -> subprocess.Popen[bytes] | None:
    """py-spy sampling gunicorn's worker (the master's child) into ``directory``/``name``.txt, or None."""
    if not directory:
        return None
    Path(directory).mkdir(parents=True, exist_ok=True)
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    output = str(Path(directory) / f"{name}.txt")
    spy_command = [str(Path(sys.executable).parent / "py-spy"), "record", "--gil", "--format", "raw"]
    spy = subprocess.Popen(
        [*spy_command, "--rate", "500", "--output", output, "--pid", children[0]],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(1.0)  # py-spy attaches
    return spy


def profile_stop(spy: subprocess.Popen[bytes] | None) -> None:
    if spy is not None:
        spy.send_signal(2)  # SIGINT: py-spy writes its file and exits
        spy.wait(timeout=60)


def http_json(conn: http.client.HTTPConnection, request: Request) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(send(conn, request))
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker-class", default="gthread", help="gunicorn's worker class (sync, gthread)")
    parser.add_argument("--threads", type=int, default=4, help="threads per worker (gthread)")
    parser.add_argument("--requests", type=int, default=200, help="requests per window")
    parser.add_argument("--pairs", type=int, default=7, help="back-to-back (health, endpoint) pairs")
    parser.add_argument("--players", type=int, default=2000, help="ranked results on the board")
    parser.add_argument("--redis-db", type=int, default=12)
    parser.add_argument("--only", default="", help="endpoints, comma-separated: " + ", ".join(TARGETS))
    parser.add_argument("--keep", action="store_true", help="keep the database")
    parser.add_argument(
        "--profile",
        default="",
        help="a directory: py-spy (requirements-dev.txt) samples the worker during each endpoint's windows and "
        "writes <endpoint>.txt there (collapsed stacks of the thread holding the GIL, a proxy for CPU; the "
        "health windows between are in it)",
    )
    parser.add_argument("--db", default=DB_NAME, help="the database to create (dropped first): one per concurrent run")
    args = parser.parse_args()
    run = uuid.uuid4().hex[:8]
    env = {
        **os.environ,
        **BENCH_ENV,
        "DATABASE_URL": f"{PG}/{args.db}",
        "REDIS_URL": f"redis://127.0.0.1:6379/{args.redis_db}",
        "CACHE_KEY_PREFIX": f"bench-endpoints-{run}",
        "CELERY_QUEUE": f"bench-endpoints-{run}",
        "CELERY_SOLVER_QUEUE": f"bench-endpoints-{run}-solver",
        "CELERY_WINNABLE_QUEUE": f"bench-endpoints-{run}-winnable",
        "BENCH_FLOOR": "true",
    }
    with redis_cleanup(env["REDIS_URL"]):
        run_bench(args, env)


def run_bench(args: argparse.Namespace, env: dict[str, str]) -> None:
    windows = args.pairs * args.requests
    admin_sql(f"DROP DATABASE IF EXISTS {args.db} WITH (FORCE)")
    admin_sql(f"CREATE DATABASE {args.db}")
    subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
    setup_django(env)
    from django.db import connection

    rng = random.Random(20261207)
    challenge = seed_board(args.players, rng)
    from engine import GAME_IDS
    from games.models import Challenge

    # The whole day, as in service: /daily is held once every deal of the day is ready.
    Challenge.objects.bulk_create(
        Challenge(date=challenge.date, game=game, seed=1, status=Challenge.Status.READY, difficulty=2)
        for game in GAME_IDS
        if game != GAME
    )
    today = challenge.date.isoformat()
    from games.auth import tokens_create
    from games.models import Result

    ranked = list(Result.objects.filter(challenge=challenge, won=True, assisted=False, disqualified=False)[:50])
    seeded = tokens_create(user_ids=[r.player_id for r in ranked])
    movers = bench_players("mover", 60)
    starters = bench_players("starter", windows + args.requests)
    starter_ids = {token: user.pk for user, token in starters}  # type: ignore[attr-defined]
    floor_owner = bench_players("floor", 1)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    connection.close()

    port = free_port()
    tmp = Path(tempfile.mkdtemp(prefix="dp-endpoints-"))
    log_path = tmp / "gunicorn.log"
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "-c",
        "config/gunicorn.py",
        "--workers",
        "1",
        "--worker-class",
        args.worker_class,
        "--threads",
        str(args.threads),
        "--bind",
        f"127.0.0.1:{port}",
        "config.wsgi:application",
    ]
    with log_path.open("wb") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_http(f"http://127.0.0.1:{port}/api/v1/health", proc, log_path)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        # The movers' ranked attempts (the position cache warmed by the start) and their lines.
        lines = []
        for _user, token in movers:
            attempt = http_json(conn, ("POST", f"/api/v1/daily/{today}/{GAME}/attempts", b"", _auth(token), 201))
            lines.append((token, attempt["id"], playout(GAME, 2, 1500, rng)))
        moves = Lines(lines)
        floor_attempt = http_json(
            conn, ("POST", f"/api/v1/daily/{today}/{GAME}/attempts", b"", _auth(floor_owner[0][1]), 201)
        )["id"]
        floor_length = [0]

        def floor(_i: int) -> Request:
            start = floor_length[0]
            floor_length[0] += 1
            body = json.dumps({"from": start, "moves": ["s"]}).encode()
            return ("POST", f"/bench/floor/{floor_attempt}", body, {"Content-Type": "application/json"}, 200)

        started: list[int] = []
        start_tokens = iter(starters)
        submit_tokens: list[str] = []

        def start(_i: int) -> Request:
            token = next(start_tokens)[1]
            submit_tokens.append(token)
            return ("POST", f"/api/v1/daily/{today}/{GAME}/attempts", b"", _auth(token), 201)

        def submit(i: int) -> Request:
            return ("POST", f"/api/v1/attempts/{started[i]}/submit", b"{}", _auth(submit_tokens[i]), 202)

        board = f"/api/v1/leaderboards/{today}/{GAME}"
        endpoints: dict[str, Callable[[int], Request]] = {
            "floor": floor,
            "moves-1": lambda _i: moves.next_batch(1),
            "moves-40": lambda _i: moves.next_batch(40),
            "board-top": lambda _i: ("GET", f"{board}?limit=50", None, {}, 200),
            "board-page": lambda i: ("GET", f"{board}?offset={1000 + i % 500}&limit=50", None, {}, 200),
            "board-around-me": lambda i: ("GET", f"{board}?around=me", None, _auth(seeded[i % len(seeded)]), 200),
            "daily": lambda _i: ("GET", "/api/v1/daily", None, {}, 200),
            "start": start,
            "submit": submit,
        }
        only = [name for name in args.only.split(",") if name]
        health = endless(lambda _i: ("GET", "/api/v1/health", None, {}, 200))
        measure(conn, health, args.requests, proc.pid)  # warm up
        results: dict[str, tuple[float, float, float]] = {}  # name: (cpu ms, ratio to health, health cpu ms)
        for name, make in endpoints.items():
            if only and name not in only and name != "floor":
                continue
            requests = endless(make)
            costs, ratios, healths = [], [], []
            spy = profile_start(args.profile, name, proc.pid)
            for _pair in range(args.pairs):
                base = measure(conn, health, args.requests, proc.pid)
                window = measure(conn, requests, args.requests, proc.pid)
                costs.append(window.cpu_ms)
                healths.append(base.cpu_ms)
                ratios.append(window.cpu_ms / base.cpu_ms if base.cpu_ms else float("nan"))
            profile_stop(spy)
            if name == "start":  # the attempts just started, for the submit windows
                from games.models import Attempt

                by_player = dict(
                    Attempt.objects.filter(player__username__startswith="starter").values_list("player_id", "id")
                )
                started[:] = [by_player[starter_ids[token]] for token in submit_tokens]
            results[name] = (statistics.median(costs), statistics.median(ratios), statistics.median(healths))
            log(f"  {name}: {results[name][0]:.2f} ms of worker CPU a request, {results[name][1]:.2f}x health")
        floor_ms = results["floor"][0]
        log("")
        log(f"worker class {args.worker_class}, {args.pairs} pairs of {args.requests} requests, {args.players} players")
        log(f"{'endpoint':<22} {'CPU ms/req':>10} {'x health':>9} {'floor/it':>9}   target")
        for name, (cpu, ratio, _health) in results.items():
            fraction = f"{floor_ms / cpu:.2f}" if name.startswith("moves") or name == "floor" else ""
            log(f"{name:<22} {cpu:>10.2f} {ratio:>9.2f} {fraction:>9}   {TARGETS.get(name, '')}")
        log(f"{'health':<22} {statistics.median(r[2] for r in results.values()):>10.2f} {1.0:>9.2f}")
    finally:
        stop(proc, "gunicorn")
        connection.close()
        if not args.keep:
            admin_sql(f"DROP DATABASE IF EXISTS {args.db} WITH (FORCE)")


if __name__ == "__main__":
    main()
