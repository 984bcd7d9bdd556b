"""The streak reminders in the admin: who opted in, when, and the day each was last sent for (support's
answer to "why did no reminder come"). Staff can turn one off; the rest is the player's to set."""

from __future__ import annotations

from django.contrib import admin

from habits.models import Reminder


@admin.register(Reminder)
class ReminderAdmin(admin.ModelAdmin[Reminder]):
    list_display = ("player", "enabled", "remind_at", "time_zone", "last_sent_day", "updated_at")
    list_filter = ("enabled",)
    search_fields = ("player__username",)
    fields = ("player", "enabled", "remind_at", "time_zone", "last_sent_day", "updated_at")
    readonly_fields = ("player", "remind_at", "time_zone", "last_sent_day", "updated_at")

    def has_add_permission(self, request: object) -> bool:
        return False  # a player opts in themselves
