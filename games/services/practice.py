"""Practice from a position: "try from here" after a game's review (issue 28)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from games import days
from games.errors import BadRequest, NotFound
from games.models import Attempt, Challenge
from games.services.attempts import attempt_start
from games.services.moves import attempt_append_moves


def attempt_try_from(*, player: User, challenge: Challenge, moves: list[str]) -> Attempt:
    """A practice attempt on a day that is over, starting from the position ``moves`` lead to: they are
    stored as its first moves (the deal is public once its day is over, so they disclose nothing). All or
    nothing: an illegal move, or an open attempt of the player on the challenge (409), stores nothing."""
    if not days.is_over(challenge.date):
        raise NotFound(
            f"the {challenge.game} challenge of {challenge.date} is not over: practice from a position "
            "opens after the day"
        )
    with transaction.atomic():
        attempt = attempt_start(player=player, challenge=challenge)
        if attempt.ranked:  # pragma: no cover - a day that is over ranks nothing
            raise RuntimeError("a practice attempt came out ranked")
        if moves:
            outcome = attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=moves)
            if outcome.error is not None or outcome.applied != len(moves):
                raise BadRequest(f"move {outcome.applied} of the position's line does not replay: nothing was started")
    return attempt
