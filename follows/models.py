"""Follows: one player following another. Private: only the follower reads their list (follows.selectors)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class Follow(models.Model):
    follower = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows")
    followed = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["follower", "created_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(condition=~Q(follower=F("followed")), name="follow_not_oneself"),
        ]
        indexes = [models.Index(fields=["followed"])]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"
