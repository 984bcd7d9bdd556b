"""Leagues and their members. The limits (leagues per owner, members per league) live in leagues.services."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThanOrEqual

NAME_MIN_LENGTH = 3
NAME_MAX_LENGTH = 60

# Crockford's base 32 in lower case (no i, l, o, u): URL-safe, easy to read out and type.
# 10 characters are 50 random bits; joining is throttled, so codes cannot be guessed.
INVITE_CODE_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
INVITE_CODE_LENGTH = 10


def new_invite_code() -> str:
    return "".join(secrets.choice(INVITE_CODE_ALPHABET) for _ in range(INVITE_CODE_LENGTH))


class League(models.Model):
    """A private group of players with its own daily and all-time boards."""

    name = models.CharField(max_length=NAME_MAX_LENGTH)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="owned_leagues")
    invite_code = models.CharField(
        max_length=INVITE_CODE_LENGTH, unique=True, default=new_invite_code, help_text="Share it to invite players."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=GreaterThanOrEqual(Length("name"), NAME_MIN_LENGTH), name="league_name_min_length"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A player in a league (the owner is one too)."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="memberships")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="league_memberships")
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["league", "player"], name="membership_one_per_league_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in {self.league_id}"
