"""An attempt's move log: the one home of a batch of moves, and the one place the log grows.

A batch (``POST /attempts/{id}/moves``) is decided here from start to end: the common batch from the
cached position without a lock (:func:`_append_unlocked`), everything else under the attempt's row lock
(:func:`_append_locked`), and both store through :func:`log_append`, which the close of an attempt
(``services.attempts``) calls too. The rules of play on a log (who may add to it, until when, from
which index) live here as well, because every writer of the log asks them.

"Moves, batch receipts and the assisted mark grow together" is written once, in :func:`log_append`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from core.db import retry_safe
from engine import (
    MAX_LOG_LENGTH,
    ReplayError,
    State,
    deal,
    play_log,
)
from games import days
from games.errors import BadRequest, Conflict, DayOver, NotFound
from games.models import Attempt
from games.pace import batch_receipt
from games.services.positions import AttemptFacts, attempt_position, position_cached, position_remember


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
    conditional statement without a lock (:func:`_append_unlocked`); every other case, and any doubt,
    takes the locked path (:func:`_append_locked`), which alone decides errors, resends and conflicts.
    """
    fast = _append_unlocked(attempt_id=attempt_id, player=player, start=start, moves=moves)
    if fast is not None:
        return fast
    return _append_locked(attempt_id=attempt_id, player=player, start=start, moves=moves)


# --- the one place the log grows -----------------------------------------------------------------------

# The conditional append, and the one place its preconditions are stated: the attempt is the one the
# facts name (its id, player, challenge and start), it is open, and its log holds exactly ``length``
# moves. The batch's receipt ([ms since the start, moves], games.pace) and the assisted mark of an undo
# that takes back a disclosing move (SPEC section 7) are stored by the same statement: the mark is
# stored with the undo, or neither is. Closing the attempt sets ``finished_at`` in it too. Sending it
# twice stores the batch once (the second finds the log longer), so it may be sent again after a dropped
# connection (core.db).
_APPEND = retry_safe("""
    UPDATE games_attempt
    SET moves = moves || %s::jsonb, batches = batches || %s::jsonb, assisted = assisted OR %s,
        finished_at = COALESCE(%s, finished_at)
    WHERE id = %s AND player_id = %s AND challenge_id = %s AND started_at = %s
      AND finished_at IS NULL AND jsonb_array_length(moves) = %s
    RETURNING assisted
""")


def log_append(
    *,
    facts: AttemptFacts,
    length: int,
    moves: list[str],
    assisted: bool,
    finished_at: dt.datetime | None = None,
) -> bool | None:
    """Append legal ``moves`` (and their batch's receipt) to the open attempt ``facts`` names if its log
    holds exactly ``length`` moves; mark it assisted when ``assisted``; end it at ``finished_at`` if given.

    Returns the attempt's assisted mark as stored, or None when the attempt is not in that state
    (another batch got there first, it has ended, the id names another attempt): then nothing was
    written. Every writer of the log calls this: the unlocked batch, the locked batch and the close.
    On PostgreSQL it is one statement, and the database appends (jsonb ||): a request never serializes
    the whole log again. Elsewhere (SQLite, the embedded default) it reads the row and writes it back
    in one transaction; only the locked paths reach it there.
    """
    receipts = [batch_receipt(started_at=facts.started_at, now=timezone.now(), count=len(moves))] if moves else []
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                _APPEND,
                [
                    json.dumps(moves),
                    json.dumps(receipts),
                    assisted,
                    finished_at,
                    facts.id,
                    facts.player_id,
                    facts.challenge_id,
                    facts.started_at,
                    length,
                ],
            )
            row = cursor.fetchone()
        return None if row is None else bool(row[0])
    with transaction.atomic():
        found = (
            Attempt.objects.select_for_update()
            .filter(
                pk=facts.id,
                player_id=facts.player_id,
                challenge_id=facts.challenge_id,
                started_at=facts.started_at,
                finished_at__isnull=True,
            )
            .values_list("moves", "batches", "assisted")
            .first()
        )
        if found is None or len(found[0]) != length:
            return None
        stored, batches, was_assisted = found
        changes: dict[str, object] = {
            "moves": stored + moves,
            "batches": batches + receipts,
            "assisted": was_assisted or assisted,
        }
        if finished_at is not None:
            changes["finished_at"] = finished_at
        Attempt.objects.filter(pk=facts.id).update(**changes)
    return bool(changes["assisted"])


