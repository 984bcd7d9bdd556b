"""Writes of the games app: preparing days, attempts, moves, submissions and their validation.

Every function here is the one place its rule lives; views and tasks call them.
A service either does all of its work or raises and leaves the database as it was.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import days
from games.engine import (
    MAX_LOG_LENGTH,
    REDEAL,
    EngineError,
    Hint,
    State,
    deal,
    find_rules,
    hint,
    play_log,
    replay,
)
from games.errors import BadRequest, Conflict, IllegalMove, NotFound
from games.models import Attempt, Challenge, Result, Submission

logger = logging.getLogger(__name__)


# --- Challenges -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SolveOutcome:
    status: str  # solved / unsolvable / unknown
    moves: list[str]
    nodes: int
    seconds: float
    difficulty: int | None


Solver = Callable[[str, int, float], SolveOutcome]


def default_solver(game: str, seed: int, seconds: float) -> SolveOutcome:
    from solver_worker.search import solve

    result = solve(game, seed, seconds=seconds)
    return SolveOutcome(
        status=str(result.status),
        moves=list(result.moves or []),
        nodes=int(result.nodes),
        seconds=float(result.seconds),
        difficulty=getattr(result, "difficulty", None),
    )


def challenge_prepare(
    *,
    day: dt.date,
    game: str,
    seconds: float = 10.0,
    max_seeds: int = 20,
    solver: Solver | None = None,
) -> Challenge:
    """Make (day, game) ready: try seeds derived from the server secret until one is proven winnable.

    A ready challenge is left as it is. Seeds are tried in order, so preparing the
    same day again with the same secret picks up the same seeds.
    """
    find_rules(game)
    challenge, _ = Challenge.objects.get_or_create(date=day, game=game)
    if challenge.status == Challenge.Status.READY:
        return challenge
    Challenge.objects.filter(pk=challenge.pk).update(status=Challenge.Status.VERIFYING, updated_at=timezone.now())
    solve = solver or default_solver
    tried = challenge.seeds_tried
    for index in range(tried, tried + max_seeds):
        seed = days.derive_seed(day=day, game=game, attempt=index)
        outcome = solve(game, seed, seconds)
        if outcome.status == "solved" and _proves_win(game, seed, outcome.moves):
            return _challenge_mark_ready(challenge_id=challenge.pk, seed=seed, outcome=outcome, tried=index + 1)
        logger.info("seed %s for %s %s: %s", index, day, game, outcome.status)
    Challenge.objects.filter(pk=challenge.pk).update(
        status=Challenge.Status.FAILED,
        seeds_tried=tried + max_seeds,
        failure=f"no seed of {max_seeds} tried was proven winnable within {seconds:g} s each",
    )
    challenge.refresh_from_db()
    return challenge


def challenge_verify_seed(
    *, challenge_id: int, seed: int, seconds: float = 30.0, solver: Solver | None = None
) -> Challenge:
    """Replace a challenge's seed (admin): it becomes ready only if the solver proves it winnable."""
    challenge = Challenge.objects.get(pk=challenge_id)
    if Attempt.objects.filter(challenge=challenge).exists():
        raise Conflict("players have already started this challenge: its seed can no longer change")
    Challenge.objects.filter(pk=challenge.pk).update(status=Challenge.Status.VERIFYING, updated_at=timezone.now())
    outcome = (solver or default_solver)(challenge.game, seed, seconds)
    if outcome.status == "solved" and _proves_win(challenge.game, seed, outcome.moves):
        return _challenge_mark_ready(challenge_id=challenge.pk, seed=seed, outcome=outcome, tried=challenge.seeds_tried)
    Challenge.objects.filter(pk=challenge.pk).update(
        status=Challenge.Status.FAILED,
        seed=seed,
        solver_status=outcome.status,
        solver_nodes=outcome.nodes,
        solver_seconds=outcome.seconds,
        solution=[],
        difficulty=None,
        failure=f"seed {seed}: the solver answered {outcome.status} within {seconds:g} s",
    )
    challenge.refresh_from_db()
    return challenge


def _proves_win(game: str, seed: int, moves: list[str]) -> bool:
    """A deal is published only on a log the engine itself replays to a win."""
    try:
        return replay(game, seed, moves).state.won
    except EngineError:
        return False


def _challenge_mark_ready(*, challenge_id: int, seed: int, outcome: SolveOutcome, tried: int) -> Challenge:
    Challenge.objects.filter(pk=challenge_id).update(
        status=Challenge.Status.READY,
        seed=seed,
        solution=outcome.moves,
        solver_status=outcome.status,
        solver_nodes=outcome.nodes,
        solver_seconds=outcome.seconds,
        difficulty=outcome.difficulty,
        seeds_tried=tried,
        failure="",
    )
    return Challenge.objects.get(pk=challenge_id)


# --- Attempts ---------------------------------------------------------------------------------------


