"""Celery tasks of the games app: thin, by id, idempotent (the service checks the row's status)."""

from __future__ import annotations

import datetime as dt

from celery import shared_task

from core.tasks import DURABLE
from games import services
from games.models import Submission
from games.services.calibration import difficulty_calibrate


@shared_task(
    name="games.validate_submission",
    **DURABLE,
    soft_time_limit=60,
    time_limit=90,
)
def validate_submission(submission_id: int) -> str:
    try:
        return str(services.submission_validate(submission_id=submission_id).status)
    except Submission.DoesNotExist:
        return "gone"  # its player was deleted in the meantime (accounts.services.player_delete), games and all


@shared_task(name="games.resend_pending_submissions", soft_time_limit=60, time_limit=90)
def resend_pending_submissions(older_than_seconds: float = 60.0) -> int:
    """Beat, every minute, for what a broker outage or a publish that timed out left behind (pending for
    a minute: longer than a burst's queue takes to drain, so a queued one is rarely sent twice); every
    worker's start, with 0."""
    return services.submissions_resend_pending(older_than=dt.timedelta(seconds=older_than_seconds))


@shared_task(name="games.close_expired_attempts", soft_time_limit=60, time_limit=90)
def close_expired_attempts() -> int:
    return services.attempts_close_expired()


@shared_task(name="games.delete_idle_guests", soft_time_limit=300, time_limit=360)
def delete_idle_guests() -> int:
    """Beat, daily: guests idle for GUEST_KEEP_DAYS days (games.services.guests)."""
    return services.guests_delete_idle()


@shared_task(name="games.calibrate_difficulty", soft_time_limit=240, time_limit=300)
def calibrate_difficulty() -> str:
    """Beat, every 6 hours: the difficulty model fitted on the days over (games.services.calibration)."""
    return difficulty_calibrate()


@shared_task(name="games.clear_expired_sessions", soft_time_limit=240, time_limit=300)
def clear_expired_sessions() -> None:
    """Beat, daily: expired sessions deleted (manage.py clearsessions)."""
    services.sessions_clear_expired()
