"""A Celery task by its stable name, for a service that sends a task of its own app.

A task's module imports the services it calls; a service that sends that task would import the
task's module back, a circle. So the service looks the task up by name in the Celery app's registry
(task names are explicit and stable, STYLE.md), and loads every app's ``tasks`` module on first
use. The task object found is the real one: ``task_always_eager`` (tests, the embedded defaults)
runs it in process exactly as an imported one.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, current_app
from django.db import OperationalError
from kombu.exceptions import OperationalError as KombuOperationalError
from redis import RedisError

from core.circuit import BROKER

logger = logging.getLogger(__name__)

# The options of a task whose work is an idempotent write to PostgreSQL (a unique row per job): it is
# acknowledged only once done, sent again when its worker dies under it, and retried with backoff, a few
# times, when the database is briefly unreachable. ``@shared_task(name=..., **DURABLE, soft_time_limit=...)``.
DURABLE: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "max_retries": 5,
}


def task(name: str) -> Task:
    """The registered task called ``name``; celery.exceptions.NotRegistered for a name no app defines."""
    tasks = current_app.tasks
    if name not in tasks:
        # A worker has imported every app's tasks module when it starts; a web process does it here,
        # once (the app's autodiscovery runs on this signal).
        current_app.loader.import_default_modules()
    return tasks[name]


def send(name: str, *, args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None, **options: Any) -> bool:
    """Send the task ``name`` without ever waiting on a broker that is down: no publish retries, no result
    kept, and while ``core.circuit.BROKER`` is open not even a try. False when it was not sent (the broker
    known down, or failing now: the breaker trips); the caller takes its fallback. Under
    ``task_always_eager`` the task runs here, and what it raises reaches the caller."""
    if BROKER.is_open():
        return False
    try:
        task(name).apply_async(args=args, kwargs=kwargs, retry=False, ignore_result=True, **options)
    except (KombuOperationalError, RedisError, OSError) as exc:
        BROKER.trip(exc)
        logger.warning("could not send the task %s (%s)", name, exc)
        return False
    return True
