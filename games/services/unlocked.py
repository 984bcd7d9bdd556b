"""The unlocked move path: the common batch stored by one conditional statement."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from engine import (
    MAX_LOG_LENGTH,
    State,
    deal,
    play_log,
)
from games import days
from games.services.positions import AttemptFacts, position_cached, position_remember

# The one statement of the common batch, and the one place its preconditions are stated: the
# attempt is this player's, it is the attempt the cached position was computed for (its id, challenge
# and start), it is open, and its log is exactly the cached position's. Each failed condition is a
# case the locked path decides instead (another player's attempt, another attempt under this id, an
# ended attempt, a batch of another tab or a retry that got there first).
# The batch's receipt ([ms since the start, moves], games.pace) is appended by the same statement, and a
# batch whose undo takes back a disclosing move (SPEC section 7) marks the attempt assisted in it too:
# the mark is stored with the undo, or neither is.
_APPEND_AT_LENGTH = """
    UPDATE games_attempt SET moves = moves || %s::jsonb, batches = batches || %s::jsonb, assisted = assisted OR %s
    WHERE id = %s AND player_id = %s AND challenge_id = %s AND started_at = %s
      AND finished_at IS NULL AND jsonb_array_length(moves) = %s
    RETURNING assisted
"""


def batch_receipt(*, started_at: dt.datetime, count: int) -> list[int]:
    """A stored batch as the pace judge reads it (games.pace): [ms since the start by the server's
    clock at receipt, moves stored]."""
    return [max(0, (timezone.now() - started_at) // dt.timedelta(milliseconds=1)), count]


def append_at_position(
    *, attempt_id: int, player: User, start: int, moves: list[str]
) -> tuple[AttemptFacts, State] | None:
    """Store a batch of legal moves that starts where the cached position ends, without a lock or a
    transaction; return the attempt's facts and the position after the batch. None means "not this
    case": the caller takes the locked path.

    What is checked here is only what the statement cannot check: that the cache holds the position
    for ``start``, that the batch is legal from it, and that a ranked attempt's day is not over (the
    locked path answers day_over). Everything about the attempt's row is the statement's.

    Why it is sound: the snapshot for length L was computed from the first L stored moves, which never
    change (logs only grow); the UPDATE checks, atomically with the append, that the log has L moves,
    so two batches racing from L cannot both be stored, and the loser is decided by the locked path.
    Only legal batches take this path, so illegal entries are always reported from the stored log.
    """
    if connection.vendor != "postgresql" or not moves or start + len(moves) > MAX_LOG_LENGTH:
        return None
    cached = position_cached(attempt_id)
    if cached is None or cached.length != start:
        return None
    facts = cached.attempt
    if facts.ranked and days.is_over(facts.date):
        return None
    try:
        state = State.restore(deal(facts.game, facts.seed), cached.snapshot)
    except (TypeError, ValueError):
        return None
    if play_log(state, moves, start=start) is not None:
        return None  # an illegal entry: reported by the locked path, from the stored log
    receipt = json.dumps([batch_receipt(started_at=facts.started_at, count=len(moves))])
    with connection.cursor() as cursor:
        cursor.execute(
            _APPEND_AT_LENGTH,
            [
                json.dumps(moves),
                receipt,
                state.assisted,
                attempt_id,
                player.pk,
                facts.challenge_id,
                facts.started_at,
                start,
            ],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    facts = dataclasses.replace(facts, assisted=row[0])
    length = start + len(moves)
    # On commit: at once in autocommit (a request), and never for a caller's transaction that rolls back.
    transaction.on_commit(lambda: position_remember(facts, state, length))
    return facts, state
