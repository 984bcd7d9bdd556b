"""Django admin of game reviews: read only, and held to games.admin's rules (``ServiceAdmin``): a review of a
day not over is in no list or page for staff without ``games.view_future_deal``."""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from games.admin import ServiceAdmin
from reviews.models import GameReview


@admin.register(GameReview)
class GameReviewAdmin(ServiceAdmin[GameReview]):
    """Reviews as the solver made them: read only (a review is remade by deleting its row)."""

    list_display = ["attempt", "status", "outcome", "winnable_after", "lost_after", "tries", "seconds", "finished_at"]
    list_filter = ["status", "outcome"]
    search_fields = ["attempt__id", "attempt__player__username"]
    day_field = "attempt__challenge__date"
    readonly_fields = [
        "attempt",
        "status",
        "outcome",
        "winnable_after",
        "lost_after",
        "data",
        "tries",
        "seconds",
        "error",
        "created_at",
        "started_at",
        "finished_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