def attempt_start(*, player: AbstractBaseUser, challenge: Challenge) -> Attempt:
    """The first attempt of a player on a challenge, on its own day, is ranked; the rest are practice."""
    if not challenge.is_playable:
        raise NotFound(f"the {challenge.game} challenge of {challenge.date} is not open for play")
    today = days.today()
    if challenge.date > today:
        raise NotFound(f"the {challenge.game} challenge of {challenge.date} is not open yet")
    if challenge.date == today:
        ranked = Attempt.objects.filter(player=player, challenge=challenge, ranked=True).first()
        if ranked is not None and not ranked.is_finished:
            # Practice on the day's own deal while the ranked attempt is open would let a player
            # look through the stock first: finish (or give up) the ranked attempt before.
            raise Conflict(
                f"your ranked attempt {ranked.pk} on this challenge is still open: finish it or give up first",
                details={"attempt": ranked.pk},
            )
    if challenge.date == today and not Attempt.objects.filter(player=player, challenge=challenge).exists():
        try:
            with transaction.atomic():
                return Attempt.objects.create(player=player, challenge=challenge, ranked=True)
        except IntegrityError:
            pass  # a ranked attempt was created at the same moment: this one is practice
    return Attempt.objects.create(player=player, challenge=challenge, ranked=False)


def attempt_get(*, attempt_id: int, player: AbstractBaseUser) -> Attempt:
    """The player's own attempt; another player's is not found, not forbidden (its id says nothing)."""
    try:
        return Attempt.objects.select_related("challenge").get(pk=attempt_id, player=player)
    except Attempt.DoesNotExist:
        raise NotFound(f"attempt {attempt_id} not found") from None


def attempt_replay(attempt: Attempt) -> State:
    """The attempt's position: its stored log (always legal) replayed from the deal."""
    state = State(deal(attempt.challenge.game, attempt.challenge.seed_int))
    error = play_log(state, attempt.moves)
    if error is not None:  # pragma: no cover - stored logs are checked move by move
        raise RuntimeError(f"stored log of attempt {attempt.pk} does not replay: {error}")
    return state


def _new_tail(stored: list[str], start: int, moves: list[str]) -> list[str]:
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


@dataclass
class MovesOutcome:
    attempt: Attempt
    state: State
    applied: int


def attempt_append_moves(*, attempt_id: int, player: AbstractBaseUser, start: int, moves: list[str]) -> MovesOutcome:
    """Append a batch at index ``start``: a resent batch is harmless, an illegal move stores nothing."""
    with transaction.atomic():
        attempt = _attempt_for_update(attempt_id=attempt_id, player=player)
        if attempt.is_finished:
            raise Conflict("this attempt has ended: start a new one to play again")
        tail = _new_tail(attempt.moves, start, moves)
        state = attempt_replay(attempt)
        error = play_log(state, tail, start=len(attempt.moves))
        if error is not None:
            raise IllegalMove(f"move {error.index} ({error.move!r}) is illegal: {error.reason}",
                              details=error.to_json())
        if tail:
            attempt.moves = attempt.moves + tail
            attempt.save(update_fields=["moves"])
    return MovesOutcome(attempt=attempt, state=state, applied=len(tail))


def _attempt_for_update(*, attempt_id: int, player: AbstractBaseUser) -> Attempt:
    try:
        return Attempt.objects.select_for_update().select_related("challenge").get(pk=attempt_id, player=player)
    except Attempt.DoesNotExist:
        raise NotFound(f"attempt {attempt_id} not found") from None


def attempt_hint(*, attempt_id: int, player: AbstractBaseUser) -> Hint | None:
    """A move suggested from what the player sees; the attempt is marked assisted from then on."""
    with transaction.atomic():
        attempt = _attempt_for_update(attempt_id=attempt_id, player=player)
        if attempt.is_finished:
            raise Conflict("this attempt has ended: hints are for attempts in play")
        suggestion = hint(attempt_replay(attempt))
        if not attempt.assisted:
            attempt.assisted = True
            attempt.save(update_fields=["assisted"])
    return suggestion


def attempt_submit(
    *, attempt_id: int, player: AbstractBaseUser, start: int | None = None, moves: list[str] | None = None
) -> tuple[Submission, bool]:
    """End the attempt and store its final log for validation; a second submit returns the first.

    An optional last batch (``start``, ``moves``) is stored unchecked with the log:
    the worker's replay decides whether it is legal, and keeps the error if not.
    """
    with transaction.atomic():
        attempt = _attempt_for_update(attempt_id=attempt_id, player=player)
        existing = Submission.objects.filter(attempt=attempt).first()
        if existing is not None:
            return existing, False
        log = list(attempt.moves)
        if moves:
            log += _new_tail(log, len(log) if start is None else start, moves)
        attempt.moves = log
        attempt.finished_at = timezone.now()
        attempt.save(update_fields=["moves", "finished_at"])
        submission = Submission.objects.create(attempt=attempt, moves=log)
        submission_id = submission.pk
        transaction.on_commit(lambda: _enqueue_validation(submission_id))
    return submission, True


