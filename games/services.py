"""Writes of the games app: preparing days, attempts, moves, submissions and their validation.

Every function here is the one place its rule lives; views and tasks call them.
A service either does all of its work or raises and leaves the database as it was.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.cache import cache
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.db.models.expressions import RawSQL
from django.utils import timezone
from rest_framework.authtoken.models import Token

from games import days, hooks
from games.engine import (
    MAX_LOG_LENGTH,
    EngineError,
    Hint,
    ReplayError,
    State,
    deal,
    find_rules,
    hint,
    play_log,
    replay,
)
from games.errors import BadRequest, Conflict, DayOver, NotFound
from games.models import Attempt, Challenge, Guest, Result, SeedVerification, Submission

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


# A challenge in VERIFYING whose preparer has not shown progress for this long is taken to be
# abandoned (its process died) and may be claimed again. A preparer touches the row after every
# seed it tries, so this only needs to exceed one seed's solver budget (SOLVER_SECONDS, the
# prepare task's 16-minute hard limit at most).
PREPARE_LEASE = dt.timedelta(minutes=20)


def challenge_prepare(
    *,
    day: dt.date,
    game: str,
    seconds: float = 10.0,
    max_seeds: int = 20,
    solver: Solver | None = None,
) -> Challenge:
    """Make (day, game) ready: try seeds derived from the server secret until one is proven winnable.

    Safe to run twice at once (two workers, a worker and ``bin/serve``'s loop): a conditional
    update claims the challenge, and only the claimant solves; the other returns the row as it
    finds it (verifying, or ready). A ready challenge is left as it is, and is never written again
    by a preparer (``_challenge_mark_ready`` only turns a VERIFYING row ready). Seeds are tried in
    order from where the last run stopped, so preparing the same day again goes on, not over.
    """
    find_rules(game)
    challenge, _ = Challenge.objects.get_or_create(date=day, game=game)
    if challenge.status == Challenge.Status.READY or not _challenge_claim(challenge_id=challenge.pk):
        challenge.refresh_from_db()
        return challenge
    challenge.refresh_from_db()
    solve = solver or default_solver
    tried = challenge.seeds_tried
    try:
        for index in range(tried, tried + max_seeds):
            seed = days.derive_seed(day=day, game=game, attempt=index)
            outcome = solve(game, seed, seconds)
            if outcome.status == "solved" and _proves_win(game, seed, outcome.moves):
                return _challenge_mark_ready(challenge_id=challenge.pk, seed=seed, outcome=outcome, tried=index + 1)
            logger.info("seed %s for %s %s: %s", index, day, game, outcome.status)
            # Progress, why this seed was skipped, and the claim kept alive (see PREPARE_LEASE).
            skipped = "seeds_lost" if outcome.status == "unsolvable" else "seeds_unknown"
            Challenge.objects.filter(pk=challenge.pk, status=Challenge.Status.VERIFYING).update(
                seeds_tried=index + 1, updated_at=timezone.now(), **{skipped: F(skipped) + 1}
            )
    except BaseException:
        # Interrupted (Ctrl-C, SIGTERM, a time limit): give the claim back at once rather than after the lease.
        Challenge.objects.filter(pk=challenge.pk, status=Challenge.Status.VERIFYING).update(
            status=Challenge.Status.PENDING, updated_at=timezone.now()
        )
        raise
    Challenge.objects.filter(pk=challenge.pk, status=Challenge.Status.VERIFYING).update(
        status=Challenge.Status.FAILED,
        seeds_tried=tried + max_seeds,
        failure=f"no seed of {max_seeds} tried was proven winnable within {seconds:g} s each",
        updated_at=timezone.now(),
    )
    challenge.refresh_from_db()
    return challenge


def _challenge_claim(*, challenge_id: int) -> bool:
    """Take the challenge for preparation: pending, failed, or verifying but abandoned. One winner.

    On PostgreSQL a concurrent UPDATE waits for the first and re-checks its condition on the row
    the first wrote, so of two claims at the same moment exactly one matches.
    """
    now = timezone.now()
    claimable = Q(status__in=[Challenge.Status.PENDING, Challenge.Status.FAILED]) | Q(
        status=Challenge.Status.VERIFYING, updated_at__lt=now - PREPARE_LEASE
    )
    claimed = Challenge.objects.filter(claimable, pk=challenge_id).update(
        status=Challenge.Status.VERIFYING, failure="", updated_at=now
    )
    return claimed == 1


def challenge_verify_seed(
    *, challenge_id: int, seed: int, seconds: float = 30.0, solver: Solver | None = None
) -> Challenge:
    """Admin: give a challenge this seed, only if the solver proves it winnable and nobody has played it.

    The solver runs first, outside any transaction (players may start meanwhile). The swap then
    locks the challenge row and checks again that it has no attempt. On PostgreSQL it first takes
    the attempt table in SHARE mode for that short transaction: an attempt being inserted at that
    moment is committed (and seen) before the check, and none is inserted until the swap commits,
    so a seed can never change under a player. A seed that is not proven leaves a ready (or
    verifying) challenge as it was, with a note in ``failure``; a pending or failed one is marked
    failed with it. Raises Conflict once the challenge has attempts.
    """
    return _challenge_verify_seed(challenge_id=challenge_id, seed=seed, seconds=seconds, solver=solver)[0]


def _challenge_verify_seed(
    *, challenge_id: int, seed: int, seconds: float, solver: Solver | None
) -> tuple[Challenge, bool]:
    """challenge_verify_seed, and whether the seed was proven (and is now the challenge's)."""
    challenge = Challenge.objects.get(pk=challenge_id)
    _refuse_if_played(challenge)
    outcome = (solver or default_solver)(challenge.game, seed, seconds)
    proven = outcome.status == "solved" and _proves_win(challenge.game, seed, outcome.moves)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {connection.ops.quote_name(Attempt._meta.db_table)} IN SHARE MODE")
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        _refuse_if_played(challenge)
        if proven:
            Challenge.objects.filter(pk=challenge_id).update(**_ready_fields(seed=seed, outcome=outcome),
                                                             updated_at=timezone.now())
        elif challenge.status in (Challenge.Status.READY, Challenge.Status.VERIFYING):
            kept = f"kept seed {challenge.seed}" if challenge.seed is not None else "kept as it was"
            Challenge.objects.filter(pk=challenge_id).update(
                failure=f"replacement seed {seed}: the solver answered {outcome.status} within {seconds:g} s; {kept}",
                updated_at=timezone.now(),
            )
        else:
            Challenge.objects.filter(pk=challenge_id).update(
                status=Challenge.Status.FAILED,
                seed=seed,
                solver_status=outcome.status,
                solver_nodes=outcome.nodes,
                solver_seconds=outcome.seconds,
                solution=[],
                difficulty=None,
                failure=f"seed {seed}: the solver answered {outcome.status} within {seconds:g} s",
                updated_at=timezone.now(),
            )
    challenge.refresh_from_db()
    return challenge, proven


def seed_verification_request(
    *, challenge_id: int, seed: int, requested_by: AbstractBaseUser | None = None
) -> SeedVerification:
    """Admin: queue a proof of ``seed`` for the challenge (a task on the solver queue does the solving).

    Refused at once (Conflict) when the challenge has attempts; checked again when the seed is swapped.
    """
    challenge = Challenge.objects.get(pk=challenge_id)
    _refuse_if_played(challenge)
    with transaction.atomic():
        verification = SeedVerification.objects.create(challenge=challenge, seed=seed, requested_by=requested_by)
        verification_id = verification.pk
        transaction.on_commit(lambda: _enqueue_seed_verification(verification_id))
    return verification


def _enqueue_seed_verification(verification_id: int) -> None:
    from solver_worker.tasks import verify_seed

    try:
        verify_seed.delay(verification_id)
    except Exception:  # the row says queued; "Verify now" again sends another request
        logger.exception("could not enqueue seed verification %s", verification_id)
        SeedVerification.objects.filter(pk=verification_id, status=SeedVerification.Status.QUEUED).update(
            status=SeedVerification.Status.FAILED, message="the task could not be sent (broker down?): try again",
            finished_at=timezone.now(),
        )


def seed_verification_run(
    *, verification_id: int, seconds: float = 30.0, solver: Solver | None = None
) -> SeedVerification:
    """The solver task's work: run one queued verification, record its outcome. Idempotent.

    A verification finished, or running in a live task, is left alone; one left running by a
    task that died (older than PREPARE_LEASE) is run again.
    """
    now = timezone.now()
    runnable = Q(status=SeedVerification.Status.QUEUED) | Q(
        status=SeedVerification.Status.RUNNING, started_at__lt=now - PREPARE_LEASE
    )
    claimed = SeedVerification.objects.filter(runnable, pk=verification_id).update(
        status=SeedVerification.Status.RUNNING, started_at=now
    )
    verification = SeedVerification.objects.get(pk=verification_id)
    if not claimed:
        return verification
    status, message = SeedVerification.Status.FAILED, ""
    try:
        challenge, proven = _challenge_verify_seed(
            challenge_id=verification.challenge_id, seed=verification.seed, seconds=seconds, solver=solver
        )
    except Conflict as exc:
        message = exc.message
    except BaseException as exc:  # a time limit, a crash: recorded, then raised for the worker to log
        SeedVerification.objects.filter(pk=verification_id).update(
            status=status, message=f"the verification stopped: {exc!r}", finished_at=timezone.now()
        )
        raise
    else:
        if proven:
            status = SeedVerification.Status.PROVEN
            message = f"proven winnable: {len(challenge.solution)} moves, difficulty {challenge.difficulty}"
        else:
            message = challenge.failure or f"not proven; the challenge is {challenge.status}"
    SeedVerification.objects.filter(pk=verification_id).update(
        status=status, message=message, finished_at=timezone.now()
    )
    verification.refresh_from_db()
    return verification


def _refuse_if_played(challenge: Challenge) -> None:
    if Attempt.objects.filter(challenge=challenge).exists():
        raise Conflict("players have already started this challenge: its seed can no longer change")


def _proves_win(game: str, seed: int, moves: list[str]) -> bool:
    """A deal is published only on a log the engine itself replays to a win."""
    try:
        return replay(game, seed, moves).state.won
    except EngineError:
        return False


def _ready_fields(*, seed: int, outcome: SolveOutcome) -> dict[str, object]:
    return {
        "status": Challenge.Status.READY,
        "seed": seed,
        "solution": outcome.moves,
        "solver_status": outcome.status,
        "solver_nodes": outcome.nodes,
        "solver_seconds": outcome.seconds,
        "difficulty": outcome.difficulty,
        "failure": "",
    }


def _challenge_mark_ready(*, challenge_id: int, seed: int, outcome: SolveOutcome, tried: int) -> Challenge:
    """The claimant's proven seed, written only while the challenge is still VERIFYING.

    A row that is ready already (another preparer, whose claim this one took over, finished first;
    or an admin replacement) is returned untouched: a ready challenge's seed never changes here.
    """
    written = Challenge.objects.filter(pk=challenge_id, status=Challenge.Status.VERIFYING).update(
        **_ready_fields(seed=seed, outcome=outcome), seeds_tried=tried, updated_at=timezone.now()
    )
    if not written:
        logger.info("challenge %s was no longer being prepared: seed %s not written", challenge_id, seed)
    return Challenge.objects.get(pk=challenge_id)


# --- Attempts ---------------------------------------------------------------------------------------


def attempt_start(*, player: AbstractBaseUser, challenge: Challenge) -> Attempt:
    """The first attempt of a player on a challenge, on its own day, is ranked; the rest are practice.

    A player has at most one open attempt per challenge, enforced by the database
    (``attempt_one_open_per_player``): a start while one is open, or the loser of two
    starts sent at the same moment, is a 409 that names the open attempt. So practice on
    the day's own deal cannot look through the stock while the ranked attempt is open.
    """
    if not challenge.is_playable:
        raise NotFound(f"the {challenge.game} challenge of {challenge.date} is not open for play")
    today = days.today()
    if challenge.date > today:
        raise NotFound(f"the {challenge.game} challenge of {challenge.date} is not open yet")
    _refuse_if_open(player=player, challenge=challenge)
    ranked = challenge.date == today and not Attempt.objects.filter(
        player=player, challenge=challenge, ranked=True
    ).exists()
    try:
        with transaction.atomic():
            attempt = Attempt.objects.create(player=player, challenge=challenge, ranked=ranked)
    except IntegrityError:
        pass  # another start of this player won the race: its attempt is the open one
    else:
        # The deal's position for length 0, so that even the first batch takes the unlocked path.
        transaction.on_commit(lambda: _position_remember(attempt, State(deal(challenge.game, challenge.seed_int))))
        return attempt
    _refuse_if_open(player=player, challenge=challenge)
    raise Conflict("another attempt on this challenge was started at the same moment: reload and try again")


def _refuse_if_open(*, player: AbstractBaseUser, challenge: Challenge) -> None:
    open_attempts = Attempt.objects.filter(player=player, challenge=challenge, finished_at__isnull=True)
    open_attempt = open_attempts.only("id", "ranked").first()
    if open_attempt is not None:
        kind = "ranked" if open_attempt.ranked else "practice"
        raise Conflict(
            f"your {kind} attempt {open_attempt.pk} on this challenge is still open: finish it or give up first",
            details={"attempt": open_attempt.pk},
        )


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
    state: State  # the position of the stored log, after this batch's legal moves
    applied: int  # moves of this batch newly stored
    error: ReplayError | None = None  # the batch's first illegal entry (index in the whole log), if any
    log_length: int = 0  # moves the stored log now holds


def attempt_append_moves(*, attempt_id: int, player: AbstractBaseUser, start: int, moves: list[str]) -> MovesOutcome:
    """Append a batch at index ``start``; a resent batch is harmless.

    An illegal entry ends the batch, and the legal moves before it are stored first: the
    state and the reason reported for the illegal entry are then computed from the stored
    log alone, so they can only name cards that log has disclosed (SPEC section 7). This
    is the disclosure rule of the service: no response is ever computed from moves that
    are not stored, whether they were legal or not.

    The common batch (legal moves, starting where the cached position ends) is stored by one
    conditional statement (:func:`_append_at_position`); every other case, and any doubt, takes
    the locked path below, which alone decides errors, resends and conflicts.
    """
    fast = _append_at_position(attempt_id=attempt_id, player=player, start=start, moves=moves)
    if fast is not None:
        return fast
    with transaction.atomic():
        attempt = _attempt_for_update(attempt_id=attempt_id, player=player)
        _refuse_unless_in_play(attempt, doing="moves")
        tail = _new_tail(attempt.moves, start, moves)
        state, legal, error = _play_tail(attempt, tail)
        if legal:
            _append_to_log(attempt, legal)
            transaction.on_commit(lambda: _position_remember(attempt, state))
    return MovesOutcome(attempt=attempt, state=state, applied=len(legal), error=error, log_length=len(attempt.moves))


def _append_to_log(attempt: Attempt, legal: list[str]) -> None:
    """Store the moves after the log. On PostgreSQL the database appends them (jsonb ||): the request
    never serializes the whole log again."""
    if connection.vendor == "postgresql":
        Attempt.objects.filter(pk=attempt.pk).update(moves=RawSQL("moves || %s::jsonb", (json.dumps(legal),)))
        attempt.moves = attempt.moves + legal
    else:
        attempt.moves = attempt.moves + legal
        attempt.save(update_fields=["moves"])


# An open attempt's position is kept in the cache after each stored batch, so the next batch starts
# from it instead of replaying the whole log from the deal: a batch costs what its own moves cost.
# The log in the database stays the truth: a missing, expired or unreadable snapshot means a replay.
POSITION_CACHE_SECONDS = 6 * 60 * 60


@dataclass(frozen=True)
class _Position:
    """What the cache holds for an open attempt: the position after its first ``length`` moves, and
    the attempt's unchanging facts, so that a batch can be checked without reading the attempt.

    The log only ever grows by appending legal moves, so its length names its content; the start
    time tells the attempt from another one that reused its id (a test database)."""

    length: int
    snapshot: tuple
    player_id: int
    challenge_id: int
    started_at: dt.datetime
    game: str
    seed: int
    date: dt.date
    ranked: bool

    def fits(self, attempt: Attempt) -> bool:
        return (self.player_id, self.challenge_id, self.started_at) == (
            attempt.player_id, attempt.challenge_id, attempt.started_at
        ) and self.length == len(attempt.moves)


def _position_key(attempt_id: int) -> str:
    return f"dp:position:{attempt_id}"


def _position_cached(attempt_id: int) -> _Position | None:
    try:
        cached = cache.get(_position_key(attempt_id))
    except Exception:  # a cache is never needed: replay
        logger.warning("position cache unreadable for attempt %s", attempt_id, exc_info=True)
        return None
    return cached if isinstance(cached, _Position) else None


def attempt_position(attempt: Attempt) -> State:
    """The position after the attempt's stored log: from the snapshot cached with it, else replayed."""
    cached = _position_cached(attempt.pk)
    if cached is not None and cached.fits(attempt):
        try:
            return State.restore(deal(attempt.challenge.game, attempt.challenge.seed_int), cached.snapshot)
        except (TypeError, ValueError):
            logger.warning("position snapshot of attempt %s does not fit its deal: replaying", attempt.pk)
    return attempt_replay(attempt)


def _position_remember(attempt: Attempt, state: State, length: int | None = None) -> None:
    """After the commit (a rolled-back batch must leave no snapshot for a length it never stored)."""
    challenge = attempt.challenge
    position = _Position(
        length=len(attempt.moves) if length is None else length,
        snapshot=state.snapshot(),
        player_id=attempt.player_id,
        challenge_id=challenge.pk,
        started_at=attempt.started_at,
        game=challenge.game,
        seed=challenge.seed_int,
        date=challenge.date,
        ranked=attempt.ranked,
    )
    try:
        cache.set(_position_key(attempt.pk), position, POSITION_CACHE_SECONDS)
    except Exception:
        logger.warning("position cache not written for attempt %s", attempt.pk, exc_info=True)


# The one statement of the common batch. Each condition is a reason the locked path must decide
# instead: another player's attempt, another attempt under this id, an ended attempt, or a log that
# is no longer the cached position's (a batch of another tab or a retry got there first).
_APPEND_AT_LENGTH = """
    UPDATE games_attempt SET moves = moves || %s::jsonb
    WHERE id = %s AND player_id = %s AND challenge_id = %s AND started_at = %s
      AND finished_at IS NULL AND jsonb_array_length(moves) = %s
    RETURNING assisted
"""


def _append_at_position(
    *, attempt_id: int, player: AbstractBaseUser, start: int, moves: list[str]
) -> MovesOutcome | None:
    """Store a batch of legal moves that starts where the cached position ends, without a lock or a
    transaction: one conditional UPDATE that appends only if the stored log still has exactly the
    cached position's length (so it is the log that position was computed from), the attempt is the
    player's and still open. None means "not this case": the caller takes the locked path.

    Why it is sound: the snapshot for length L was computed from the first L stored moves, which never
    change (logs only grow); the UPDATE checks, atomically with the append, that the log has L moves,
    so two batches racing from L cannot both be stored, and the loser is decided by the locked path.
    Only legal batches take this path, so illegal entries are always reported from the stored log.
    """
    if connection.vendor != "postgresql" or not moves or start + len(moves) > MAX_LOG_LENGTH:
        return None
    cached = _position_cached(attempt_id)
    if cached is None or cached.length != start or cached.player_id != player.pk:
        return None
    challenge = Challenge(pk=cached.challenge_id, date=cached.date, game=cached.game, seed=cached.seed)
    if cached.ranked and _day_is_over(challenge):
        return None  # the locked path answers day_over
    try:
        state = State.restore(deal(cached.game, cached.seed), cached.snapshot)
    except (TypeError, ValueError):
        return None
    if play_log(state, moves, start=start) is not None:
        return None  # an illegal entry: reported by the locked path, from the stored log
    with connection.cursor() as cursor:
        cursor.execute(
            _APPEND_AT_LENGTH,
            [json.dumps(moves), attempt_id, player.pk, cached.challenge_id, cached.started_at, start],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    attempt = Attempt(
        pk=attempt_id,
        player_id=player.pk,
        challenge=challenge,
        ranked=cached.ranked,
        assisted=row[0],
        started_at=cached.started_at,
        finished_at=None,
    )
    length = start + len(moves)
    # On commit: at once in autocommit (a request), and never for a caller's transaction that rolls back.
    transaction.on_commit(lambda: _position_remember(attempt, state, length))
    return MovesOutcome(attempt=attempt, state=state, applied=len(moves), log_length=length)


def _play_tail(attempt: Attempt, tail: list[str]) -> tuple[State, list[str], ReplayError | None]:
    """The stored log's position after the tail's legal prefix, that prefix, and the first illegal entry."""
    state = attempt_position(attempt)
    error = play_log(state, tail, start=len(attempt.moves))
    legal = tail if error is None else tail[: error.index - len(attempt.moves)]
    return state, legal, error


def _refuse_unless_in_play(attempt: Attempt, *, doing: str) -> None:
    """An ended attempt takes nothing more; a ranked one takes nothing once its day is over."""
    if attempt.is_finished:
        raise Conflict(f"this attempt has ended: start a new one to play again ({doing} refused)")
    if attempt.ranked and _day_is_over(attempt.challenge):
        raise _day_over(attempt, doing=doing)


def _day_is_over(challenge: Challenge) -> bool:
    return challenge.date < days.today()


def _day_over(attempt: Attempt, *, doing: str) -> DayOver:
    ended = days.next_day_starts_at(attempt.challenge.date)
    return DayOver(
        f"the {attempt.challenge.date} challenge ended at {ended.isoformat()}, and with it ranked play: "
        f"{doing} can no longer change this ranked attempt. Submit it without moves to record it as it stands.",
        details={"attempt": attempt.pk, "ended_at": ended.isoformat()},
    )


def _attempt_for_update(*, attempt_id: int, player: AbstractBaseUser | None) -> Attempt:
    """The attempt locked (the player's own; any, with ``player=None``, for the service's own sweeps)."""
    owner = {} if player is None else {"player": player}
    try:
        # of=("self",): the attempt's row alone. Locking its challenge too made every batch of every
        # player of that challenge wait for the others.
        return Attempt.objects.select_for_update(of=("self",)).select_related("challenge").get(
            pk=attempt_id, **owner
        )
    except Attempt.DoesNotExist:
        raise NotFound(f"attempt {attempt_id} not found") from None


def attempt_hint(*, attempt_id: int, player: AbstractBaseUser) -> Hint | None:
    """A move suggested from what the player sees; the attempt is marked assisted from then on."""
    with transaction.atomic():
        attempt = _attempt_for_update(attempt_id=attempt_id, player=player)
        _refuse_unless_in_play(attempt, doing="hints")
        suggestion = hint(attempt_position(attempt))
        if not attempt.assisted:
            attempt.assisted = True
            attempt.save(update_fields=["assisted"])
    return suggestion


def attempt_submit(
    *, attempt_id: int, player: AbstractBaseUser, start: int | None = None, moves: list[str] | None = None
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
        attempt = _attempt_for_update(attempt_id=attempt_id, player=player)
        existing = Submission.objects.filter(attempt=attempt).first()
        if existing is not None:
            _refuse_a_different_submit(existing, start=start, moves=moves or [])
            return existing, False
        tail = _new_tail(attempt.moves, len(attempt.moves) if start is None else start, moves) if moves else []
        if tail and attempt.ranked and _day_is_over(attempt.challenge):
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
        _state, legal, _error = _play_tail(attempt, tail)
        attempt.moves = log + legal
    now = timezone.now()
    attempt.finished_at = min(now, days.next_day_starts_at(attempt.challenge.date)) if attempt.ranked else now
    attempt.save(update_fields=["moves", "finished_at"])
    submission = Submission.objects.create(attempt=attempt, moves=log + tail)
    submission_id = submission.pk
    transaction.on_commit(lambda: _enqueue_validation(submission_id))
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
            attempt = _attempt_for_update(attempt_id=attempt_id, player=None)
            if attempt.is_finished or Submission.objects.filter(attempt=attempt).exists():
                continue
            _attempt_close(attempt, tail=[])
            closed += 1
    if closed:
        logger.info("closed %s ranked attempts left open after their day", closed)
    return closed


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
        Submission.objects.filter(status=Submission.Status.PENDING, created_at__lt=cutoff)
        .order_by("created_at")  # the longest waiting first
        .values_list("id", flat=True)
    )
    for submission_id in ids:
        _enqueue_validation(submission_id)
    return len(ids)


# --- Submissions ------------------------------------------------------------------------------------


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
            redeals=state.redeals,
            play_time_ms=attempt.play_time_ms(finished_at),
            finished_at=finished_at,
        )
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
        transaction.on_commit(
            lambda: hooks.send(hooks.results_changed, challenge_id=challenge_id, player_id=player_id)
        )
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


# --- Players --------------------------------------------------------------------------------------


def player_register(*, username: str, password: str) -> str:
    """Create a player and return an API token. A taken name is a 409, a weak password a 400."""
    User = get_user_model()
    username_field = User._meta.get_field("username")
    try:
        for validator in username_field.validators:
            validator(username)
        validate_password(password, user=User(username=username))
    except DjangoValidationError as exc:
        raise BadRequest(" ".join(exc.messages)) from None
    if User.objects.filter(username__iexact=username).exists():
        raise Conflict(f"the username {username!r} is taken")
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            token = Token.objects.create(user=user)
    except IntegrityError:
        raise Conflict(f"the username {username!r} is taken") from None
    return token.key


# --- Guests -----------------------------------------------------------------------------------------


def guest_create() -> AbstractBaseUser:
    """A visitor who plays before signing up: a player named ``guest-`` and six hex digits, with no
    password (nobody can log in as it), marked by a Guest row. Its first attempt is ranked as anyone's."""
    User = get_user_model()
    for _ in range(20):
        username = f"guest-{secrets.token_hex(3)}"
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=username)
                user.set_unusable_password()
                user.save(update_fields=["password"])
                Guest.objects.create(user=user)
                return user
        except IntegrityError:
            continue  # that name is taken: draw another
    raise Conflict("no guest name is free right now: try again")  # pragma: no cover - 16 M names


def player_is_guest(player: AbstractBaseUser) -> bool:
    return bool(player.is_authenticated) and Guest.objects.filter(user_id=player.pk).exists()


def guest_claim(*, guest: AbstractBaseUser, account: AbstractBaseUser) -> int:
    """The guest's games become the account's, once it signs up or logs in; the guest is deleted.

    An attempt stays ranked only if it is of today's challenge and the account has no ranked
    attempt on that challenge yet: a visitor cannot get a second ranked go at a deal by playing it
    as a guest and then logging in to an account that already played it, nor keep only the best
    of several guests' days. Otherwise it becomes practice (and leaves the board). An open attempt
    whose challenge the account also has open is dropped. Returns the attempts moved.
    """
    if not Guest.objects.filter(user_id=guest.pk).exists() or guest.pk == account.pk:
        return 0
    today = days.today()
    moved = 0
    touched: set[int] = set()
    with transaction.atomic():
        guest_attempts = Attempt.objects.select_for_update(of=("self",)).filter(player_id=guest.pk)
        for attempt in guest_attempts.select_related("challenge"):
            mine = Attempt.objects.filter(player_id=account.pk, challenge_id=attempt.challenge_id)
            if attempt.finished_at is None and mine.filter(finished_at__isnull=True).exists():
                attempt.delete()
                continue
            if attempt.ranked and (attempt.challenge.date != today or mine.filter(ranked=True).exists()):
                attempt.ranked = False
            attempt.player_id = account.pk
            attempt.save(update_fields=["player", "ranked"])
            Result.objects.filter(submission__attempt=attempt).update(player_id=account.pk, ranked=attempt.ranked)
            touched.add(attempt.challenge_id)
            moved += 1
        get_user_model().objects.filter(pk=guest.pk).delete()
        account_id = account.pk
        for challenge_id in touched:
            transaction.on_commit(
                lambda challenge_id=challenge_id: hooks.send(
                    hooks.results_changed, challenge_id=challenge_id, player_id=account_id
                )
            )
    return moved
