"""The Celery application "dailypatience".

Configured from Django settings (keys prefixed CELERY_). Without REDIS_URL the
settings make every task run eagerly in the calling process.
"""

import logging
import os
from typing import Any

from celery import Celery
from celery.signals import beat_init, worker_ready

from config import monitoring
from config.logs import connect_celery_signals

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

connect_celery_signals()  # task ids in task logs; the worker logs through Django's LOGGING

app = Celery("dailypatience")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# Task counts and durations from every process that runs tasks; each worker's heartbeat (config/monitoring.py).
monitoring.connect(app)

logger = logging.getLogger(__name__)


@worker_ready.connect
def resend_pending_on_start(sender: Any = None, **kwargs: Any) -> None:
    """A worker that starts sends again every submission still pending, whatever its age.

    The task of a submission whose worker died (SIGKILL, out of memory, a lost host) stays
    unacknowledged in Redis until the broker's visibility timeout (an hour); a worker starting
    again is the moment to recover it, without waiting for beat. Sending one twice is harmless:
    ``submission_validate`` locks the row and validates only a pending one.
    """
    try:
        app.send_task("games.resend_pending_submissions", kwargs={"older_than_seconds": 0})
    except Exception:  # the beat sweep is the second line: a worker still starts
        logger.exception("could not send the pending submissions again on worker start")


@beat_init.connect
def prepare_days_on_beat_start(sender: Any = None, **kwargs: Any) -> None:
    """Beat's start prepares the coming days at once (``solver_worker.prepare_upcoming_days``).

    An interval entry first fires one interval after beat starts with a new schedule file (a first
    deploy, a lost volume): without this, a fresh deployment has no day ready for an hour. Sending it
    at every start is harmless: it sends a task only for a challenge neither ready nor being prepared.
    """
    try:
        app.send_task("solver_worker.prepare_upcoming_days")
    except Exception:  # the hourly entry is the second line: beat still starts
        logger.exception("could not send the preparation of the coming days on beat start")
