"""Celery tasks of game reviews and the still-winnable light: thin wrappers over the services, by plain values.

Their names keep the ``solver_worker.`` prefix they were first sent under, when that app held them: a
task's name is what a message in the broker, beat's schedule and a process of the previous release carry
(a web process of the previous release sends ``solver_worker.review_attempt``; a worker of it runs only
that name), so it stays as it is when the task's module moves (STYLE.md: names explicit and stable).
Their queues follow from the names (``CELERY_TASK_ROUTES`` in config/settings.py).
"""

from __future__ import annotations

from celery import shared_task

from core.tasks import DURABLE
from reviews import services, winnable


@shared_task(
    name="solver_worker.review_attempt",
    **DURABLE,
    soft_time_limit=120,
    time_limit=150,
)
def review_attempt(attempt_id: int) -> str:
    """Review a finished attempt of a day that is over (reviews.models.GameReview), by attempt id.
    Idempotent: a review done is left as it is; nothing is stored for an attempt not due."""
    review = services.review_make(attempt_id=attempt_id)
    return "not_due" if review is None else str(review.status)


@shared_task(name="solver_worker.review_sweep", soft_time_limit=60, time_limit=90)
def review_sweep(limit: int | None = None) -> int:
    """Beat: queue the reviews of the finished attempts of the days that are over."""
    return services.reviews_sweep(limit=limit)


@shared_task(name="solver_worker.winnable_position", acks_late=False, soft_time_limit=20, time_limit=30)
def winnable_position(attempt_id: int, moves: int) -> str:
    """The still-winnable light (reviews.winnable): the verdict on a practice attempt's position after
    its first ``moves`` log entries, into the cache the API reads. Not acknowledged late: a task lost with
    its worker is sent again by the player's next ask, and a stale one is worth nothing."""
    verdict = winnable.winnable_make(attempt_id=attempt_id, moves=moves)
    return "not_eligible" if verdict is None else verdict.state
