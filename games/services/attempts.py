"""Attempts: starting one, the rules of play on it (who, when, which log), hints, and ending it."""

from __future__ import annotations

import logging

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine import (
    MAX_LOG_LENGTH,
    Hint,
    ReplayError,
    State,
    deal,
    hint,
    play_log,
)
from games import days
from games.errors import BadRequest, Conflict, DayOver, NotFound
from games.models import Attempt, Challenge, Submission
from games.services.positions import AttemptFacts, attempt_position, position_remember
from games.services.submissions import enqueue_validation
from games.services.unlocked import batch_receipt

logger = logging.getLogger(__name__)


def attempt_start(*, player: User, challenge: Challenge, origin: str = "", browser: str = "") -> Attempt:
    """The first attempt of a player on a challenge, on its own day, is ranked; the rest are practice.

    A player has at most one open attempt per challenge, enforced by the database
    (``attempt_one_open_per_player``): a start while one is open, or the loser of two
    starts sent at the same moment, is a 409 that names the open attempt. So practice on
    the day's own deal cannot look through the stock while the ranked attempt is open.
    ``origin`` and ``browser`` are keyed hashes of where it was started from
    (``services.reviews.origin_hash``), for flagging accounts that rank from one place.
    """
    if not challenge.is_playable:
        raise NotFound(f"the {challenge.game} challenge of {challenge.date} is not open for play")
    today = days.today()
    if challenge.date > today:
        raise NotFound(f"the {challenge.game} challenge of {challenge.date} is not open yet")
    _refuse_if_open(player=player, challenge=challenge)
    ranked = (
        challenge.date == today and not Attempt.objects.filter(player=player, challenge=challenge, ranked=True).exists()
    )
    try:
        with transaction.atomic():
            attempt = Attempt.objects.create(
                player=player, challenge=challenge, ranked=ranked, origin=origin, browser=browser
            )
    except IntegrityError:
        pass  # another start of this player won the race: its attempt is the open one
    else:
        # The deal's position for length 0, so that even the first batch takes the unlocked path.
        transaction.on_commit(
            lambda: position_remember(AttemptFacts.of(attempt), State(deal(challenge.game, challenge.seed_int)), 0)
        )
        return attempt
    _refuse_if_open(player=player, challenge=challenge)
    raise Conflict("another attempt on this challenge was started at the same moment: reload and try again")


def _refuse_if_open(*, player: User, challenge: Challenge) -> None:
    open_attempts = Attempt.objects.filter(player=player, challenge=challenge, finished_at__isnull=True)
    open_attempt = open_attempts.only("id", "ranked").first()
    if open_attempt is not None:
        kind = "ranked" if open_attempt.ranked else "practice"
        raise Conflict(
            f"your {kind} attempt {open_attempt.pk} on this challenge is still open: finish it or give up first",
            details={"attempt": open_attempt.pk},
        )


def attempt_get(*, attempt_id: int, player: User) -> Attempt:
    """The player's own attempt; another player's is not found, not forbidden (its id says nothing)."""
    try:
        return Attempt.objects.select_related("challenge").get(pk=attempt_id, player=player)
    except Attempt.DoesNotExist:
        raise NotFound(f"attempt {attempt_id} not found") from None


def new_tail(stored: list[str], start: int, moves: list[str]) -> list[str]:
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


def play_tail(attempt: Attempt, tail: list[str]) -> tuple[State, list[str], ReplayError | None]:
    """The stored log's position after the tail's legal prefix, that prefix, and the first illegal entry."""
    state = attempt_position(attempt)
    error = play_log(state, tail, start=len(attempt.moves))
    legal = tail if error is None else tail[: error.index - len(attempt.moves)]
    return state, legal, error


def attempt_mark_assisted(*, attempt: Attempt, state: State) -> None:
    """Mark a locked attempt assisted, for good, when its stored log's position says an undo took back a
    move that disclosed a card (SPEC section 7). Called whenever the locked path has the position, so a
    mark is never missing, whichever path stored the undo."""
    if state.assisted and not attempt.assisted:
        attempt.assisted = True
        attempt.save(update_fields=["assisted"])


def refuse_unless_in_play(attempt: Attempt, *, doing: str) -> None:
    """An ended attempt takes nothing more; a ranked one takes nothing once its day is over."""
    if attempt.is_finished:
        raise Conflict(f"this attempt has ended: start a new one to play again ({doing} refused)")
    if attempt.ranked and days.is_over(attempt.challenge.date):
        raise _day_over(attempt, doing=doing)


def _day_over(attempt: Attempt, *, doing: str) -> DayOver:
    ended = days.next_day_starts_at(attempt.challenge.date)
    return DayOver(
        f"the {attempt.challenge.date} challenge ended at {ended.isoformat()}, and with it ranked play: "
        f"{doing} can no longer change this ranked attempt. Submit it without moves to record it as it stands.",
        details={"attempt": attempt.pk, "ended_at": ended.isoformat()},
    )


