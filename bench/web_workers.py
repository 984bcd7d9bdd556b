"""gunicorn's worker classes behind the proxy: worker CPU per request and throughput, through nginx.

    .venv/bin/python bench/web_workers.py [--seconds 8] [--connections 4] [--repeats 2] [--redis-db 11]

For each worker class (``sync``; ``gthread`` with 4 threads), ``--repeats`` times, alternating, it
starts the stack of bench/stack.py (nginx in front, gunicorn 2 workers, DEBUG off, no throttling;
the class set through ``GUNICORN_CMD_ARGS``, which overrides config/gunicorn.py) and measures, in
``--rounds`` interleaved rounds of ``--seconds`` each, through the proxy with ``--connections`` keep-alive client
connections:

- ``GET /api/v1/health``;
- one-move batches: each connection a player of its own, posting the next move of a 5,000-move
  klondike-3 line (seed 2, bench/corpus.playout) per request, ``{"from": n, "moves": [m]}``.

Per round: requests/s, the gunicorn workers' CPU per request (user + system, from /proc, the
master's children) and nginx's. Prints every round and the medians per class. Bounded in time and
count; talks to 127.0.0.1 only; the stacks' databases and Redis keys are removed at the end.
Figures depend on the machine and on whatever else runs on it: compare runs on one machine only.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus import playout  # noqa: E402
from bench.stack import Stack, fresh_source_address, request  # noqa: E402

CLASSES = {"sync": "--worker-class sync", "gthread": "--worker-class gthread --threads 4"}
GAME, SEED, MOVES = "klondike-3", 2, 5000
PER_ADDRESS = 50  # requests sent from one client address (the proxy lets one address burst 100)


def children_cpu(pid: int) -> float:
    """User + system CPU seconds of ``pid``'s children (gunicorn's or nginx's workers)."""
    total = 0
    with contextlib.suppress(OSError):
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = Path(f"/proc/{child}/stat").read_text().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def prepare(stack: Stack) -> str:
    """Today's klondike-3 made ready (seed 2) without the solver; today's date."""
    day = str(request(f"{stack.url}/api/v1/daily").json()["date"])
    stack.manage(
        "shell",
        "-c",
        "from games.models import Challenge; Challenge.objects.get_or_create("
        f"date='{day}', game='{GAME}', defaults=dict(seed={SEED}, status='ready', difficulty=2))",
    )
    return day


def new_attempt(stack: Stack, day: str) -> tuple[str, str]:
    """A new player's ranked attempt: its moves path and the player's token."""
    answer = request(
        f"{stack.url}/api/v1/auth/register",
        method="POST",
        data={"username": f"ww{uuid.uuid4().hex[:10]}", "password": "a long passphrase 42"},
    )
    assert answer.status == 201, answer.body
    token = answer.json()["token"]
    auth = {"Authorization": f"Token {token}"}
    attempt = request(f"{stack.url}/api/v1/daily/{day}/{GAME}/attempts", method="POST", data={}, headers=auth)
    assert attempt.status == 201, attempt.body
    return f"/api/v1/attempts/{attempt.json()['id']}/moves", token


Work = tuple[str, str, dict[str, str]]  # method, path, headers


def load(port: int, seconds: float, work: list[Work], line: list[str] | None) -> tuple[int, int]:
    """Each connection sends its request in turn until ``seconds`` pass (with a ``line``: a POST of its
    next move each time); the number answered 200, and the number not."""
    done, failed = [0] * len(work), [0] * len(work)
    deadline = time.monotonic() + seconds

    def run(i: int) -> None:
        method, path, headers = work[i]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        n = sent = 0
        while time.monotonic() < deadline and (line is None or n < len(line)):
            if sent % PER_ADDRESS == 0:  # a new client address now and then: the proxy's limit is per address
                conn.close()
                conn = http.client.HTTPConnection(
                    "127.0.0.1", port, timeout=30, source_address=(fresh_source_address(), 0)
                )
            sent += 1
            body = json.dumps({"from": n, "moves": [line[n]]}) if line is not None else None
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            if response.status == 200:
                done[i] += 1
                n += 1
            else:
                failed[i] += 1
        conn.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(done), sum(failed)


def measure(stack: Stack, name: str, seconds: float, work: list[Work], line: list[str] | None) -> dict[str, Any]:
    web0, nginx0 = children_cpu(stack.procs["web"].pid), children_cpu(stack.procs["proxy"].pid)
    began = time.perf_counter()
    ok, failed = load(stack.port, seconds, work, line)
    wall = time.perf_counter() - began
    web = children_cpu(stack.procs["web"].pid) - web0
    nginx = children_cpu(stack.procs["proxy"].pid) - nginx0
    return {
        "endpoint": name,
        "requests": ok,
        "errors": failed,
        "rps": ok / wall,
        "web_ms": 1000 * web / max(ok, 1),
        "nginx_ms": 1000 * nginx / max(ok, 1),
    }


def one_stack(worker: str, args: argparse.Namespace, line: list[str]) -> list[dict[str, Any]]:
    workdir = Path(tempfile.mkdtemp(prefix=f"dp-ww-{worker}-"))
    stack = Stack(
        redis_url=f"redis://127.0.0.1:6379/{args.redis_db}",
        workdir=workdir,
        extra_env={"API_THROTTLE": "false", "DJANGO_LOG_LEVEL": "WARNING", "GUNICORN_CMD_ARGS": CLASSES[worker]},
    )
    rows = []
    try:
        stack.create_database()
        stack.start()
        day = prepare(stack)
        for _ in range(args.rounds):
            health: list[Work] = [("GET", "/api/v1/health", {})] * args.connections
            rows.append(measure(stack, "health", args.seconds, health, None))
            work: list[Work] = []
            for _ in range(args.connections):
                path, token = new_attempt(stack, day)
                work.append(("POST", path, {"Authorization": f"Token {token}", "Content-Type": "application/json"}))
            rows.append(measure(stack, "one-move batch", args.seconds, work, line))
    finally:
        stack.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    for row in rows:
        row["worker"] = worker
        print(
            f"{worker:8} {row['endpoint']:15} {row['requests']:6} ok {row['errors']:4} errors "
            f"{row['rps']:7.1f}/s  gunicorn {row['web_ms']:.2f} ms/request  nginx {row['nginx_ms']:.2f} ms/request",
            flush=True,
        )
    return rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=2, help="stacks started per worker class")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of each endpoint per stack")
    parser.add_argument("--redis-db", type=int, default=11)
    args = parser.parse_args(argv)
    line = playout(GAME, SEED, MOVES, random.Random(5))
    rows = []
    for _ in range(args.repeats):
        for worker in CLASSES:
            rows.extend(one_stack(worker, args, line))
    print("\nmedians:")
    for worker in CLASSES:
        for endpoint in ("health", "one-move batch"):
            mine = [r for r in rows if r["worker"] == worker and r["endpoint"] == endpoint]
            print(
                f"{worker:8} {endpoint:15} {statistics.median(r['rps'] for r in mine):7.1f}/s  gunicorn "
                f"{statistics.median(r['web_ms'] for r in mine):.2f} ms/request  nginx "
                f"{statistics.median(r['nginx_ms'] for r in mine):.2f} ms/request"
            )


if __name__ == "__main__":
    main()
