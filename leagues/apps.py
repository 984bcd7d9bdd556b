from django.apps import AppConfig


class LeaguesConfig(AppConfig):
    """Private leagues: a player creates one, shares its invite code, and members get their own boards."""

    name = "leagues"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from games import hooks
        from leagues import services

        hooks.guest_claimed.connect(services.on_guest_claimed, dispatch_uid="leagues.guest_claimed")
        hooks.guests_sweeping.connect(services.on_guests_sweeping, dispatch_uid="leagues.guests_sweeping")
