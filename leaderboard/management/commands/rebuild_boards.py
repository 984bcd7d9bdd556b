"""``manage.py rebuild_boards [--date DATE ...] [--all]``: rebuild the Redis boards from PostgreSQL.

PostgreSQL holds every result; Redis only mirrors the boards. After a Redis restore, a flush, a
move to another Redis or a change of ``LEADERBOARD_REDIS_PREFIX``, this writes every board again at
once instead of letting each be rebuilt on its first read. Each board is replaced atomically
(``leaderboard.services.leaderboard_rebuild``), so it is safe while the service runs.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import days
from games.models import Challenge
from leaderboard import redis_store
from leaderboard.selectors.boards import leaderboard_results
from leaderboard.services import leaderboard_rebuild


class Command(BaseCommand):
    help = (
        "Rebuild the Redis leaderboards from PostgreSQL: by default every challenge of the days a board "
        "lives in Redis (LEADERBOARD_REDIS_TTL, 8 days) up to tomorrow; --date for given days, --all for every one."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--date", action="append", default=[], metavar="YYYY-MM-DD", help="a day (repeatable)")
        parser.add_argument("--all", action="store_true", help="every challenge ever published")

    def handle(self, *args: Any, **options: Any) -> None:
        if redis_store.get_client() is None:
            raise CommandError("REDIS_URL is not set: there are no Redis boards to rebuild")
        challenges = Challenge.objects.exclude(seed__isnull=True).order_by("date", "game")
        if options["date"]:
            try:
                dates = [dt.date.fromisoformat(d) for d in options["date"]]
            except ValueError as exc:
                raise CommandError(f"{exc}: write dates as YYYY-MM-DD") from None
            challenges = challenges.filter(date__in=dates)
        elif not options["all"]:
            today = days.today()
            kept = math.ceil(redis_store.ttl_seconds() / 86400)
            challenges = challenges.filter(date__gte=today - dt.timedelta(days=kept), date__lte=today + dt.timedelta(1))
        rebuilt = failed = 0
        for challenge in challenges:
            ok = leaderboard_rebuild(challenge_id=challenge.pk)
            entries = leaderboard_results(challenge=challenge).count()
            if ok:
                rebuilt += 1
                self.stdout.write(f"{challenge.date} {challenge.game:<16} {entries} entries")
            else:
                failed += 1
                self.stdout.write(self.style.ERROR(f"{challenge.date} {challenge.game:<16} FAILED"))
        self.stdout.write(self.style.SUCCESS(f"{rebuilt} board(s) rebuilt") if not failed else f"{rebuilt} rebuilt")
        if failed:
            raise CommandError(f"{failed} board(s) could not be rebuilt (is Redis up?)")