# --- the unlocked batch ----------------------------------------------------------------------------------


def _append_unlocked(*, attempt_id: int, player: User, start: int, moves: list[str]) -> MovesOutcome | None:
    """Store a batch of legal moves that starts where the cached position ends, without a lock or a
    transaction. None means "not this case": the caller takes the locked path.

    What is checked here is only what the statement cannot check: that the cache holds the position
    for ``start`` (and so the attempt's facts), that the batch is legal from it, and that a ranked
    attempt's day is not over (the locked path answers day_over). Everything about the attempt's row
    is :func:`log_append`'s statement's, with the player's own id in place of the cached one.

    Why it is sound: the snapshot for length L was computed from the first L stored moves, which never
    change (logs only grow); the statement checks, atomically with the append, that the log has L moves,
    so two batches racing from L cannot both be stored, and the loser is decided by the locked path.
    Only legal batches take this path, so illegal entries are always reported from the stored log.
    """
    if connection.vendor != "postgresql" or not moves or start + len(moves) > MAX_LOG_LENGTH:
        return None
    cached = position_cached(attempt_id=attempt_id, length=start)
    if cached is None or cached.length != start:
        return None
    facts = dataclasses.replace(cached.attempt, player_id=player.pk)
    if facts.ranked and days.is_over(facts.date):
        return None
    try:
        state = State.restore(deal(facts.game, facts.seed), cached.snapshot)
    except (TypeError, ValueError):
        return None
    if play_log(state, moves, start=start) is not None:
        return None  # an illegal entry: reported by the locked path, from the stored log
    assisted = log_append(facts=facts, length=start, moves=moves, assisted=state.assisted)
    if assisted is None:
        return None
    facts = dataclasses.replace(facts, assisted=assisted)
    length = start + len(moves)
    # On commit: at once in autocommit (a request), and never for a caller's transaction that rolls back.
    transaction.on_commit(lambda: position_remember(attempt=facts, state=state, length=length))
    return MovesOutcome(attempt=facts, state=state, applied=len(moves), log_length=length)


# --- the locked batch ------------------------------------------------------------------------------------


def _append_locked(*, attempt_id: int, player: User, start: int, moves: list[str]) -> MovesOutcome:
    """Every batch the unlocked path left: errors, resends, conflicts, a cold cache, SQLite."""
    with transaction.atomic():
        attempt = attempt_for_update(attempt_id=attempt_id, player=player)
        refuse_unless_in_play(attempt=attempt, doing="moves")
        tail = new_tail(stored=attempt.moves, start=start, moves=moves)
        state, legal, error = play_tail(attempt=attempt, tail=tail)
        facts = AttemptFacts.of(attempt)
        length = len(attempt.moves) + len(legal)
        # The mark is stored whenever the stored log's position calls for it, even with nothing new to
        # append: so it is never missing, whichever path stored the undo.
        if legal or (state.assisted and not attempt.assisted):
            facts = dataclasses.replace(facts, assisted=_log_append_locked(attempt, facts, legal, state.assisted))
        if legal:
            transaction.on_commit(lambda: position_remember(attempt=facts, state=state, length=length))
    return MovesOutcome(attempt=facts, state=state, applied=len(legal), error=error, log_length=length)


