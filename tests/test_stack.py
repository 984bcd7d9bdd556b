"""The deployed stack, tested: the production entry points as separate processes, DEBUG off.

gunicorn ``config.wsgi`` (2 workers), a Celery worker per queue and beat (bench/stack.py, what
docker-compose.yml runs) on a PostgreSQL database made for the test and Redis names unique to the
run. The solver worker prepares today's klondike; two players register, play through HTTP (the
solver's winning line in batches, and a short losing line), submit; the validation worker ranks
them; the board, /readyz, /metrics, the request ids and the JSON logs are checked. Then issue 27's
probes: slow sockets (headers, bodies, pipelined requests) and six replays of a 5,000-move log at once
must not stall the health check. About a minute and a half.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from bench.corpus import playout
from bench.stack import COMMANDS, ROOT, Stack, request

pytestmark = [
    pytest.mark.slow,
    pytest.mark.redis(reason="the stack's broker"),
    pytest.mark.postgres(reason="the stack's database"),
]

BOUND = 90.0  # seconds: every wait gives up after this
READ_SECONDS = 5  # the web server's limit for a request to arrive whole (10 s by default)


def wait_for(what: str, check: Callable[[], Any], stack: Stack, *names: str, bound: float = BOUND) -> Any:
    deadline = time.monotonic() + bound
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {BOUND:g} s\n" + "\n".join(stack.tail(n) for n in names))
        time.sleep(0.25)


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    s = Stack(
        redis_url=os.environ["REDIS_URL"],
        workdir=tmp_path_factory.mktemp("stack"),
        solver_seconds=5,
        solver_max_seeds=10,
        extra_env={"GUNICORN_REQUEST_READ_SECONDS": str(READ_SECONDS)},
    )
    try:
        s.create_database()
        s.start()
        yield s
    finally:
        s.stop()


def api(stack: Stack, path: str, *, token: str | None = None, **kwargs: Any) -> Any:
    headers = {"Authorization": f"Token {token}"} if token else {}
    return request(f"{stack.url}/api/v1/{path}", headers=headers, **kwargs)


def register(stack: Stack, name: str) -> str:
    answer = api(stack, "auth/register", method="POST", data={"username": name, "password": "a long passphrase 42"})
    assert answer.status == 201, answer.body
    return answer.json()["token"]


def play(stack: Stack, token: str, day: str, log: list[str], *, batch: int = 40) -> int:
    """Start the ranked attempt, send ``log`` in batches, submit; the submission's id."""
    attempt = api(stack, f"daily/{day}/klondike/attempts", method="POST", token=token, data={})
    assert attempt.status == 201, attempt.body
    attempt_id = attempt.json()["id"]
    for start in range(0, len(log), batch):
        moved = api(
            stack,
            f"attempts/{attempt_id}/moves",
            method="POST",
            token=token,
            data={"from": start, "moves": log[start : start + batch]},
        )
        assert moved.status == 200, moved.body
    submitted = api(stack, f"attempts/{attempt_id}/submit", method="POST", token=token, data={})
    assert submitted.status == 202, submitted.body
    return int(submitted.json()["id"])


