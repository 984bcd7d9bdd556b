from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    """Validated results, rankings and player statistics."""

    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"
