from django.apps import AppConfig


class ReviewsConfig(AppConfig):
    """What a player gets after a game: its review (where it was lost, a win from there) and, for practice of
    a day that is over, the still-winnable light. The solver does the proving; this app asks it and keeps
    the answers."""

    name = "reviews"
    verbose_name = "Game reviews"
    default_auto_field = "django.db.models.BigAutoField"
