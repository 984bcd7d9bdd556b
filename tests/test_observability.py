"""Observability: /metrics (access, figures), request ids, JSON logs with request and task ids, Sentry off."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import uuid
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone
from prometheus_client.parser import text_string_to_metric_families
from pytest_django import Settings

from games import days
from games.models import Attempt, Challenge, Submission
from games.tests.factories import make_challenge, make_user
from tests.test_settings import run_python

pytestmark = pytest.mark.django_db


def scrape(client: Client, **headers: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics", **headers)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    samples = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


# --- Access ----------------------------------------------------------------------------------------


def test_metrics_are_not_exposed_outside_debug_without_a_token(settings: Settings) -> None:
    settings.DEBUG, settings.METRICS_TOKEN = False, ""
    response = Client().get("/metrics")
    assert response.status_code == 404
    assert b"METRICS_TOKEN" in response.content


def test_metrics_token_is_required_when_set(settings: Settings) -> None:
    settings.DEBUG, settings.METRICS_TOKEN = False, "s3cret-token"
    client = Client()
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="s3cret-token").status_code == 401
    samples = scrape(client, HTTP_AUTHORIZATION="Bearer s3cret-token")
    assert ("dailypatience_submissions_pending", ()) in samples


def test_metrics_are_open_in_debug(settings: Settings) -> None:
    settings.DEBUG, settings.METRICS_TOKEN = True, ""
    assert Client().get("/metrics").status_code == 200


# --- Figures ---------------------------------------------------------------------------------------


def submission(challenge: Challenge, name: str, *, status: str, made_ago: float, latency: float | None) -> Submission:
    attempt = Attempt.objects.create(player=make_user(name), challenge=challenge, ranked=True, moves=["s"])
    sub = Submission.objects.create(attempt=attempt, moves=["s"], status=status)
    made = timezone.now() - dt.timedelta(seconds=made_ago)
    done = made + dt.timedelta(seconds=latency) if latency is not None else None
    Submission.objects.filter(pk=sub.pk).update(created_at=made, validated_at=done)
    return sub


def test_service_figures_from_the_database(settings: Settings) -> None:
    settings.DEBUG = True
    today = days.today()
    klondike = make_challenge(game="klondike", seed=1, day=today)
    Challenge.objects.filter(pk=klondike.pk).update(solver_seconds=3.5, seeds_tried=2)
    make_challenge(game="klondike", seed=2, day=today + dt.timedelta(days=1))
    make_challenge(game="klondike", seed=3, day=today + dt.timedelta(days=3))  # a gap: not counted
    make_challenge(game="maria", seed=4, day=today + dt.timedelta(days=1))  # not today: 0 days ahead
    make_challenge(game="lucas", seed=5, day=today, status=Challenge.Status.PENDING)
    for i, latency in enumerate([1.0, 2.0, 3.0]):
        submission(klondike, f"valid{i}", status=Submission.Status.VALID, made_ago=60, latency=latency)
    submission(klondike, "old", status=Submission.Status.VALID, made_ago=3600, latency=100.0)  # outside the window
    submission(klondike, "waiting", status=Submission.Status.PENDING, made_ago=30, latency=None)

    s = scrape(Client())
    assert s[("dailypatience_submissions_pending", ())] == 1
    assert 29 <= s[("dailypatience_submission_oldest_pending_seconds", ())] < 600
    assert s[("dailypatience_validations_recent", ())] == 3
    assert s[("dailypatience_validation_latency_seconds", (("quantile", "0.5"),))] == pytest.approx(2.0)
    assert s[("dailypatience_validation_latency_seconds", (("quantile", "max"),))] == pytest.approx(3.0)
    assert s[("dailypatience_days_prepared_ahead", (("game", "klondike"),))] == 2
    assert s[("dailypatience_days_prepared_ahead", (("game", "maria"),))] == 0
    assert s[("dailypatience_days_prepared_ahead", (("game", "lucas"),))] == 0
    assert s[("dailypatience_challenge_solver_seconds", (("days_ahead", "0"), ("game", "klondike")))] == 3.5
    assert s[("dailypatience_challenge_seeds_tried", (("days_ahead", "0"), ("game", "klondike")))] == 2
    assert ("dailypatience_challenge_solver_seconds", (("days_ahead", "0"), ("game", "lucas"))) not in s
    assert ("dailypatience_metrics_scrape_seconds", ()) in s
    # django-prometheus: request latency per view.
    assert any(name == "django_http_requests_latency_seconds_by_view_method_count" for name, _ in s)


@pytest.mark.redis(reason="the broker's queues")
def test_queue_depth_per_celery_queue(settings: Settings) -> None:
    import redis

    settings.DEBUG = True
    run = uuid.uuid4().hex[:10]
    settings.CELERY_QUEUE, settings.CELERY_SOLVER_QUEUE = f"test-metrics-{run}", f"test-metrics-{run}-solver"
    client = redis.Redis.from_url(os.environ["REDIS_URL"], socket_timeout=5)
    try:
        client.rpush(settings.CELERY_QUEUE, "a", "b", "c")
        client.rpush(settings.CELERY_SOLVER_QUEUE + "\x06\x163", "d")  # a priority step of kombu's
        s = scrape(Client())
    finally:
        client.delete(settings.CELERY_QUEUE, settings.CELERY_SOLVER_QUEUE + "\x06\x163")
    assert s[("dailypatience_broker_up", ())] == 1
    assert s[("dailypatience_celery_queue_length", (("queue", settings.CELERY_QUEUE),))] == 3
    assert s[("dailypatience_celery_queue_length", (("queue", settings.CELERY_SOLVER_QUEUE),))] == 1


def test_a_broker_that_is_down_is_a_figure_not_a_failed_scrape(settings: Settings) -> None:
    settings.DEBUG = True
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    s = scrape(Client())
    assert s[("dailypatience_broker_up", ())] == 0
    assert ("dailypatience_submissions_pending", ()) in s


# --- Request ids -----------------------------------------------------------------------------------


def test_request_id_is_honoured_or_made_and_echoed() -> None:
    client = Client()
    assert client.get("/api/v1/health", HTTP_X_REQUEST_ID="edge-7f3a.1:2")["X-Request-ID"] == "edge-7f3a.1:2"
    made = client.get("/api/v1/health")["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert client.get("/api/v1/health")["X-Request-ID"] != made
    for unsafe in ("has spaces", "x" * 129, 'quote"s', "new\\nline"):
        echoed = client.get("/api/v1/health", HTTP_X_REQUEST_ID=unsafe)["X-Request-ID"]
        assert re.fullmatch(r"[0-9a-f]{32}", echoed), unsafe
    # Error answers carry it too.
    assert client.get("/api/v1/nowhere", HTTP_X_REQUEST_ID="req-404")["X-Request-ID"] == "req-404"


def json_lines(stderr: str) -> list[dict[str, object]]:
    lines = [line for line in stderr.splitlines() if line.strip()]
    parsed = []
    for line in lines:
        try:
            parsed.append(json.loads(line))
        except ValueError:
            continue
    return parsed


@pytest.mark.slow
def test_json_logs_carry_the_request_id() -> None:
    code = """
