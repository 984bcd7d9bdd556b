"""Reads: a player's ratings (the profile) and their history per game (the profile's chart)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from engine import GAME_IDS
from ratings.models import Rating, RatingHistory

HISTORY_DAYS = 365


@dataclass(frozen=True)
class PlayerRating:
    game: str
    rating: int
    mu: float
    sigma: float
    days: int
    last_day: dt.date


@dataclass(frozen=True)
class RatingPoint:
    date: dt.date
    rating: int
    previous: int
    rank: int
    players: int

    @property
    def change(self) -> int:
        return self.rating - self.previous


def player_ratings(*, player: User | int | None = None, username: str | None = None) -> list[PlayerRating]:
    """The player's (or the player of that name's) rating in each game rated at least once, in the games'
    fixed order."""
    order = {g: i for i, g in enumerate(GAME_IDS)}
    if username is not None:
        rows = Rating.objects.filter(**{f"player__{get_user_model().USERNAME_FIELD}": username})
    else:
        rows = Rating.objects.filter(player_id=player if isinstance(player, int) else getattr(player, "pk", None))
    found = [PlayerRating(r.game, r.rating, r.mu, r.sigma, r.days, r.last_day) for r in rows]
    return sorted(found, key=lambda r: order.get(r.game, len(order)))


def player_rating_history(*, player: User | int, game: str, limit: int = HISTORY_DAYS) -> list[RatingPoint]:
    """The player's rating in ``game`` after each rated day, oldest first: the last ``limit`` days."""
    player_id = player if isinstance(player, int) else player.pk
    rows = RatingHistory.objects.filter(player_id=player_id, game=game).order_by("-day")[:limit]
    points = [RatingPoint(h.day, h.rating, h.previous, h.rank, h.players) for h in rows]
    return points[::-1]