def _enqueue_validation(submission_id: int) -> None:
    """After commit: the submission is stored, so a broker failure loses nothing (the sweep resends it).

    Never waits on a broker that is down: no publish retries, no result
    subscription (the result is the Submission row), short socket timeouts
    (settings), and while ``config.circuit.BROKER`` is open not even a try.
    """
    from kombu.exceptions import OperationalError as KombuOperationalError
    from redis import RedisError

    from config.circuit import BROKER
    from games.tasks import validate_submission

    if BROKER.is_open():
        logger.warning("broker down: submission %s stays pending until the resend sweep", submission_id)
        return
    try:
        validate_submission.apply_async((submission_id,), retry=False, ignore_result=True)
    except (KombuOperationalError, RedisError, OSError) as exc:
        BROKER.trip(exc)
        logger.warning("could not enqueue validation of submission %s (%s); the sweep will retry", submission_id, exc)
    except Exception:
        logger.exception("could not enqueue validation of submission %s; the sweep will retry", submission_id)


def submissions_resend_pending(*, older_than: dt.timedelta = dt.timedelta(minutes=2)) -> int:
    """Enqueue again the submissions still pending after ``older_than`` (a lost task, a broker outage)."""
    cutoff = timezone.now() - older_than
    ids = list(
        Submission.objects.filter(status=Submission.Status.PENDING, created_at__lt=cutoff).values_list("id", flat=True)
    )
    for submission_id in ids:
        _enqueue_validation(submission_id)
    return len(ids)


# --- Submissions ------------------------------------------------------------------------------------


def submission_validate(*, submission_id: int) -> Submission:
    """Replay the whole log from the deal, score it, store the result. Idempotent."""
    with transaction.atomic():
        submission = (
            Submission.objects.select_for_update()
            .select_related("attempt__challenge")
            .get(pk=submission_id)
        )
        if submission.status != Submission.Status.PENDING:
            return submission
        attempt = submission.attempt
        challenge = attempt.challenge
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
            assisted=attempt.assisted,
            won=state.won,
            score=state.score,
            moves=state.moves,
            foundation_cards=state.on_foundations,
            redeals=sum(1 for record in state.history if record[0] == REDEAL),
            play_time_ms=max(0, int((finished_at - attempt.started_at).total_seconds() * 1000)),
            finished_at=finished_at,
        )
        submission.status = Submission.Status.VALID
        submission.error = None
        submission.save(update_fields=["status", "error", "validations", "validated_at"])
        result_id = result.pk
        transaction.on_commit(lambda: _leaderboard_record(result_id))
    return submission


def _leaderboard_record(result_id: int) -> None:
    try:
        from leaderboard.services import leaderboard_record_result

        leaderboard_record_result(result_id=result_id)
    except Exception:  # the board is rebuilt from PostgreSQL on its next read
        logger.exception("leaderboard update failed for result %s", result_id)


def submission_revalidate(*, submission_id: int) -> Submission:
    """Admin: drop the stored verdict and replay the log again (same rules, same deal)."""
    with transaction.atomic():
        submission = Submission.objects.select_for_update().select_related("attempt").get(pk=submission_id)
        result = Result.objects.filter(submission=submission).first()
        disqualified = bool(result and result.disqualified)
        if result is not None:
            result.delete()
        submission.status = Submission.Status.PENDING
        submission.error = None
        submission.save(update_fields=["status", "error"])
        submission = submission_validate(submission_id=submission_id)
        new_result = Result.objects.filter(submission=submission).first()
        if disqualified and new_result is not None:
            Result.objects.filter(pk=new_result.pk).update(disqualified=True)
        challenge_id, player_id = submission.attempt.challenge_id, submission.attempt.player_id
        transaction.on_commit(lambda: _leaderboard_refresh(challenge_id=challenge_id, player_id=player_id))
    return submission


def _leaderboard_refresh(*, challenge_id: int, player_id: int) -> None:
    try:
        from leaderboard.services import leaderboard_rebuild, player_stats_recompute

        leaderboard_rebuild(challenge_id=challenge_id)
        player_stats_recompute(player_id=player_id)
    except Exception:
        logger.exception("leaderboard refresh failed for challenge %s", challenge_id)


def result_disqualify(*, result_id: int) -> Result:
    """Admin: the result leaves every board; it stays stored, marked."""
    with transaction.atomic():
        result = Result.objects.select_for_update().get(pk=result_id)
        if not result.disqualified:
            result.disqualified = True
            result.save(update_fields=["disqualified"])
            transaction.on_commit(lambda: _leaderboard_remove(result_id))
    return result


def _leaderboard_remove(result_id: int) -> None:
    try:
        from leaderboard.services import leaderboard_remove_result

        leaderboard_remove_result(result_id=result_id)
    except Exception:
        logger.exception("leaderboard removal failed for result %s", result_id)
