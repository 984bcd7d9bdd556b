"""``manage.py keep_days_ready``: a loop that keeps today and the coming days prepared, and nothing pending.

What beat does in production (solver_worker.prepare_upcoming_days, games.resend_pending_submissions,
games.close_expired_attempts, games.delete_idle_guests, solver_worker.review_sweep: with tasks in
process, the reviews are made in the round, so bin/serve has them within a round of the day's end),
for a deployment without beat: ``bin/serve`` runs it beside the development server, so a service
left running over midnight has the next day ready before the day starts (it is prepared a day
ahead, then kept so). Safe beside beat and workers: preparing a day is idempotent under
concurrency (solver_worker.services.challenge_prepare).
"""

from __future__ import annotations

import datetime as dt
import logging
import signal
import time
from collections.abc import Callable
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from engine import GAME_IDS
from games import days, services
from games.models import Challenge
from solver_worker import reviews
from solver_worker import services as preparation

logger = logging.getLogger(__name__)


def keep_days_ready_round(
    *,
    today: dt.date,
    ahead: int,
    seconds: float,
    max_seeds: int,
    games: list[str] | None = None,
    solver: preparation.Solver | None = None,
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
    solver: preparation.Solver | None = None,
    report: Callable[[str], None] = logger.info,
) -> int:
    """Run rounds every ``interval`` seconds (``rounds`` of them, or for ever); returns the rounds run.

    The clock (``today``) and ``sleep`` are injected so that tests can move time. A round that
    fails (database briefly down) is reported and the loop goes on.
    """
    done = 0
    while rounds is None or done < rounds:
        day = today()
        try:
            for challenge in keep_days_ready_round(
                today=day, ahead=ahead, seconds=seconds, max_seeds=max_seeds, games=games, solver=solver
            ):
                report(f"{challenge.date} {challenge.game:<16} {challenge.status} {challenge.failure}".rstrip())
            resent = services.submissions_resend_pending()
            if resent:
                report(f"{resent} pending submission(s) sent again")
            closed = services.attempts_close_expired()
            if closed:
                report(f"{closed} ranked attempt(s) left open after their day submitted as they stood")
            queued = reviews.reviews_sweep()
            if queued:
                report(f"{queued} finished game(s) of the days that are over sent for review")
            guests = services.guests_delete_idle()
            if guests:
                report(f"{guests} idle guest(s) deleted")
        except Exception:
            logger.exception("keep_days_ready: this round failed; trying again in %s s", interval)
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