def test_the_production_processes_prepare_a_day_and_rank_players(stack: Stack) -> None:
    # Every process is up, DEBUG is off (a missing page is not Django's debug page).
    assert all(p.poll() is None for p in stack.procs.values())
    missing = request(f"{stack.url}/no-such-page")
    assert missing.status == 404 and b"Traceback" not in missing.body and b"DEBUG = True" not in missing.body

    # A first deploy: nobody sends a task by hand. Beat's start sends prepare_upcoming_days (to the
    # validation worker), which sends one preparation per game of today to the solver worker, in the
    # games' order (klondike after the two-deck games: a longer wait than the others).
    day = api(stack, "daily").json()["date"]
    ready = wait_for(
        "today's klondike is ready",
        lambda: stack.sql(
            "SELECT seed, solution FROM games_challenge WHERE date = %s AND game = %s AND status = 'ready'",
            day,
            "klondike",
        ),
        stack,
        "worker-solver",
        bound=4 * BOUND,
    )
    assert "solver_worker.prepare_upcoming_days" in stack.log("worker-validation").read_text()  # from beat's start
    seed, solution = ready[0][0] % (1 << 64), ready[0][1]  # stored as a signed bigint (games.models.SeedField)
    assert solution, "a ready challenge carries the solver's winning line"
    listed = {c["game"]: c for c in api(stack, "daily").json()["challenges"]}
    assert "klondike" in listed

    # Two players through HTTP: the winning line in batches, and a short losing line.
    winner, loser = f"win{uuid.uuid4().hex[:8]}", f"lose{uuid.uuid4().hex[:8]}"
    win_token, lose_token = register(stack, winner), register(stack, loser)
    losing = playout("klondike", seed, 30, random.Random(7))
    submissions = {
        winner: (play(stack, win_token, day, solution), win_token),
        loser: (play(stack, lose_token, day, losing), lose_token),
    }

    def validated() -> dict[str, Any] | None:
        answers = {
            name: api(stack, f"submissions/{sid}", token=token).json() for name, (sid, token) in submissions.items()
        }
        return answers if all(a["status"] != "pending" for a in answers.values()) else None

    answers = wait_for("both submissions are validated", validated, stack, "worker-validation")
    assert answers[winner]["status"] == "valid" and answers[winner]["result"]["won"] is True, answers
    assert answers[loser]["status"] == "valid" and answers[loser]["result"]["won"] is False, answers

    # The winning line went in at a machine's pace (the solver's line, 40 moves a request): held for
    # review and on no board (games.pace), in production as in the tests; the loser's short game is
    # a person's. A result reaches the Redis board just after its submission shows valid (the board's
    # write follows the commit): wait for the entry, as the player's table would.
    held = answers[winner]["result"]
    assert held["review"]["status"] == "under review" and held["on_board"] is False and held["rank"] is None, held
    # (The loser's random line undoes a move that turned a card up: it ranks on the board of all results.)
    board = wait_for(
        "the loser is on the board",
        lambda: (b := api(stack, f"leaderboards/{day}/klondike?board=all").json())["total"] == 1 and b,
        stack,
        "worker-validation",
    )
    assert [(e["rank"], e["player"], e["won"]) for e in board["entries"]] == [(1, loser, False)], board
    assert board["entries"][0]["assisted"] is answers[loser]["result"]["assisted"]

    # Readiness: the database, the cache and the broker answer.
    ready_answer = request(f"{stack.url}/readyz")
    assert ready_answer.status == 200, ready_answer.body
    assert ready_answer.json()["down"] == []

    # Metrics: the token is needed; the figures reflect what just happened, summed over the workers.
    assert request(f"{stack.url}/metrics").status == 401
    metrics = request(f"{stack.url}/metrics", headers={"Authorization": f"Bearer {stack.metrics_token}"})
    assert metrics.status == 200
    text = metrics.body.decode()

    def value(pattern: str) -> float:
        match = re.search(rf"^{pattern} ([0-9.e+-]+)$", text, re.M)
        assert match, f"{pattern} not in /metrics:\n{text[:3000]}"
        return float(match.group(1))

    assert value(r'dailypatience_days_prepared_ahead\{game="klondike"\}') >= 1
    assert value(r"dailypatience_submissions_pending") == 0
    assert value(r"dailypatience_validations_recent") == 2
    assert value(r'dailypatience_validation_latency_seconds\{quantile="max"\}') < BOUND
    assert value(rf'dailypatience_celery_queue_length\{{queue="{stack.validation_queue}"\}}') == 0
    assert value(r"dailypatience_broker_up") == 1
    assert value(r'dailypatience_challenge_solver_seconds\{days_ahead="0",game="klondike"\}') > 0
    moves_posted = value(
        r'django_http_requests_latency_seconds_by_view_method_count\{method="POST",view="attempt-moves"\}'
    )
    assert moves_posted == sum(-(-n // 40) for n in (len(solution), len(losing)))  # every worker's requests

    # Request ids are echoed, and the logs are JSON lines with request and task ids.
    echoed = request(f"{stack.url}/api/v1/health", headers={"X-Request-ID": "stack-test-1"})
    assert echoed.headers.get("X-Request-ID") == "stack-test-1"
    worker_lines = [
        json.loads(line) for line in stack.log("worker-validation").read_text().splitlines() if line.startswith("{")
    ]
    assert any(r.get("task") == "games.validate_submission" and r.get("task_id") for r in worker_lines), stack.tail(
        "worker-validation"
    )
    assert stack.procs["beat"].poll() is None, stack.tail("beat")


@pytest.mark.skipif(shutil.which("celery", path=str(Path(sys.executable).parent)) is None, reason="no celery")
def test_the_compose_health_check_of_a_worker_answers(stack: Stack) -> None:
    """`celery inspect ping --destination <worker>`, as docker-compose.yml's health checks run it."""
    host = socket.gethostname()
    for name in ("validation", "solver"):
        done = subprocess.run(
            [
                str(Path(sys.executable).parent / "celery"),
                "-A",
                "config",
                "inspect",
                "ping",
                "--destination",
                f"{name}-{stack.run}@{host}",
                "--timeout",
                "10",
            ],
            cwd=ROOT,
            env=stack.env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0 and "pong" in done.stdout, done.stdout + done.stderr


def test_docker_compose_runs_the_tested_processes() -> None:
    """docker-compose.yml (not run here: no Docker engine) describes exactly the processes above."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"web", "worker-validation", "worker-solver", "worker-winnable", "beat", "postgres", "redis"} <= set(
        services
    )
    for name, words in COMMANDS.items():
        command = services[name]["command"]
        command = command if isinstance(command, str) else " ".join(command)
        assert " ".join(words) in command, (name, command)
        assert services[name]["restart"] == "unless-stopped", name
    assert "-Q validation" in services["worker-validation"]["command"]
    assert "-Q solver" in services["worker-solver"]["command"]
    assert "-Q winnable" in services["worker-winnable"]["command"]
    for name in ("web", "worker-validation", "worker-solver", "worker-winnable", "postgres", "redis"):
        assert "healthcheck" in services[name], name
    env = services["web"]["environment"]
    assert env["DJANGO_DEBUG"] == "false"
    for key in (
        "PROMETHEUS_MULTIPROC_DIR",
        "METRICS_TOKEN",
        "LOG_FORMAT",
        "DJANGO_SECURE_SSL_REDIRECT",
        "DJANGO_SECURE_PROXY_SSL_HEADER",
    ):
        assert key in env, key
    assert "manage.py migrate" in services["web"]["command"]
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "config/gunicorn.py" in dockerfile and "PROMETHEUS_MULTIPROC_DIR" in dockerfile


def test_slow_clients_do_not_stall_the_site(stack: Stack) -> None:
    """30 connections trickle a byte each per 0.25 s (10 their headers, 10 a declared body, 10 the
    headers of a second request behind a whole first one: each group alone outnumbers the 2 workers x
    4 threads): the health check keeps answering at once, and each trickler gets a 408 once its
    request has not arrived whole within READ_SECONDS (the pipelined ones after their first answer)."""
    headers = [b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"x" * 200]
    body = [
        b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 200\r\n\r\n" + b"{" + b" " * 199
    ]
    # A whole request with the next one trickling behind it on the same connection (pipelining).
    pipelined = [b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + headers[0]]
    slow: list[tuple[socket.socket, bytes, int]] = []  # the socket, what it has left to send, answers due
    for text in headers * 10 + body * 10 + pipelined * 10:
        sock = socket.create_connection(("127.0.0.1", stack.port), timeout=5)
        head = text.index(b"\r\n\r\n") + 4 + 20 * text.startswith(b"GET") if b"\r\n\r\n" in text else 20
        sock.sendall(text[:head])  # a start at once (a declared body's headers), then a byte at a time
        slow.append((sock, text[head:], 1 + (text in pipelined)))
    latencies = []
    try:
        started = time.monotonic()
        sent = 0
        while time.monotonic() - started < READ_SECONDS - 1:
            for sock, rest, _ in slow:
                sock.sendall(rest[sent : sent + 1])
            sent += 1
            began = time.monotonic()
            answer = request(f"{stack.url}/healthz", timeout=5)
            latencies.append(time.monotonic() - began)
            assert answer.status == 200
            time.sleep(0.25)
        median = sorted(latencies)[len(latencies) // 2]
        print(
            f"health check while 30 sockets trickle: {len(latencies)} answers, median {median * 1000:.1f} ms, "
            f"max {max(latencies) * 1000:.1f} ms"
        )
        assert len(latencies) >= 10 and max(latencies) < 1.0 and median < 0.1, latencies  # a shared machine: spikes
        # Past the limit, every trickler is answered 408 and closed (the loop checks once a second).
        for sock, _, answers in slow:
            sock.settimeout(READ_SECONDS + 5)
            reply = b""
            while b"408 Request Timeout" not in reply and (chunk := sock.recv(4096)):
                reply += chunk
            assert reply.count(b"HTTP/1.1 ") == answers, reply
            assert reply[reply.rindex(b"HTTP/1.1 ") :].startswith(b"HTTP/1.1 408 Request Timeout\r\n"), reply
            assert json.loads(reply.split(b"\r\n\r\n")[-1])["error"]["code"] == "request_timeout"
    finally:
        for sock, _, _ in slow:
            sock.close()
    assert stack.procs["web"].poll() is None
    assert request(f"{stack.url}/healthz").status == 200

    # Bodies that could hold a thread are refused before one is involved, as JSON errors.
    for head, status, code in (
        (b"Transfer-Encoding: chunked\r\n", 411, "length_required"),
        (b"Content-Length: 2000000\r\n", 413, "too_large"),
    ):
        with socket.create_connection(("127.0.0.1", stack.port), timeout=5) as sock:
            sock.sendall(b"POST /api/v1/auth/token HTTP/1.1\r\nHost: 127.0.0.1\r\n" + head + b"\r\n{")
            reply = b""
            while chunk := sock.recv(4096):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 %d " % status), reply
        assert json.loads(reply.split(b"\r\n\r\n", 1)[1])["error"]["code"] == code


def test_replays_of_a_long_log_in_parallel_stay_small_and_do_not_stall_the_site(stack: Stack) -> None:
    """Issue 27's probe: six replays of a 5,000-move log at once from one player (the last pages, cold:
    each a replay of the whole log) answered 2 MB each and stalled the site for seconds."""
    import threading

    day = api(stack, "daily").json()["date"]
    stack.manage(
        "shell",
        "-c",
        "from games.models import Challenge; Challenge.objects.get_or_create("
        f"date='{day}', game='klondike-3', defaults=dict(seed=2, status='ready', difficulty=2))",
    )
    token = register(stack, f"rep{uuid.uuid4().hex[:8]}")
    attempt = api(stack, f"daily/{day}/klondike-3/attempts", method="POST", token=token, data={}).json()
    log = playout("klondike-3", 2, 5000, random.Random(5))
    stored = api(stack, f"attempts/{attempt['id']}/moves", method="POST", token=token, data={"from": 0, "moves": log})
    assert stored.status == 200 and len(log) == 5000, stored.body
    answers: list[tuple[int, int, float]] = []

    def replay(page: int) -> None:
        began = time.monotonic()
        answer = api(stack, f"attempts/{attempt['id']}/replay?page={page}", token=token)
        answers.append((answer.status, len(answer.body), time.monotonic() - began))

    threads = [threading.Thread(target=replay, args=(page,)) for page in range(44, 50)]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    health = []
    while any(t.is_alive() for t in threads):
        asked = time.monotonic()
        assert request(f"{stack.url}/healthz", timeout=5).status == 200
        health.append(time.monotonic() - asked)
    for thread in threads:
        thread.join()
    wall = time.monotonic() - began
    print(
        f"6 replays at once: {wall * 1000:.0f} ms, answers {[(s, b // 1024) for s, b, _ in answers]} KiB, "
        f"health max {max(health, default=0) * 1000:.0f} ms"
    )
    assert [s for s, _, _ in answers] == [200] * 6 and all(b < 64 * 1024 for _, b, _ in answers)
    assert wall < 2.0 and max(health, default=0) < 1.0
