"""Celery tasks of the habits app (thin: the service does the work)."""

from __future__ import annotations

from celery import shared_task

from habits import services


@shared_task(name="habits.send_streak_reminders", soft_time_limit=240, time_limit=300, ignore_result=True)
def send_streak_reminders() -> int:
    return services.reminders_send()
