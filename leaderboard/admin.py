from django.contrib import admin

from leaderboard.models import PlayerStats


@admin.register(PlayerStats)
class PlayerStatsAdmin(admin.ModelAdmin[PlayerStats]):
    """Read-only: the rows are recomputed from results (leaderboard.services.player_stats_recompute)."""

    list_display = ["player", "played", "won", "current_streak", "best_streak", "last_played_date", "updated_at"]
    search_fields = ["player__username"]
    readonly_fields = [f.name for f in PlayerStats._meta.fields]

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False
