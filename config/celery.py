"""The Celery application "dailypatience".

Configured from Django settings (keys prefixed CELERY_). Without REDIS_URL the
settings make every task run eagerly in the calling process.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("dailypatience")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
