"""Player statistics, derived from validated results (games.Result is the source of truth)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models


class PlayerStats(models.Model):
    """A player's counters, recomputed from Result rows (never incremented).

    Definitions (see ``leaderboard.services.player_stats_recompute``):

    - ``played``: the player's ranked results of valid submissions that are not
      disqualified, in any game (assisted ones included).
    - ``won``: those of them that were won.
    - A *winning date* is a challenge date (the challenge's own date, not the
      finish time) on which the player has at least one ranked, not
      disqualified, won result, in any game.
    - ``best_streak``: the longest run of consecutive winning dates.
    - ``current_streak``: the run of consecutive winning dates ending at the
      latest winning date (``last_won_date``); 0 when that date is before
      yesterday relative to "today" (the day of the recompute). It decays as
      days pass without a recompute: read it with :meth:`current_streak_on`.
    - ``last_played_date`` / ``last_won_date``: the latest challenge date with
      a counted result / with a winning one.
    """

    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="stats")
    played = models.PositiveIntegerField(default=0, db_default=0)
    won = models.PositiveIntegerField(default=0, db_default=0)
    current_streak = models.PositiveIntegerField(default=0, db_default=0)
    best_streak = models.PositiveIntegerField(default=0, db_default=0)
    last_played_date = models.DateField(null=True, blank=True)
    last_won_date = models.DateField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "player statistics"
        verbose_name_plural = "player statistics"

    def __str__(self) -> str:
        return f"stats of {self.player_id}: {self.won}/{self.played}"

    def current_streak_on(self, today: dt.date) -> int:
        """The current streak as of ``today``: 0 once the last winning date is before yesterday."""
        if self.last_won_date is None or self.last_won_date < today - dt.timedelta(days=1):
            return 0
        return self.current_streak


class BoardRepair(models.Model):
    """A challenge whose Redis board is to be rebuilt from PostgreSQL: written in the transaction that
    changed its board behind the mirror's back (a player banned, unbanned or deleted), deleted once the
    board is rebuilt (``services.leaderboard_boards_repair``). Redis down, or the process gone between
    the commit and the rebuild, leaves the row for beat's ``leaderboard.repair_boards`` (every minute)."""

    challenge = models.OneToOneField("games.Challenge", on_delete=models.CASCADE, related_name="+")
    marked_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"board of challenge {self.challenge_id} to repair"
