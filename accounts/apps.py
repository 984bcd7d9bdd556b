from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """A player's account as a whole: bans, deletion (erasure), the data export, and the player admin."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
