"""Appending a batch of moves to an attempt's log: the locked path, which decides every case."""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models.expressions import RawSQL

from engine import (
    ReplayError,
    State,
)
from games.models import Attempt
from games.services.attempts import (
    attempt_for_update,
    attempt_mark_assisted,
    new_tail,
    play_tail,
    refuse_unless_in_play,
)
from games.services.positions import AttemptFacts, position_remember
from games.services.unlocked import append_at_position, batch_receipt


@dataclass
class MovesOutcome:
    attempt: AttemptFacts
    state: State  # the position of the stored log, after this batch's legal moves
    applied: int  # moves of this batch newly stored
    error: ReplayError | None = None  # the batch's first illegal entry (index in the whole log), if any
    log_length: int = 0  # moves the stored log now holds


def attempt_append_moves(*, attempt_id: int, player: User, start: int, moves: list[str]) -> MovesOutcome:
    """Append a batch at index ``start``; a resent batch is harmless.

    An illegal entry ends the batch, and the legal moves before it are stored first: the
    state and the reason reported for the illegal entry are then computed from the stored
    log alone, so they can only name cards that log has disclosed (SPEC section 7). This
    is the disclosure rule of the service: no response is ever computed from moves that
    are not stored, whether they were legal or not.

    The common batch (legal moves, starting where the cached position ends) is stored by one
    conditional statement (:func:`append_at_position`); every other case, and any doubt, takes
    the locked path below, which alone decides errors, resends and conflicts.
    """
    fast = append_at_position(attempt_id=attempt_id, player=player, start=start, moves=moves)
    if fast is not None:
        facts, state = fast
        return MovesOutcome(attempt=facts, state=state, applied=len(moves), log_length=start + len(moves))
    with transaction.atomic():
        attempt = attempt_for_update(attempt_id=attempt_id, player=player)
        refuse_unless_in_play(attempt, doing="moves")
        tail = new_tail(attempt.moves, start, moves)
        state, legal, error = play_tail(attempt, tail)
        if legal:
            _append_to_log(attempt, legal)
        attempt_mark_assisted(attempt=attempt, state=state)
        facts, length = AttemptFacts.of(attempt), len(attempt.moves)
        if legal:
            transaction.on_commit(lambda: position_remember(facts, state, length))
    return MovesOutcome(attempt=facts, state=state, applied=len(legal), error=error, log_length=length)


def _append_to_log(attempt: Attempt, legal: list[str]) -> None:
    """Store the moves after the log, and the batch's receipt (games.pace). On PostgreSQL the database
    appends them (jsonb ||): the request never serializes the whole log again."""
    receipt = batch_receipt(started_at=attempt.started_at, count=len(legal))
    if connection.vendor == "postgresql":
        Attempt.objects.filter(pk=attempt.pk).update(
            moves=RawSQL("moves || %s::jsonb", (json.dumps(legal),)),
            batches=RawSQL("batches || %s::jsonb", (json.dumps([receipt]),)),
        )
        attempt.moves = attempt.moves + legal
        attempt.batches = [*attempt.batches, receipt]
    else:
        attempt.moves = attempt.moves + legal
        attempt.batches = [*attempt.batches, receipt]
        attempt.save(update_fields=["moves", "batches"])
