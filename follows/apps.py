from django.apps import AppConfig


class FollowsConfig(AppConfig):
    """Friends without a league: a player follows others, and sees their results of the day and a friends board."""

    name = "follows"
    default_auto_field = "django.db.models.BigAutoField"
