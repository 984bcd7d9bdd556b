"""How fair the daily draws were: per game, the secret-derived seeds skipped before each published one.

A daily deal should be a fair draw from the winnable deals. Seeds proven lost are rightly skipped;
seeds the solver left undecided are skipped too, and that biases the draw towards the deals the
solver finds easy. This reports, over the prepared days of a period, the share of drawn seeds
skipped as unknown (the figure to keep under 5%) beside those skipped as lost.

    manage.py skipped_seeds [--days 30] [--until YYYY-MM-DD]
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count, Sum

from engine import GAME_IDS
from games import days
from games.models import Challenge


class Command(BaseCommand):
    help = "Per game: seeds drawn, skipped as proven lost and as unknown, over the prepared days of a period."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=30, help="days back from --until (default 30)")
        parser.add_argument("--until", default=None, help="last day, YYYY-MM-DD (default: today)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            until = days.parse_day(options["until"]) if options["until"] else days.today()
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        if options["days"] < 1:
            raise CommandError("--days is at least 1")
        since = until - dt.timedelta(days=options["days"] - 1)
        rows = (
            Challenge.objects.filter(
                date__gte=since, date__lte=until, status__in=[Challenge.Status.READY, Challenge.Status.FAILED]
            )
            .values("game")
            .annotate(days=Count("id"), drawn=Sum("seeds_tried"), lost=Sum("seeds_lost"), unknown=Sum("seeds_unknown"))
        )
        by_game = {row["game"]: row for row in rows}
        self.stdout.write(f"prepared days {since} .. {until}")
        self.stdout.write(f"{'game':<16}{'days':>6}{'drawn':>7}{'lost':>6}{'unknown':>9}{'unknown %':>11}")
        for game in GAME_IDS:
            row = by_game.get(game)
            if row is None:
                self.stdout.write(f"{game:<16}{0:>6}{'-':>7}{'-':>6}{'-':>9}{'-':>11}")
                continue
            drawn = row["drawn"] or 0
            share = 100 * (row["unknown"] or 0) / drawn if drawn else 0.0
            self.stdout.write(
                f"{game:<16}{row['days']:>6}{drawn:>7}{row['lost'] or 0:>6}{row['unknown'] or 0:>9}{share:>10.1f}%"
            )
