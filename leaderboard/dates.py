"""What day it is for the daily challenge (in settings.DAILY_TIMEZONE)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone


def today() -> dt.date:
    """Today's challenge date: the current date in ``settings.DAILY_TIMEZONE``."""
    return timezone.now().astimezone(ZoneInfo(settings.DAILY_TIMEZONE)).date()
