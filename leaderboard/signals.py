"""Keeps the board endpoint's memory of challenge lookups (``selectors.leaderboard_challenge_get``)
in step with the Challenge rows this process saves or deletes.

The memory is dropped at once and again after the commit (a read between the
two may have remembered the old state). Other processes, and changes made with
``QuerySet.update()`` (which sends no signal), show once their entries expire.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from games.models import Challenge
from leaderboard.selectors import challenge_cache_clear


@receiver(post_save, sender=Challenge, dispatch_uid="leaderboard.challenge_saved")
@receiver(post_delete, sender=Challenge, dispatch_uid="leaderboard.challenge_deleted")
def challenge_changed(sender: type[Challenge], instance: Challenge, using: str, **kwargs: Any) -> None:
    challenge_cache_clear()
    transaction.on_commit(challenge_cache_clear, using=using)
