"""``manage.py prepare_day [DATE] [--games ...]``: make a day's challenges ready (proven winnable)."""

from __future__ import annotations

import datetime as dt
import signal
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from engine import GAME_IDS
from games import days
from solver_worker import services


class Command(BaseCommand):
    help = "Prepare the daily challenges of DATE (default: today): try secret-derived seeds until one is solved."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("date", nargs="?", help="YYYY-MM-DD (default: today in DAILY_TIMEZONE)")
        parser.add_argument("--games", nargs="+", choices=GAME_IDS, default=list(GAME_IDS), metavar="GAME")
        parser.add_argument("--days", type=int, default=1, help="how many days from DATE (default 1)")
        parser.add_argument("--seconds", type=float, default=10.0, help="solver budget per seed (default 10)")
        parser.add_argument("--max-seeds", type=int, default=20, help="seeds to try per game (default 20)")

    def handle(self, *args: Any, **options: Any) -> None:
        # SIGTERM (bin/serve stopping) unwinds like Ctrl-C: a challenge being prepared is given back at once.
        signal.signal(signal.SIGTERM, _exit)
        try:
            first = dt.date.fromisoformat(options["date"]) if options["date"] else days.today()
        except ValueError:
            raise CommandError(f"{options['date']!r} is not a date: write it as YYYY-MM-DD") from None
        if options["days"] < 1 or options["seconds"] <= 0 or options["max_seeds"] < 1:
            raise CommandError("--days, --seconds and --max-seeds must be positive")
        failed = 0
        for day, game in services.days_and_games(first=first, count=options["days"], games=options["games"]):
            challenge = services.challenge_prepare(
                day=day, game=game, seconds=options["seconds"], max_seeds=options["max_seeds"]
            )
            line = f"{day} {game:<16} {challenge.status}"
            if challenge.status == challenge.Status.VERIFYING:
                self.stdout.write(f"{line}: being prepared by another process")
                continue
            if challenge.status == challenge.Status.READY:
                line += (
                    f" (difficulty {challenge.difficulty}, {len(challenge.solution)} moves, "
                    f"seed #{challenge.seeds_tried})"
                )
                self.stdout.write(self.style.SUCCESS(line))
            else:
                failed += 1
                self.stdout.write(self.style.ERROR(f"{line}: {challenge.failure}"))
        if failed:
            raise CommandError(f"{failed} challenge(s) could not be prepared")


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(0)
