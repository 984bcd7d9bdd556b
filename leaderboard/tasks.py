"""Celery tasks of the leaderboard app: thin, idempotent."""

from __future__ import annotations

from celery import shared_task

from leaderboard import services


@shared_task(name="leaderboard.repair_boards", soft_time_limit=60, time_limit=90)
def repair_boards() -> int:
    """Beat, every minute: the Redis boards marked for a rebuild (a ban or a deletion met Redis down, or
    the process ended between the commit and the rebuild). Returns how many are still not repaired."""
    return len(services.leaderboard_boards_repair_pending())
