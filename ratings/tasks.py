"""Celery tasks of the ratings app: thin; the service is idempotent (a unique row per rated day)."""

from __future__ import annotations

from celery import shared_task

from ratings import services


@shared_task(
    name="ratings.rate_closed_days", acks_late=True, reject_on_worker_lost=True, soft_time_limit=240, time_limit=300
)
def rate_closed_days() -> int:
    """Beat, every 15 minutes: every game's closed days not rated yet, in order (ratings.services)."""
    return services.ratings_rate_closed_days()
