from django.apps import AppConfig


class HabitsConfig(AppConfig):
    """A player's days: the month calendar of results, and the opt-in e-mail reminder before a streak ends."""

    name = "habits"
    default_auto_field = "django.db.models.BigAutoField"
