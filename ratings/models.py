"""Ratings: each game's day rated once as one multiplayer match (ratings.services).

``RatingRun`` is the one row per (game, day) that says the day was rated: a redelivered task, or a second
worker at the same time, finds it and rates nothing. ``Rating`` is a player's rating in a game now;
``RatingHistory`` is that rating after each day the player was rated on, for the profile's chart.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import GAME_CHOICES


class RatingRun(models.Model):
    """A (game, day) rated: written in the same transaction as the ratings it moved."""

    game = models.CharField(max_length=32, choices=GAME_CHOICES)
    day = models.DateField()
    players = models.PositiveIntegerField(default=0, db_default=0, help_text="Results that moved a rating.")
    rated_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-day", "game"]
        constraints = [models.UniqueConstraint(fields=["game", "day"], name="rating_run_one_per_game_day")]

    def __str__(self) -> str:
        return f"{self.game} {self.day} rated ({self.players} players)"


class Rating(models.Model):
    """A player's rating in one game as of the last day rated: the model's mu and sigma, and the number
    shown (``ratings.services.shown_rating``)."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    game = models.CharField(max_length=32, choices=GAME_CHOICES)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.IntegerField(help_text="The shown rating: the conservative estimate mu - 3 sigma, scaled.")
    days = models.PositiveIntegerField(default=0, db_default=0, help_text="Days rated.")
    last_day = models.DateField()

    class Meta:
        ordering = ["game", "-rating"]
        constraints = [models.UniqueConstraint(fields=["player", "game"], name="rating_one_per_player_game")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.game}: {self.rating}"


class RatingHistory(models.Model):
    """A player's rating in a game after one rated day, with the place that moved it."""

    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_history")
    game = models.CharField(max_length=32, choices=GAME_CHOICES)
    day = models.DateField()
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.IntegerField()
    previous = models.IntegerField(help_text="The shown rating before the day.")
    rank = models.PositiveIntegerField(help_text="The place that day (tied results share one).")
    players = models.PositiveIntegerField(help_text="Players rated that day.")

    class Meta:
        ordering = ["player", "game", "day"]
        constraints = [
            models.UniqueConstraint(fields=["player", "game", "day"], name="rating_history_one_per_player_game_day")
        ]

    def __str__(self) -> str:
        return f"{self.player_id} {self.game} {self.day}: {self.rating}"