import django
django.setup()
from django.test import Client
Client(HTTP_HOST="127.0.0.1").get("/api/v1/nowhere", HTTP_X_REQUEST_ID="req-42")  # Django logs "Not Found" at WARNING
"""
    result = run_python(code, LOG_FORMAT="json")
    assert result.returncode == 0, result.stderr
    records = json_lines(result.stderr)
    assert records, result.stderr
    hit = [r for r in records if r.get("request_id") == "req-42"]
    assert hit, result.stderr
    assert hit[0]["logger"] == "django.request" and hit[0]["level"] == "WARNING"
    assert "/api/v1/nowhere" in str(hit[0]["message"])
    assert {"ts", "level", "logger", "message"} <= set(hit[0])


@pytest.mark.slow
def test_json_logs_carry_the_task_id() -> None:
    code = """
import logging, django
django.setup()
from config.celery import app

@app.task(name="tests.log_something")
def log_something():
    logging.getLogger("games.tasks").warning("inside the task")

log_something.apply(task_id="task-0007")
logging.getLogger("games.tasks").warning("after the task")
"""
    result = run_python(code, LOG_FORMAT="json")
    assert result.returncode == 0, result.stderr
    records = {r["message"]: r for r in json_lines(result.stderr) if r.get("logger") == "games.tasks"}
    assert records["inside the task"]["task_id"] == "task-0007"
    assert records["inside the task"]["task"] == "tests.log_something"
    assert "task_id" not in records["after the task"]


@pytest.mark.slow
def test_text_logs_name_the_request_and_an_unknown_format_is_refused() -> None:
    code = """
import django
django.setup()
from django.test import Client
Client(HTTP_HOST="127.0.0.1").get("/api/v1/nowhere", HTTP_X_REQUEST_ID="req-43")
"""
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert "[request=req-43]" in result.stderr
    assert not json_lines(result.stderr)
    refused = run_python("import django; django.setup()", LOG_FORMAT="xml")
    assert refused.returncode != 0 and "LOG_FORMAT='xml'" in refused.stderr


# --- Sentry ----------------------------------------------------------------------------------------

SENTRY_STATE = """
import json, django
django.setup()
import sentry_sdk
client = sentry_sdk.get_client()
print(json.dumps({"active": client.is_active(), "dsn": client.dsn, "pii": client.options.get("send_default_pii"),
                  "environment": client.options.get("environment")}))
"""


@pytest.mark.slow
def test_sentry_is_off_by_default() -> None:
    result = run_python(SENTRY_STATE)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["active"] is False


@pytest.mark.slow
def test_sentry_is_configured_by_its_dsn() -> None:
    # Port 9 on 127.0.0.1 (discard): nothing is sent anyway, since no event is raised.
    result = run_python(SENTRY_STATE, SENTRY_DSN="http://public@127.0.0.1:9/1", SENTRY_ENVIRONMENT="staging")
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert state == {"active": True, "dsn": "http://public@127.0.0.1:9/1", "pii": False, "environment": "staging"}
