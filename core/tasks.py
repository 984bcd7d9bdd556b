"""A Celery task by its stable name, for a service that sends a task of its own app.

A task's module imports the services it calls; a service that sends that task would import the
task's module back, a circle. So the service looks the task up by name in the Celery app's registry
(task names are explicit and stable, STYLE.md), and loads every app's ``tasks`` module on first
use. The task object found is the real one: ``task_always_eager`` (tests, the embedded defaults)
runs it in process exactly as an imported one.
"""

from __future__ import annotations

from celery import Task, current_app


def task(name: str) -> Task:
    """The registered task called ``name``; celery.exceptions.NotRegistered for a name no app defines."""
    tasks = current_app.tasks
    if name not in tasks:
        # A worker has imported every app's tasks module when it starts; a web process does it here,
        # once (the app's autodiscovery runs on this signal).
        current_app.loader.import_default_modules()
    return tasks[name]
