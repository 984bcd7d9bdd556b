from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Games, daily challenges and attempts. The rules engine is engine."""

    name = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import auth

        auth.connect()