def _log_append_locked(
    attempt: Attempt, facts: AttemptFacts, legal: list[str], assisted: bool, finished_at: dt.datetime | None = None
) -> bool:
    """:func:`log_append` on an attempt this transaction holds locked (it cannot fail), and the
    in-memory row brought up to date with what was stored."""
    stored = log_append(facts=facts, length=len(attempt.moves), moves=legal, assisted=assisted, finished_at=finished_at)
    if stored is None:  # pragma: no cover - the row is locked and was checked open
        raise RuntimeError(f"attempt {attempt.pk} changed under its row lock")
    attempt.moves = attempt.moves + legal
    attempt.assisted = stored
    if finished_at is not None:
        attempt.finished_at = finished_at
    return stored


def log_close(*, attempt: Attempt, tail: list[str], finished_at: dt.datetime) -> None:
    """End a locked attempt at ``finished_at``, with the legal prefix of a last batch ``tail`` stored:
    one :func:`log_append`, like any batch."""
    legal: list[str] = []
    assisted = attempt.assisted
    if tail:
        state, legal, _error = play_tail(attempt=attempt, tail=tail)
        assisted = state.assisted
    _log_append_locked(attempt, AttemptFacts.of(attempt), legal, assisted, finished_at)


# --- the rules of play on a log ----------------------------------------------------------------------


def attempt_for_update(*, attempt_id: int, player: User | None) -> Attempt:
    """The attempt locked (the player's own; any, with ``player=None``, for the service's own sweeps)."""
    owner = {} if player is None else {"player": player}
    try:
        # of=("self",): the attempt's row alone. Locking its challenge too made every batch of every
        # player of that challenge wait for the others.
        return Attempt.objects.select_for_update(of=("self",)).select_related("challenge").get(pk=attempt_id, **owner)
    except Attempt.DoesNotExist:
        raise NotFound(f"attempt {attempt_id} not found") from None


def refuse_unless_in_play(*, attempt: Attempt, doing: str) -> None:
    """An ended attempt takes nothing more; a ranked one takes nothing once its day is over."""
    if attempt.is_finished:
        raise Conflict(f"this attempt has ended: start a new one to play again ({doing} refused)")
    if attempt.ranked and days.is_over(attempt.challenge.date):
        raise day_over(attempt=attempt, doing=doing)


def day_over(*, attempt: Attempt, doing: str) -> DayOver:
    ended = days.next_day_starts_at(attempt.challenge.date)
    return DayOver(
        f"the {attempt.challenge.date} challenge ended at {ended.isoformat()}, and with it ranked play: "
        f"{doing} can no longer change this ranked attempt. Submit it without moves to record it as it stands.",
        details={"attempt": attempt.pk, "ended_at": ended.isoformat()},
    )


def new_tail(*, stored: list[str], start: int, moves: list[str]) -> list[str]:
    """The part of a batch the server has not stored yet; 409 when the batch disagrees with the log."""
    if start > len(stored):
        raise Conflict(
            f"the server holds {len(stored)} moves of this attempt, but the batch starts at {start}: "
            f"send the moves from index {len(stored)}",
            details={"expected_from": len(stored)},
        )
    overlap = stored[start : start + len(moves)]
    if overlap != moves[: len(overlap)]:
        first = next(i for i, (a, b) in enumerate(zip(overlap, moves, strict=False)) if a != b)
        raise Conflict(
            f"move {start + first} of this attempt is already stored as {stored[start + first]!r}, "
            f"not {moves[first]!r}: reload the attempt",
            details={"expected_from": len(stored), "index": start + first},
        )
    tail = moves[len(overlap) :]
    if len(stored) + len(tail) > MAX_LOG_LENGTH:
        raise BadRequest(f"an attempt holds at most {MAX_LOG_LENGTH} moves")
    return tail


def play_tail(*, attempt: Attempt, tail: list[str]) -> tuple[State, list[str], ReplayError | None]:
    """The stored log's position after the tail's legal prefix, that prefix, and the first illegal entry."""
    state = attempt_position(attempt=attempt)
    error = play_log(state, tail, start=len(attempt.moves))
    legal = tail if error is None else tail[: error.index - len(attempt.moves)]
    return state, legal, error
