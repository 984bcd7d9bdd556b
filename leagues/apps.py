from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    """Private leagues: a player creates one, shares its invite code, and members get their own boards."""

    name = "leagues"
    default_auto_field = "django.db.models.BigAutoField"
