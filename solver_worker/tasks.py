"""Celery tasks that prepare days (long solves included), verify seeds, solve a study's deals and check the
days ready: thin wrappers over the services, by plain values. (The tasks of game reviews and the
still-winnable light are reviews.tasks.)"""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.conf import settings

from games import days
from solver_worker import services
from study.rows import solve_row


@shared_task(name="solver_worker.prepare_challenge", acks_late=True, soft_time_limit=900, time_limit=960)
def prepare_challenge(day: str, game: str) -> str:
    """Idempotent: a ready challenge is left as it is; a half-done one goes on from its last seed."""
    challenge = services.challenge_prepare(
        day=dt.date.fromisoformat(day),
        game=game,
        seconds=settings.SOLVER_SECONDS,
        max_seeds=settings.SOLVER_MAX_SEEDS,
        long_seconds=settings.SOLVER_LONG_SECONDS,
        long_ahead_days=settings.SOLVER_LONG_AHEAD_DAYS,
    )
    return str(challenge.status)


@shared_task(name="solver_worker.long_solve_seed", acks_late=True, soft_time_limit=960, time_limit=1020)
def long_solve_seed(challenge_id: int, attempt: int) -> str:
    """A drawn seed the ordinary budget left undecided, solved with SOLVER_LONG_SECONDS (at most 15 min):
    the day is made ready with it, or the preparation goes on. Idempotent (services.challenge_long_solve)."""
    challenge = services.challenge_long_solve(
        challenge_id=challenge_id, attempt=attempt, seconds=settings.SOLVER_LONG_SECONDS
    )
    return str(challenge.status)


@shared_task(name="solver_worker.prepare_upcoming_days", soft_time_limit=60, time_limit=90)
def prepare_upcoming_days(ahead: int | None = None) -> int:
    """Keep today and the next ``ahead`` days (default PREPARE_AHEAD_DAYS) ready: send one task per
    challenge not ready yet. Beat, hourly, and at beat's start (config/celery.py)."""
    ahead = settings.PREPARE_AHEAD_DAYS if ahead is None else ahead
    sent = 0
    for day, game in services.challenges_to_prepare(first=days.today(), count=ahead + 1):
        prepare_challenge.delay(day.isoformat(), game)
        sent += 1
    return sent


@shared_task(name="solver_worker.verify_seed", acks_late=True, soft_time_limit=120, time_limit=150)
def verify_seed(verification_id: int) -> str:
    """An admin's seed verification (games.models.SeedVerification), by id: its status shows in the admin."""
    return str(services.seed_verification_run(verification_id=verification_id, seconds=30.0).status)


@shared_task(name="solver_worker.solve_seed", acks_late=True, soft_time_limit=3600, time_limit=3660)
def solve_seed(game: str, seed: int, seconds: float, max_nodes: int | None = None) -> dict[str, object]:
    """One deal of a winnability study, its row (study.rows.solve_row): manage.py study_on_workers."""
    return solve_row(game, seed, seconds, max_nodes)


@shared_task(name="solver_worker.check_challenges", soft_time_limit=240, time_limit=300)
def check_challenges() -> int:
    """Beat, hourly: every upcoming ready challenge's solution replayed (services.challenges_check); how many fail."""
    return len(services.challenges_check())
