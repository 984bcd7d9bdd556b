from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    """Validated results, rankings and player statistics."""

    name = "leaderboard"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from leaderboard import signals  # noqa: F401 (connects the receivers)
