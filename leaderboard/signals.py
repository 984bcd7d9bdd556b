"""The leaderboard's receivers: results from the games app (games.hooks), and Challenge rows.

Results: a recorded, removed or redone result updates the boards and player statistics
(leaderboard.services), after the games app's commit. Challenges: the board endpoint's
memory of challenge lookups (``selectors.leaderboard_challenge_get``) is kept in step with
the Challenge rows this process saves or deletes.

The memory is dropped at once and again after the commit (a read between the
two may have remembered the old state). Other processes, and changes made with
``QuerySet.update()`` (which sends no signal), show once their entries expire.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from games import hooks
from games.models import Challenge
from leaderboard import services
from leaderboard.selectors.boards import challenge_cache_clear


@receiver(hooks.result_recorded, dispatch_uid="leaderboard.result_recorded")
def result_recorded(sender: object, result_id: int, **kwargs: Any) -> None:
    services.leaderboard_record_result(result_id=result_id)


@receiver(hooks.result_removed, dispatch_uid="leaderboard.result_removed")
def result_removed(sender: object, result_id: int, **kwargs: Any) -> None:
    services.leaderboard_remove_result(result_id=result_id)


@receiver(hooks.results_changed, dispatch_uid="leaderboard.results_changed")
def results_changed(sender: object, challenge_id: int, player_id: int, **kwargs: Any) -> None:
    services.leaderboard_rebuild(challenge_id=challenge_id)
    services.player_stats_recompute(player_id=player_id)


@receiver(post_save, sender=Challenge, dispatch_uid="leaderboard.challenge_saved")
@receiver(post_delete, sender=Challenge, dispatch_uid="leaderboard.challenge_deleted")
def challenge_changed(sender: type[Challenge], instance: Challenge, using: str, **kwargs: Any) -> None:
    challenge_cache_clear()
    transaction.on_commit(challenge_cache_clear, using=using)
