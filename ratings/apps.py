from django.apps import AppConfig


class RatingsConfig(AppConfig):
    """A rating per player and game that moves after each day (OpenSkill: Weng-Lin, Bradley-Terry, partial pairing)."""

    name = "ratings"
    default_auto_field = "django.db.models.BigAutoField"
