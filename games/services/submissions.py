"""Submissions: a finished attempt's log validated by a worker, and the admin's corrections."""

from __future__ import annotations

import datetime as dt
import logging

from django.db import transaction
from django.utils import timezone

from core.tasks import send
from engine import (
    EngineError,
    replay,
)
from games import hooks
from games.models import Attempt, Result, Submission
from games.services.fairplay import fair_play_decisions, fair_play_decisions_apply, result_fair_play_check

logger = logging.getLogger(__name__)


def enqueue_validation(*, submission_id: int) -> None:
    """After commit: the submission is stored, so a broker failure loses nothing (the sweep resends it).

    Never waits on a broker that is down: no publish retries, no result
    subscription (the result is the Submission row), short socket timeouts
    (settings), and while ``core.circuit.BROKER`` is open not even a try.
    """
    try:
        if not send("games.validate_submission", args=(submission_id,)):
            logger.warning("broker down: submission %s stays pending until the resend sweep", submission_id)
    except Exception:
        logger.exception("could not enqueue validation of submission %s; the sweep will retry", submission_id)


def submissions_resend_pending(*, older_than: dt.timedelta = dt.timedelta(minutes=1)) -> int:
    """Enqueue again the submissions still pending after ``older_than`` (a lost task, a broker outage)."""
    cutoff = timezone.now() - older_than
    ids = list(
        Submission.objects.filter(status=Submission.Status.PENDING, created_at__lt=cutoff)
        .order_by("created_at")  # the longest waiting first
        .values_list("id", flat=True)
    )
    for submission_id in ids:
        enqueue_validation(submission_id=submission_id)
    return len(ids)


def submission_validate(*, submission_id: int) -> Submission:
    """Replay the whole log from the deal, score it, store the result. Idempotent."""
    with transaction.atomic():
        submission = (
            Submission.objects.select_for_update(of=("self",))  # not the attempt's challenge: validations overlap
            .select_related("attempt__challenge")
            .get(pk=submission_id)
        )
        if submission.status != Submission.Status.PENDING:
            return submission
        # The attempt's row too: a guest's claim (guest_claim) moves it under that lock, so the result
        # is stored for the player that owns the attempt now, never for a guest being deleted.
        attempt = Attempt.objects.select_for_update().get(pk=submission.attempt_id)
        challenge = submission.attempt.challenge
        submission.validations += 1
        submission.validated_at = timezone.now()
        try:
            outcome = replay(challenge.game, challenge.seed_int, submission.moves)
        except EngineError as exc:
            submission.status = Submission.Status.INVALID
            submission.error = {"index": None, "move": None, "reason": str(exc)}
            submission.save(update_fields=["status", "error", "validations", "validated_at"])
            return submission
        if outcome.error is not None:
            submission.status = Submission.Status.INVALID
            submission.error = outcome.error.to_json()
            submission.save(update_fields=["status", "error", "validations", "validated_at"])
            return submission
        state = outcome.state
        finished_at = attempt.finished_at or submission.created_at
        result = Result.objects.create(
            submission=submission,
            player_id=attempt.player_id,
            challenge=challenge,
            ranked=attempt.ranked,
            assisted=attempt.assisted or outcome.assisted,  # a hint, or an undo that took a look back
            won=state.won,
            score=state.score,
            moves=state.moves,
            foundation_cards=state.on_foundations,
            redeals=state.redeals,
            play_time_ms=attempt.play_time_ms(finished_at),
            finished_at=finished_at,
        )
        result_fair_play_check(result=result, attempt=attempt)  # held for an implausible pace; flagged origins
        submission.status = Submission.Status.VALID
        submission.error = None
        submission.save(update_fields=["status", "error", "validations", "validated_at"])
        result_id = result.pk
        transaction.on_commit(lambda: hooks.send(hooks.result_recorded, result_id=result_id))
    return submission


def submission_revalidate(*, submission_id: int) -> Submission:
    """Admin: drop the stored verdict and replay the log again (same rules, same deal)."""
    with transaction.atomic():
        submission = Submission.objects.select_for_update(of=("self",)).select_related("attempt").get(pk=submission_id)
        result = Result.objects.filter(submission=submission).first()
        disqualified = bool(result and result.disqualified)
        decided = fair_play_decisions(result=result) if result is not None else {}
        if result is not None:
            result.delete()
        submission.status = Submission.Status.PENDING
        submission.error = None
        submission.save(update_fields=["status", "error"])
        submission = submission_validate(submission_id=submission_id)
        new_result = Result.objects.filter(submission=submission).first()
        if disqualified and new_result is not None:
            Result.objects.filter(pk=new_result.pk).update(disqualified=True)
        if new_result is not None:  # staff's decisions stand: a cleared hold stays cleared
            fair_play_decisions_apply(result=new_result, decided=decided)
        challenge_id, player_id = submission.attempt.challenge_id, submission.attempt.player_id
        transaction.on_commit(lambda: hooks.send(hooks.results_changed, challenge_id=challenge_id, player_id=player_id))
    return submission


def result_disqualify(*, result_id: int) -> Result:
    """Admin: the result leaves every board; it stays stored, marked."""
    with transaction.atomic():
        result = Result.objects.select_for_update().get(pk=result_id)
        if not result.disqualified:
            result.disqualified = True
            result.save(update_fields=["disqualified"])
            transaction.on_commit(lambda: hooks.send(hooks.result_removed, result_id=result_id))
    return result
