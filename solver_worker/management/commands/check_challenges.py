"""``manage.py check_challenges``: every ready challenge from today on, its solution replayed by the engine.

Exits 1 and names each challenge whose stored solution does not win its deal (solver_worker.services.
challenges_check: what beat runs hourly, and what ``dailypatience_challenges_broken`` counts).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import days
from solver_worker import services


class Command(BaseCommand):
    help = "Replay every ready challenge's solution from today on; exit 1 if one does not win its deal."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--from", dest="first", help="YYYY-MM-DD (default: today in DAILY_TIMEZONE)")

    def handle(self, *args: Any, **options: Any) -> None:
        first = days.parse_day(options["first"]) if options["first"] else days.today()
        problems = services.challenges_check(first=first)
        if problems:
            raise CommandError("\n".join(problems))
        self.stdout.write(f"every ready challenge from {first} on wins its deal with its stored solution")
