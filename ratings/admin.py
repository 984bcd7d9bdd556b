"""Ratings in the admin: read-only (they are written by the rating task only)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from ratings.models import Rating, RatingHistory, RatingRun


class ReadOnly(admin.ModelAdmin[Model]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(RatingRun)
class RatingRunAdmin(ReadOnly):
    list_display = ["game", "day", "players", "rated_at"]
    list_filter = ["game"]
    date_hierarchy = "day"


@admin.register(Rating)
class RatingAdmin(ReadOnly):
    list_display = ["player", "game", "rating", "mu", "sigma", "days", "last_day"]
    list_filter = ["game"]
    search_fields = ["player__username"]
    raw_id_fields = ["player"]


@admin.register(RatingHistory)
class RatingHistoryAdmin(ReadOnly):
    list_display = ["player", "game", "day", "rating", "previous", "rank", "players"]
    list_filter = ["game"]
    search_fields = ["player__username"]
    raw_id_fields = ["player"]
