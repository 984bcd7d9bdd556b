"""The deployed stack, tested: the production entry points as separate processes, DEBUG off.

nginx (config/nginx/nginx.conf.template) in front of gunicorn ``config.wsgi`` (2 workers), a Celery
worker per queue and beat (bench/stack.py, what docker-compose.yml runs) on a PostgreSQL database
made for the test and Redis names unique to the run; every request goes through the proxy. The
solver worker prepares today's klondike; two players register, play through HTTP (the solver's
winning line in batches, and a short losing line), submit; the validation worker ranks them; the
board, /readyz, /metrics, the request ids, the JSON logs and the proxy's headers are checked. Then
issue 27's probe: six replays of a 5,000-move log at once must not stall the health check. (The
attacks on the front door: tests/test_front_door.py.) About a minute.
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
from bench.stack import COMMANDS, ROOT, Stack, fresh_source_address, request

pytestmark = [
    pytest.mark.slow,
    pytest.mark.redis(reason="the stack's broker"),
    pytest.mark.postgres(reason="the stack's database"),
    pytest.mark.nginx(reason="the stack's proxy"),
]

BOUND = 90.0  # seconds: every wait gives up after this


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
    )
    try:
        s.create_database()
        s.start()
        yield s
    finally:
        s.stop()


def json_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def api(stack: Stack, path: str, *, token: str | None = None, **kwargs: Any) -> Any:
    headers = {"Authorization": f"Token {token}"} if token else {}
    return request(f"{stack.url}/api/v1/{path}", headers=headers, **kwargs)


def register(stack: Stack, name: str, *, source: str | None = None) -> str:
    answer = api(
        stack,
        "auth/register",
        method="POST",
        data={"username": name, "password": "a long passphrase 42"},
        source=source,
    )
    assert answer.status == 201, answer.body
    token: str = answer.json()["token"]
    return token


def play(stack: Stack, token: str, day: str, log: list[str], *, batch: int = 40, source: str | None = None) -> int:
    """Start the ranked attempt, send ``log`` in batches, submit (from ``source``); the submission's id."""
    attempt = api(stack, f"daily/{day}/klondike/attempts", method="POST", token=token, data={}, source=source)
    assert attempt.status == 201, attempt.body
    attempt_id = attempt.json()["id"]
    for start in range(0, len(log), batch):
        moved = api(
            stack,
            f"attempts/{attempt_id}/moves",
            method="POST",
            token=token,
            data={"from": start, "moves": log[start : start + batch]},
            source=source,
        )
        assert moved.status == 200, moved.body
    submitted = api(stack, f"attempts/{attempt_id}/submit", method="POST", token=token, data={}, source=source)
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
        "worker-prepare",
        bound=4 * BOUND,
    )
    assert "solver_worker.prepare_upcoming_days" in stack.log("worker-validation").read_text()  # from beat's start
    seed, solution = ready[0][0] % (1 << 64), ready[0][1]  # stored as a signed bigint (games.models.SeedField)
    assert solution, "a ready challenge carries the solver's winning line"
    listed = {c["game"]: c for c in api(stack, "daily").json()["challenges"]}
    assert "klondike" in listed

    # Two players through HTTP, each from an address of its own (two new accounts of the day from one
    # address share what either saw of the deal: SPEC section 7): the winning line in batches, and a
    # short losing line.
    winner, loser = f"win{uuid.uuid4().hex[:8]}", f"lose{uuid.uuid4().hex[:8]}"
    win_from, lose_from = fresh_source_address(), fresh_source_address()
    win_token, lose_token = register(stack, winner, source=win_from), register(stack, loser, source=lose_from)
    losing = playout("klondike", seed, 30, random.Random(7))
    submissions = {
        winner: (play(stack, win_token, day, solution, source=win_from), win_token),
        loser: (play(stack, lose_token, day, losing, source=lose_from), lose_token),
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
    assert held["fair_play"]["status"] == "held" and held["on_board"] is False and held["rank"] is None, held
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
    # Celery's liveness and task figures (config/monitoring.py): beat and a worker on every queue alive,
    # the validations counted by outcome with their durations.
    assert value(r"dailypatience_beat_heartbeat_age_seconds") < 60
    for queue in (stack.validation_queue, stack.solver_queue, stack.winnable_queue, stack.prepare_queue):
        assert value(rf'dailypatience_worker_heartbeat_age_seconds\{{queue="{queue}"\}}') < 60, queue
    validate = r'task="games.validate_submission"'
    assert value(rf'dailypatience_celery_tasks_total\{{state="succeeded",{validate}\}}') >= 2
    assert value(rf"dailypatience_celery_task_duration_seconds_count\{{{validate}\}}") >= 2
    moves_posted = value(
        r'django_http_requests_latency_seconds_by_view_method_count\{method="POST",view="attempt-moves"\}'
    )
    assert moves_posted == sum(-(-n // 40) for n in (len(solution), len(losing)))  # every worker's requests

    # Request ids are echoed (through the proxy), and the logs are JSON lines with request and task ids.
    echoed = request(f"{stack.url}/api/v1/health", headers={"X-Request-ID": "stack-test-1"})
    assert echoed.headers.get("X-Request-ID") == "stack-test-1" and echoed.headers.get("Server") == "nginx"
    proxied = [json.loads(line) for line in stack.log("access").read_text().splitlines()]
    assert any(r["request_id"] == "stack-test-1" and r["status"] == 200 for r in proxied), proxied[-5:]
    # Every line of the web process is JSON (gunicorn's own and its access lines included), and the id the
    # proxy made for a request without one is the id gunicorn and the service saw.
    # (An access line is written once the answer is sent: waited for, not expected at once.)
    wait_for(
        "gunicorn's access line with the request id",
        lambda: any(
            r["logger"] == "gunicorn.access" and r.get("request_id") == "stack-test-1"
            for r in json_lines(stack.log("web"))  # every line parses, or this fails
        ),
        stack,
        "web",
    )
    made = request(f"{stack.url}/api/v1/health").headers.get("X-Request-ID")
    assert made
    wait_for(
        "the proxy's access line with the id it made",
        lambda: any(r["request_id"] == made for r in json_lines(stack.log("access"))),
        stack,
        "web",
    )

    # Static files come from the proxy, compressed, hashed names cached for a year.
    manifest = json.loads((stack.static_root / "staticfiles.json").read_text())["paths"]
    hashed = request(f"{stack.url}/static/{manifest['web/css/site.css']}", headers={"Accept-Encoding": "gzip"})
    assert hashed.status == 200 and hashed.headers.get("Content-Encoding") == "gzip", hashed.headers
    assert hashed.headers.get("Cache-Control") == "public, max-age=31536000, immutable", hashed.headers
    plain = request(f"{stack.url}/static/web/css/site.css")
    assert plain.status == 200 and plain.headers.get("Cache-Control") == "public, max-age=60", plain.headers
    assert b"site.css" not in stack.log("web").read_bytes()  # gunicorn never saw them
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
    for name in ("validation", "solver", "prepare"):
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
    assert {
        "web",
        "worker-validation",
        "worker-solver",
        "worker-winnable",
        "worker-prepare",
        "beat",
        "postgres",
        "redis",
    } <= set(services)
    for name, words in COMMANDS.items():
        command = services[name]["command"]
        command = command if isinstance(command, str) else " ".join(command)
        assert " ".join(words) in command, (name, command)
        assert services[name]["restart"] == "unless-stopped", name
    assert "-Q validation" in services["worker-validation"]["command"]
    assert "-Q solver" in services["worker-solver"]["command"]
    assert "-Q winnable" in services["worker-winnable"]["command"]
    assert "-Q prepare" in services["worker-prepare"]["command"]
    for name in ("web", "worker-validation", "worker-solver", "worker-winnable", "worker-prepare", "postgres", "redis"):
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
    # The schema is migrated once, by the one-off `migrate` that web, the workers and beat wait for.
    assert "manage.py migrate" in services["migrate"]["command"] and "migrate" not in services["web"]["command"]
    for name in ("web", "worker-validation", "worker-solver", "worker-winnable", "worker-prepare", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "config/gunicorn.py" in dockerfile and "PROMETHEUS_MULTIPROC_DIR" in dockerfile

    # The proxy: the official image on the template the stack test renders, in front of a web service
    # that is not published, which counts one proxy.
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:") and proxy["restart"] == "unless-stopped" and "healthcheck" in proxy
    assert "./config/nginx/nginx.conf.template:/etc/nginx/templates/nginx.conf.template:ro" in proxy["volumes"]
    penv = proxy["environment"]
    assert penv["NGINX_ENVSUBST_OUTPUT_DIR"] == "/etc/nginx" and penv["NGINX_ENVSUBST_FILTER"] == "DP_"
    template = (ROOT / "config" / "nginx" / "nginx.conf.template").read_text()
    assert set(re.findall(r"\$\{(\w+)\}", template)) == {k for k in penv if k.startswith("DP_")}
    assert penv["DP_UPSTREAM"] == "web:8000" and "--bind 0.0.0.0:8000" in services["web"]["command"]
    assert f"static:{penv['DP_STATIC_ROOT']}:ro" in proxy["volumes"]
    assert "ports" not in services["web"] and env["DJANGO_NUM_PROXIES"] == "1"
    assert "static:/srv/static" in services["static"]["volumes"] and "/srv/static" in dockerfile


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