def attempt_for_update(*, attempt_id: int, player: User | None) -> Attempt:
    """The attempt locked (the player's own; any, with ``player=None``, for the service's own sweeps)."""
    owner = {} if player is None else {"player": player}
    try:
        # of=("self",): the attempt's row alone. Locking its challenge too made every batch of every
        # player of that challenge wait for the others.
        return Attempt.objects.select_for_update(of=("self",)).select_related("challenge").get(pk=attempt_id, **owner)
    except Attempt.DoesNotExist:
        raise NotFound(f"attempt {attempt_id} not found") from None


def attempt_hint(*, attempt_id: int, player: User) -> Hint | None:
    """A move suggested from what the player sees; the attempt is marked assisted from then on.

    None when no legal move is left: that tells nothing the table does not show (it says "no more
    moves" by itself), so it marks nothing, and a ranked game stuck at its end keeps its board.
    """
    with transaction.atomic():
        attempt = attempt_for_update(attempt_id=attempt_id, player=player)
        refuse_unless_in_play(attempt, doing="hints")
        suggestion = hint(attempt_position(attempt))
        if suggestion is not None and not attempt.assisted:
            attempt.assisted = True
            attempt.save(update_fields=["assisted"])
    return suggestion


def attempt_submit(
    *, attempt_id: int, player: User, start: int | None = None, moves: list[str] | None = None
) -> tuple[Submission, bool]:
    """End the attempt and store its final log for validation.

    An optional last batch (``start``, ``moves``) goes with the log. Its legal prefix is
    stored on the attempt, whose log only ever holds legal moves; the whole batch goes on
    the submission, whose replay by the worker judges it and keeps the error if there is one.
    Once a ranked attempt's day is over a last batch is refused (409): only the log stored
    before the end counts. Submits race on the attempt's row lock: the first one wins; a
    repeat with the same last batch (or none) returns that submission, a different last
    batch is a 409 that names it.
    """
    with transaction.atomic():
        attempt = attempt_for_update(attempt_id=attempt_id, player=player)
        existing = Submission.objects.filter(attempt=attempt).first()
        if existing is not None:
            _refuse_a_different_submit(existing, start=start, moves=moves or [])
            return existing, False
        tail = new_tail(attempt.moves, len(attempt.moves) if start is None else start, moves) if moves else []
        if tail and attempt.ranked and days.is_over(attempt.challenge.date):
            raise _day_over(attempt, doing="a last batch")
        submission = _attempt_close(attempt, tail=tail)
    return submission, True


def _refuse_a_different_submit(existing: Submission, *, start: int | None, moves: list[str]) -> None:
    if not moves:
        return  # "end this attempt" again: it has ended
    begin = len(existing.moves) - len(moves) if start is None else start
    if begin < 0 or existing.moves[begin:] != moves:
        raise Conflict(
            f"this attempt was already submitted (submission {existing.pk}) with another last batch: "
            "only the first submit counts",
            details={"submission": existing.pk},
        )


def _attempt_close(attempt: Attempt, *, tail: list[str]) -> Submission:
    """End a locked attempt: store the tail's legal prefix, and a submission of the whole log to validate.

    A ranked attempt ends no later than its day: one closed after midnight is timed as of the day's end.
    """
    log = list(attempt.moves)
    if tail:
        state, legal, _error = play_tail(attempt, tail)
        attempt.moves = log + legal
        if legal:
            attempt.batches = [*attempt.batches, batch_receipt(started_at=attempt.started_at, count=len(legal))]
        attempt_mark_assisted(attempt=attempt, state=state)
    now = timezone.now()
    attempt.finished_at = min(now, days.next_day_starts_at(attempt.challenge.date)) if attempt.ranked else now
    attempt.save(update_fields=["moves", "batches", "finished_at"])
    submission = Submission.objects.create(attempt=attempt, moves=log + tail)
    submission_id = submission.pk
    transaction.on_commit(lambda: enqueue_validation(submission_id))
    return submission


def attempts_close_expired() -> int:
    """Submit, as they stand, the ranked attempts still open after their day: their results reach the boards.

    Each is locked and checked again, so a submit by the player at the same moment wins cleanly.
    """
    today = days.today()
    ids = list(
        Attempt.objects.filter(ranked=True, finished_at__isnull=True, challenge__date__lt=today).values_list(
            "id", flat=True
        )
    )
    closed = 0
    for attempt_id in ids:
        with transaction.atomic():
            attempt = attempt_for_update(attempt_id=attempt_id, player=None)
            if attempt.is_finished or Submission.objects.filter(attempt=attempt).exists():
                continue
            _attempt_close(attempt, tail=[])
            closed += 1
    if closed:
        logger.info("closed %s ranked attempts left open after their day", closed)
    return closed
