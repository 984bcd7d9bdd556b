"""Attempts: starting one, hints, and ending it. The log itself grows in :mod:`.moves` alone."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Exists, OuterRef, Subquery
from django.utils import timezone

from engine import (
    Hint,
    State,
    deal,
    hint,
)
from games import days
from games.errors import Conflict, NotFound, PlayerBanned
from games.models import Attempt, Challenge, PlayerBan, Submission
from games.selectors import player_banned_message
from games.services.moves import attempt_for_update, day_over, log_close, new_tail, refuse_unless_in_play
from games.services.positions import AttemptFacts, attempt_position, position_remember
from games.services.submissions import enqueue_validation

logger = logging.getLogger(__name__)


def attempt_start(*, player: User, challenge: Challenge, origin: str = "", browser: str = "") -> Attempt:
    """The first attempt of a player on a challenge, on its own day, is ranked; the rest are practice.

    A player has at most one open attempt per challenge, enforced by the database
    (``attempt_one_open_per_player``): a start while one is open, or the loser of two
    starts sent at the same moment, is a 409 that names the open attempt. So practice on
    the day's own deal cannot look through the stock while the ranked attempt is open.
    ``origin`` and ``browser`` are keyed hashes of where it was started from
    (``services.fairplay.origin_hash``), for flagging accounts that rank from one place.
    """
    if not challenge.is_playable:
        raise NotFound(f"the {challenge.game} challenge of {challenge.date} is not open for play")
    today = days.today()
    if challenge.date > today:
        raise NotFound(f"the {challenge.game} challenge of {challenge.date} is not open yet")
    so_far = _so_far(player=player, challenge=challenge)
    _refuse_if_open(so_far)
    ranked = challenge.date == today and not so_far.has_ranked
    if ranked and so_far.ban_reason is not None:
        raise PlayerBanned(player_banned_message(reason=so_far.ban_reason))
    # In a request (autocommit) the INSERT stands alone: a unique violation breaks no transaction. Inside
    # a caller's transaction it gets a savepoint, so that the caller's transaction survives the race.
    creating = transaction.atomic() if connection.in_atomic_block else contextlib.nullcontext()
    try:
        with creating:
            attempt = Attempt.objects.create(
                player=player, challenge=challenge, ranked=ranked, origin=origin, browser=browser
            )
    except IntegrityError:
        pass  # another start of this player won the race: its attempt is the open one
    else:
        # The deal's position for length 0, so that even the first batch takes the unlocked path.
        transaction.on_commit(
            lambda: position_remember(
                attempt=AttemptFacts.of(attempt), state=State(deal(challenge.game, challenge.seed_int)), length=0
            )
        )
        return attempt
    _refuse_if_open(_so_far(player=player, challenge=challenge))
    raise Conflict("another attempt on this challenge was started at the same moment: reload and try again")


@dataclass(frozen=True, slots=True)
class _SoFar:
    """What a start needs to know of the player on a challenge."""

    open_id: int | None  # their open attempt on it
    open_ranked: bool
    has_ranked: bool  # they have a ranked attempt on it
    ban_reason: str | None  # None: not banned (games.models.PlayerBan; a ban's reason may be blank)


def _so_far(*, player: User, challenge: Challenge) -> _SoFar:
    """The player's open attempt on the challenge, whether they have a ranked one, and their ban: one read,
    from the player's row (a player has at most one open and at most one ranked attempt on a challenge, and
    at most one ban), so that a ranked start costs no statement of its own for the ban."""
    theirs = Attempt.objects.filter(player=OuterRef("pk"), challenge=challenge).order_by()  # at most one row each
    open_one = theirs.filter(finished_at__isnull=True)
    row = (
        User.objects.filter(pk=player.pk)
        .annotate(
            open_id=Subquery(open_one.values("id")[:1]),
            open_ranked=Subquery(open_one.values("ranked")[:1]),
            has_ranked=Exists(theirs.filter(ranked=True)),
            ban_reason=Subquery(PlayerBan.objects.filter(player=OuterRef("pk")).values("reason")[:1]),
        )
        .values("open_id", "open_ranked", "has_ranked", "ban_reason")
        .first()
    ) or {"open_id": None, "open_ranked": False, "has_ranked": False, "ban_reason": None}
    return _SoFar(
        open_id=row["open_id"],
        open_ranked=bool(row["open_ranked"]),
        has_ranked=bool(row["has_ranked"]),
        ban_reason=row["ban_reason"],
    )


def _refuse_if_open(so_far: _SoFar) -> None:
    if so_far.open_id is not None:
        kind = "ranked" if so_far.open_ranked else "practice"
        raise Conflict(
            f"your {kind} attempt {so_far.open_id} on this challenge is still open: finish it or give up first",
            details={"attempt": so_far.open_id},
        )


def attempt_get(*, attempt_id: int, player: User) -> Attempt:
    """The player's own attempt; another player's is not found, not forbidden (its id says nothing)."""
    try:
        return Attempt.objects.select_related("challenge").get(pk=attempt_id, player=player)
    except Attempt.DoesNotExist:
        raise NotFound(f"attempt {attempt_id} not found") from None


def attempt_hint(*, attempt_id: int, player: User) -> Hint | None:
    """A move suggested from what the player sees, or None when no legal move is left.

    Asking marks a ranked attempt assisted for good, whatever the answer (SPEC section 7: the
    request, not the move found, is the assist; the table says "no more moves" by itself, so it
    never needs to ask). A practice attempt is marked only by a hint that names a move.
    """
    with transaction.atomic():
        attempt = attempt_for_update(attempt_id=attempt_id, player=player)
        refuse_unless_in_play(attempt=attempt, doing="hints")
        suggestion = hint(attempt_position(attempt=attempt))
        if not attempt.assisted and (attempt.ranked or suggestion is not None):
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
        if attempt.is_finished:  # a submission exists only for an ended attempt, made as it ended
            existing = Submission.objects.filter(attempt=attempt).first()
            if existing is None:
                raise Conflict("this attempt has ended without a submission: start a new one to play again")
            _refuse_a_different_submit(existing, start=start, moves=moves or [])
            return existing, False
        tail = (
            new_tail(stored=attempt.moves, start=len(attempt.moves) if start is None else start, moves=moves)
            if moves
            else []
        )
        if tail and attempt.ranked and days.is_over(attempt.challenge.date):
            raise day_over(attempt=attempt, doing="a last batch")
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
    now = timezone.now()
    log_close(
        attempt=attempt,
        tail=tail,
        finished_at=min(now, days.next_day_starts_at(attempt.challenge.date)) if attempt.ranked else now,
    )
    submission = Submission.objects.create(attempt=attempt, moves=log + tail)
    submission_id = submission.pk
    transaction.on_commit(lambda: enqueue_validation(submission_id=submission_id))
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
