"""The streak reminder a player opted in to: when (a time of day in their own time zone), and the
challenge day it was last sent for (never twice a day, even with two workers: habits.services)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import models


class Reminder(models.Model):
    player = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reminder")
    enabled = models.BooleanField(default=False, db_default=False)
    remind_at = models.TimeField(
        default=dt.time(19, 0), db_default=dt.time(19, 0), help_text="Local time of day, in time_zone."
    )
    time_zone = models.CharField(
        max_length=64, default="UTC", db_default="UTC", help_text="IANA name, e.g. Europe/Paris."
    )
    last_sent_day = models.DateField(
        null=True, blank=True, help_text="The challenge day the last reminder was sent for."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        state = "on" if self.enabled else "off"
        return f"reminder of {self.player_id} at {self.remind_at:%H:%M} {self.time_zone} ({state})"
