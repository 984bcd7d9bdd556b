"""``manage.py keep_days_ready``: a loop that keeps today and the coming days prepared, and runs beat's schedule.

What beat does in production, for a deployment without beat: ``bin/serve`` runs it beside the
development server. Each round prepares every challenge from today to ``--ahead`` days after it that
is not ready yet (in this process, with this command's solver budget), then runs every other entry of
beat's schedule (``settings.CELERY_BEAT_SCHEDULE``: the one list of periodic jobs) that is due by
its own interval, in this process: the first round runs them all. So a service left running over
midnight has the next day ready before the day starts (it is prepared a day ahead, then kept so).
Safe beside beat and workers: preparing a day is idempotent under concurrency
(solver_worker.services.challenge_prepare), and so is every scheduled task.
"""

from __future__ import annotations

import datetime as dt
import logging
import signal
import time
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.tasks import task
from engine import GAME_IDS
from games import days
from games.models import Challenge
from solver_worker import services as preparation
from solver_worker.solving import Solver
from solver_worker.tasks import prepare_upcoming_days

logger = logging.getLogger(__name__)


def scheduled_jobs() -> list[tuple[str, str, float]]:
    """Beat's entries but the days' preparation (the loop prepares itself): (entry, task, seconds between runs)."""
    jobs = []
    for entry, spec in settings.CELERY_BEAT_SCHEDULE.items():
        every = spec["schedule"]
        every = every.total_seconds() if isinstance(every, dt.timedelta) else every
        if spec["task"] != prepare_upcoming_days.name:
            assert isinstance(every, int | float), f"{entry}: keep_days_ready runs interval entries only"
            jobs.append((entry, str(spec["task"]), float(every)))
    return jobs


def keep_days_ready_round(
    *,
    today: dt.date,
    ahead: int,
    seconds: float,
    max_seeds: int,
    games: list[str] | None = None,
    solver: Solver | None = None,
) -> list[Challenge]:
    """One pass: every challenge from ``today`` to ``today + ahead`` not ready yet is prepared (or goes on)."""
    return [
        preparation.challenge_prepare(day=day, game=game, seconds=seconds, max_seeds=max_seeds, solver=solver)
        for day, game in preparation.challenges_to_prepare(first=today, count=ahead + 1, games=games or GAME_IDS)
    ]


def keep_days_ready(
    *,
    ahead: int = 1,
    interval: float = 600.0,
    seconds: float = 10.0,
    max_seeds: int = 20,
    rounds: int | None = None,
    games: list[str] | None = None,
    today: Callable[[], dt.date] = days.today,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    solver: Solver | None = None,
    report: Callable[[str], None] = logger.info,
) -> int:
    """Run rounds every ``interval`` seconds (``rounds`` of them, or for ever); returns the rounds run.

    The day (``today``), ``sleep`` and the ``clock`` that says when a scheduled job is due again are
    injected so that tests can move time. A step that fails (database briefly down) is reported and the
    loop goes on with the next one.
    """
    done = 0
    last_run: dict[str, float] = {}
    while rounds is None or done < rounds:
        day = today()
        try:
            for challenge in keep_days_ready_round(
                today=day, ahead=ahead, seconds=seconds, max_seeds=max_seeds, games=games, solver=solver
            ):
                report(f"{challenge.date} {challenge.game:<16} {challenge.status} {challenge.failure}".rstrip())
        except Exception:
            logger.exception("keep_days_ready: preparing the days failed this round; trying again in %s s", interval)
        for entry, name, every in scheduled_jobs():
            if entry in last_run and clock() - last_run[entry] < every:
                continue
            last_run[entry] = clock()
            try:
                outcome = task(name)()
            except Exception:
                logger.exception("keep_days_ready: %s (%s) failed this round", entry, name)
                continue
            if outcome:
                report(f"{entry}: {outcome}")
        done += 1
        if rounds is None or done < rounds:
            sleep(interval)
    return done


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(0)


class Command(BaseCommand):
    help = "Keep today and the next --ahead days prepared (proven winnable), checking every --interval seconds."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--ahead", type=int, default=1, help="days after today to keep ready (default 1)")
        parser.add_argument("--interval", type=float, default=600.0, help="seconds between rounds (default 600)")
        parser.add_argument("--seconds", type=float, default=10.0, help="solver budget per seed (default 10)")
        parser.add_argument("--max-seeds", type=int, default=20, help="seeds to try per game and round (default 20)")
        parser.add_argument("--rounds", type=int, default=None, help="stop after this many rounds (default: never)")
        parser.add_argument("--games", nargs="+", choices=GAME_IDS, default=list(GAME_IDS), metavar="GAME")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["ahead"] < 0 or options["interval"] <= 0 or options["seconds"] <= 0 or options["max_seeds"] < 1:
            raise CommandError("--ahead must be >= 0; --interval, --seconds and --max-seeds positive")
        if options["rounds"] is not None and options["rounds"] < 1:
            raise CommandError("--rounds must be positive")
        # SIGTERM (bin/serve stopping) unwinds like Ctrl-C: a challenge being prepared is given back at once.
        signal.signal(signal.SIGTERM, _exit)
        keep_days_ready(
            ahead=options["ahead"],
            interval=options["interval"],
            seconds=options["seconds"],
            max_seeds=options["max_seeds"],
            rounds=options["rounds"],
            games=options["games"],
            report=lambda line: self.stdout.write(line),
        )
