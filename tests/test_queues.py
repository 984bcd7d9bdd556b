"""Solver jobs and validations have queues of their own, named by the environment.

Run in a fresh interpreter, as tests/test_settings.py does, so the environment is controlled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.test_settings import BASE_DIR, SETTINGS_VARS

pytestmark = pytest.mark.slow  # each test starts a Python process

ROUTES = """
import json, django
django.setup()
from celery.signals import beat_init, worker_ready
from config.celery import app, prepare_days_on_beat_start, resend_pending_on_start
app.loader.import_default_modules()
names = ["games.validate_submission", "games.resend_pending_submissions", "games.close_expired_attempts",
         "solver_worker.prepare_upcoming_days",
         "solver_worker.prepare_challenge", "solver_worker.verify_seed", "solver_worker.solve_seed",
         "solver_worker.long_solve_seed",
         "solver_worker.review_sweep", "solver_worker.review_attempt", "games.delete_idle_guests",
         "solver_worker.winnable_position", "web.send_password_reset", "games.calibrate_difficulty",
         "games.clear_expired_sessions", "solver_worker.check_challenges", "leaderboard.repair_boards",
         "ratings.rate_closed_days", "habits.send_streak_reminders"]
print(json.dumps({
    "routes": {n: app.amqp.router.route({}, n)["queue"].name for n in names},
    "registered": [n for n in names if n in app.tasks],
    "modules": {n: app.tasks[n].__module__ for n in names if n in app.tasks},
    "consumed": sorted(app.amqp.queues),
    "beat": sorted(entry["task"] for entry in app.conf.beat_schedule.values()),
    "on_worker_ready": any(r() is resend_pending_on_start for _, r in worker_ready.receivers),
    "on_beat_init": any(r() is prepare_days_on_beat_start for _, r in beat_init.receivers),
}))
"""


def routes(**env_vars: str) -> dict[str, object]:
    unset = (*SETTINGS_VARS, "CELERY_QUEUE", "CELERY_SOLVER_QUEUE", "CELERY_WINNABLE_QUEUE", "CELERY_PREPARE_QUEUE")
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DJANGO_DEBUG="true",
        REDIS_URL="redis://cache.example:6379/3",
        **env_vars,
    )
    result = subprocess.run(
        [sys.executable, "-c", ROUTES], cwd=BASE_DIR, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    routes: dict[str, object] = json.loads(result.stdout.strip().splitlines()[-1])
    return routes


def test_solver_work_and_validations_go_to_separate_queues() -> None:
    s = routes()
    assert s["routes"] == {
        "games.validate_submission": "validation",
        "games.resend_pending_submissions": "validation",
        "games.close_expired_attempts": "validation",
        "solver_worker.prepare_upcoming_days": "validation",  # quick: it only sends the solver's tasks
        "solver_worker.prepare_challenge": "prepare",  # never behind reviews or anything a player sends
        "solver_worker.verify_seed": "solver",
        "solver_worker.solve_seed": "solver",
        "solver_worker.long_solve_seed": "solver",  # minutes of solver for a drawn seed left undecided
        "solver_worker.review_sweep": "validation",  # quick: it only queues the reviews
        "solver_worker.review_attempt": "solver",  # a burst of reviews after midnight never holds up validations
        "games.delete_idle_guests": "validation",
        # the still-winnable light: a player waits on it, so neither behind reviews nor in front of results
        "solver_worker.winnable_position": "winnable",
        "web.send_password_reset": "validation",  # quick: one mail
        "games.calibrate_difficulty": "validation",  # a fit on the days over: seconds
        "games.clear_expired_sessions": "validation",
        "solver_worker.check_challenges": "solver",  # replays: CPU, beside the solver's work
        "leaderboard.repair_boards": "validation",  # quick: a few boards rebuilt from PostgreSQL
        "ratings.rate_closed_days": "validation",  # a day of 10,000 players in 7 s; a sweep starts none after 120 s
        "habits.send_streak_reminders": "validation",  # the reminders due: a few mails
    }
    assert len(s["registered"]) == 19  # type: ignore[arg-type]
    # Each app's tasks in its own tasks module, under their names (the reviews' kept from solver_worker).
    assert s["modules"] == {
        name: "reviews.tasks"
        if name in ("solver_worker.review_sweep", "solver_worker.review_attempt", "solver_worker.winnable_position")
        else f"{name.split('.')[0]}.tasks"
        for name in s["routes"]
    }
    assert s["consumed"] == ["prepare", "solver", "validation", "winnable"]  # a worker without -Q does all four
    assert s["beat"] == [
        "games.calibrate_difficulty",
        "games.clear_expired_sessions",
        "games.close_expired_attempts",
        "games.delete_idle_guests",
        "games.resend_pending_submissions",
        "habits.send_streak_reminders",
        "leaderboard.repair_boards",
        "ratings.rate_closed_days",
        "solver_worker.check_challenges",
        "solver_worker.prepare_upcoming_days",
        "solver_worker.review_sweep",
    ]
    assert s["on_worker_ready"] is True
    assert s["on_beat_init"] is True  # beat's start prepares the coming days at once


def test_queue_names_come_from_the_environment() -> None:
    s = routes(
        CELERY_QUEUE="v-test",
        CELERY_SOLVER_QUEUE="s-test",
        CELERY_WINNABLE_QUEUE="w-test",
        CELERY_PREPARE_QUEUE="p-test",
    )
    assert s["routes"]["games.validate_submission"] == "v-test"  # type: ignore[index]
    assert s["routes"]["solver_worker.prepare_challenge"] == "p-test"  # type: ignore[index]
    assert s["routes"]["solver_worker.review_attempt"] == "s-test"  # type: ignore[index]
    assert s["routes"]["solver_worker.winnable_position"] == "w-test"  # type: ignore[index]
    assert s["consumed"] == ["p-test", "s-test", "v-test", "w-test"]
