"""``manage.py keep_days_ready`` (run by bin/serve): days stay prepared without beat, with a moved clock."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone
from pytest_django import DjangoCaptureOnCommitCallbacks

from games.models import Attempt, Challenge, Submission
from games.tests.factories import make_challenge, make_user
from solver_worker import services
from solver_worker.management.commands.keep_days_ready import keep_days_ready
from solver_worker.solving import SolveOutcome

pytestmark = pytest.mark.django_db

WINS = json.loads((Path(__file__).parents[2] / "games" / "tests" / "data" / "winning_logs.json").read_text())


@pytest.fixture
def quick_proofs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every seed 'solved' at once; returns the (game, seed) pairs the solver was asked for."""
    asked: list[tuple[str, int]] = []

    def solve(game: str, seed: int, seconds: float) -> SolveOutcome:
        asked.append((game, seed))
        return SolveOutcome("solved", ["w"], 1, 0.0, 1)

    monkeypatch.setattr(services, "default_solver", solve)
    monkeypatch.setattr(services, "_proves_win", lambda game, seed, moves: True)
    return asked


def ready_days() -> set[dt.date]:
    return set(Challenge.objects.filter(status=Challenge.Status.READY).values_list("date", flat=True))


def test_left_running_over_midnight_the_next_day_is_ready_before_it_starts(quick_proofs: list[tuple[str, int]]) -> None:
    clock = [dt.datetime(2026, 12, 1, 23, 45, tzinfo=dt.UTC)]
    ready_before_each_sleep: list[tuple[dt.datetime, set[dt.date]]] = []

    def sleep(seconds: float) -> None:
        ready_before_each_sleep.append((clock[0], ready_days()))
        clock[0] += dt.timedelta(seconds=seconds)

    rounds = keep_days_ready(
        ahead=1, interval=600, rounds=3, games=["klondike"], today=lambda: clock[0].date(), sleep=sleep
    )
    assert rounds == 3 and clock[0] == dt.datetime(2026, 12, 2, 0, 5, tzinfo=dt.UTC)
    first, second = ready_before_each_sleep
    dec1, dec2, dec3 = (dt.date(2026, 12, d) for d in (1, 2, 3))
    assert first == (dt.datetime(2026, 12, 1, 23, 45, tzinfo=dt.UTC), {dec1, dec2})  # tomorrow, before midnight
    assert second[1] == {dec1, dec2}
    assert ready_days() == {dec1, dec2, dec3}  # after midnight the new tomorrow follows
    assert len(quick_proofs) == 3  # each day solved once: a ready day is not prepared again


def test_a_round_that_fails_does_not_stop_the_loop(
    quick_proofs: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"n": 0}
    real = services.challenge_prepare

    def flaky(**kwargs: object) -> Challenge:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("database went away")
        return real(**kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(services, "challenge_prepare", flaky)
    day = dt.date(2026, 12, 1)
    keep_days_ready(ahead=0, interval=1, rounds=2, games=["klondike"], today=lambda: day, sleep=lambda s: None)
    assert ready_days() == {day}


def test_the_loop_also_validates_what_was_left_pending(quick_proofs: list[tuple[str, int]]) -> None:
    seed, log = WINS["klondike"]["seed"], WINS["klondike"]["moves"]
    challenge = make_challenge(seed=seed, solution=log)
    attempt = Attempt.objects.create(
        player=make_user(), challenge=challenge, ranked=True, moves=log, finished_at=timezone.now()
    )
    submission = Submission.objects.create(attempt=attempt, moves=log)  # its task was lost
    Submission.objects.filter(pk=submission.pk).update(created_at=timezone.now() - dt.timedelta(minutes=5))
    keep_days_ready(ahead=0, rounds=1, games=["klondike"], today=lambda: challenge.date, sleep=lambda s: None)
    submission.refresh_from_db()
    assert submission.status == Submission.Status.VALID and submission.validations == 1


def test_the_command_runs_a_bounded_number_of_rounds(
    quick_proofs: list[tuple[str, int]], capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("keep_days_ready", "--rounds", "1", "--ahead", "1", "--games", "klondike", "maria")
    assert len(ready_days()) == 2 and Challenge.objects.filter(status="ready").count() == 4
    assert capsys.readouterr().out.count("ready") == 4


def test_the_loop_submits_ranked_attempts_left_open_after_their_day(
    quick_proofs: list[tuple[str, int]], django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    from games import days

    yesterday = days.today() - dt.timedelta(days=1)
    challenge = make_challenge(day=yesterday, seed=2026)
    attempt = Attempt.objects.create(player=make_user(), challenge=challenge, ranked=True, moves=["s"])
    lines: list[str] = []
    with django_capture_on_commit_callbacks(execute=True):
        keep_days_ready(ahead=0, rounds=1, games=["klondike"], report=lines.append, sleep=lambda s: None)
    attempt.refresh_from_db()
    assert attempt.finished_at is not None and Submission.objects.get(attempt=attempt).status == "valid"
    assert "close-expired-attempts: 1" in lines  # beat's entry, run by the loop


def test_the_loop_deletes_idle_guests_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from games import services as games_services
    from games.models import Guest
    from solver_worker.management.commands import keep_days_ready as command

    with time_machine.travel(timezone.now() - dt.timedelta(days=31), tick=False):
        games_services.guest_create()
    monkeypatch.setattr(command, "keep_days_ready_round", lambda **kwargs: [])
    lines: list[str] = []
    command.keep_days_ready(rounds=1, sleep=lambda s: None, report=lines.append)
    assert "delete-idle-guests: 1" in lines and not Guest.objects.exists()


def test_the_loop_runs_beats_schedule_each_entry_at_its_interval(monkeypatch: pytest.MonkeyPatch) -> None:
    """One schedule: the loop runs every entry of settings.CELERY_BEAT_SCHEDULE but the preparation (which
    it does itself), the first round all of them, then each when its interval has passed."""
    from django.conf import settings

    from solver_worker.management.commands import keep_days_ready as command

    ran: list[str] = []
    monkeypatch.setattr(command, "keep_days_ready_round", lambda **kwargs: [])
    monkeypatch.setattr(command, "task", lambda name: lambda: ran.append(name))
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    command.keep_days_ready(rounds=3, interval=5 * 60, sleep=sleep, clock=lambda: now[0])
    entries: list[dict[str, Any]] = list(settings.CELERY_BEAT_SCHEDULE.values())
    scheduled = {e["task"] for e in entries} - {"solver_worker.prepare_upcoming_days"}
    # The entries due again within a round's 5 minutes (every minute, every 5); the 15-minute and longer
    # ones wait: 10 minutes pass in the three rounds.
    often = [
        e["task"] for e in entries if e["schedule"] <= 5 * 60 and e["task"] != "solver_worker.prepare_upcoming_days"
    ]
    assert {
        "games.resend_pending_submissions",
        "games.close_expired_attempts",
        "solver_worker.review_sweep",
        "habits.send_streak_reminders",
    } <= set(often)
    assert set(ran[: len(scheduled)]) == scheduled  # the first round: every entry
    assert sorted(ran[len(scheduled) :]) == sorted(often * 2)  # then the often ones, at each later round
    assert {"games.calibrate_difficulty", "games.clear_expired_sessions"} <= scheduled
