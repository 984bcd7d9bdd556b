"""Preparing deals: a day's challenges proven winnable before they are published, and admins' seed proofs.

The Celery tasks of this app (solver_worker.tasks) and the management commands call these; the
solver (the pure ``solver`` package, behind one small call: ``solver_worker.solving``) does the proving,
the engine replays every win it claims. What the challenge's admin asks of a preparation (days ready, a
claim, a seed sent to be proven) is games' (``games.services.challenges``), with the lease both sides
keep to."""

from __future__ import annotations

import datetime as dt
import logging
import os
import socket
import time
from collections.abc import Iterable

from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from core import tasks
from engine import (
    GAME_IDS,
    EngineError,
    find_rules,
    replay,
)
from games import days
from games.errors import Conflict
from games.models import Attempt, Challenge, SeedVerification
from games.services.challenges import PREPARE_LEASE, refuse_if_played
from solver_worker.solving import SolveOutcome, Solver, default_solver

logger = logging.getLogger(__name__)


def days_and_games(*, first: dt.date, count: int, games: Iterable[str] = GAME_IDS) -> list[tuple[dt.date, str]]:
    """Every (day, game) of ``count`` days from ``first``, day by day in the games' order."""
    games = list(games)
    return [(first + dt.timedelta(days=offset), game) for offset in range(count) for game in games]


def challenges_to_prepare(*, first: dt.date, count: int, games: Iterable[str] = GAME_IDS) -> list[tuple[dt.date, str]]:
    """The (day, game) pairs of those days that still need a preparer: the one home of that question
    (the beat task, ``keep_days_ready`` and the admin ask it). Ready ones are done; one being prepared
    right now is left to the preparer doing it (a claim with no progress for PREPARE_LEASE is
    abandoned, and counts as needing one again: ``challenge_prepare`` takes it over)."""
    wanted = days_and_games(first=first, count=count, games=games)
    busy_since = timezone.now() - PREPARE_LEASE
    settled = (
        set(
            Challenge.objects.filter(date__range=(first, first + dt.timedelta(days=count - 1)))
            .filter(Q(status=Challenge.Status.READY) | Q(status=Challenge.Status.VERIFYING, updated_at__gte=busy_since))
            .values_list("date", "game")
        )
        if count > 0
        else set()
    )
    return [pair for pair in wanted if pair not in settled]


def challenge_prepare(
    *,
    day: dt.date,
    game: str,
    seconds: float = 10.0,
    max_seeds: int = 20,
    long_seconds: float = 0.0,
    long_ahead_days: int = 3,
    solver: Solver | None = None,
) -> Challenge:
    """Make (day, game) ready: try seeds derived from the server secret until one is proven winnable.

    A seed the ordinary budget (``seconds``) leaves undecided is passed over, which leans the daily draw
    towards the deals the solver finds easy. With ``long_seconds`` (the prepare task passes
    SOLVER_LONG_SECONDS), such a seed of a day at least ``long_ahead_days`` after today gets a long solve
    on the solver queue first (:func:`challenge_long_solve`): the challenge stays VERIFYING, this call
    returns, and the long solve either makes the day ready with that seed or sends the preparation on.
    Days nearer than that are never kept waiting for a long solve.

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
    long_due = long_seconds > 0 and (day - days.today()).days >= long_ahead_days
    try:
        for index in range(tried, tried + max_seeds):
            seed = days.derive_seed(day=day, game=game, attempt=index)
            if challenge.long_solve_attempt == index:
                # This claim took the row over from a long solve of this seed that never reported (lost
                # with its worker, or still queued when the lease ran out): the seed is passed over.
                status = "unknown"
            else:
                outcome = solve(game, seed, seconds)
                if outcome.status == "solved" and _proves_win(game, seed, outcome.moves):
                    return _challenge_mark_ready(challenge_id=challenge.pk, seed=seed, outcome=outcome, tried=index + 1)
                status = outcome.status
                if status == "unknown" and long_due and _long_solve_send(challenge_id=challenge.pk, attempt=index):
                    challenge.refresh_from_db()
                    return challenge
            logger.info("seed %s for %s %s: %s", index, day, game, status)
            # Progress, why this seed was skipped, and the claim kept alive (see PREPARE_LEASE).
            skipped = _skipped_field(status)
            Challenge.objects.filter(pk=challenge.pk, status=Challenge.Status.VERIFYING).update(
                seeds_tried=index + 1, long_solve_attempt=None, updated_at=timezone.now(), **{skipped: F(skipped) + 1}
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


# The longest long solve: it must end well inside PREPARE_LEASE, which its start renews, so that no other
# preparer takes the challenge over while it runs.
LONG_SOLVE_MAX_SECONDS = 15 * 60.0


def _long_solve_send(*, challenge_id: int, attempt: int) -> bool:
    """Hand the undecided seed ``attempt`` to a long solve on the solver queue; the claim stays held (its
    holder names the long solve). False, with nothing changed, when the task could not be sent."""
    marked = Challenge.objects.filter(pk=challenge_id, status=Challenge.Status.VERIFYING).update(
        seeds_tried=attempt,
        long_solve_attempt=attempt,
        claimed_by=f"long solve of seed #{attempt} (solver queue)",
        updated_at=timezone.now(),
    )
    if not marked:
        return False
    if tasks.send("solver_worker.long_solve_seed", args=(challenge_id, attempt)):
        return True
    Challenge.objects.filter(pk=challenge_id, long_solve_attempt=attempt).update(
        long_solve_attempt=None, claimed_by=claim_holder()
    )
    return False


def challenge_long_solve(*, challenge_id: int, attempt: int, seconds: float, solver: Solver | None = None) -> Challenge:
    """The solver task's work: the long solve of a drawn seed the ordinary budget left undecided.

    Runs only while the challenge still waits for this very seed (VERIFYING, ``long_solve_attempt`` and
    ``seeds_tried`` both ``attempt``): a task redelivered after the verdict was written, or one that arrives
    after the lease ran out and a preparer passed the seed over, changes nothing; of two running at once,
    only the first verdict is written (every write is conditional on that wait). A win the engine
    replays makes the day ready with this seed; otherwise the seed is counted as skipped (lost or
    unknown) and the preparation is sent on (``solver_worker.prepare_challenge``; if that cannot be
    sent, beat's hourly round finds the challenge pending). Stopped by a time limit or a crash, the
    seed is counted unknown and the challenge given back.
    """
    waiting = Q(pk=challenge_id, status=Challenge.Status.VERIFYING, long_solve_attempt=attempt, seeds_tried=attempt)
    if not Challenge.objects.filter(waiting).update(updated_at=timezone.now(), claimed_by=claim_holder()):
        return Challenge.objects.get(pk=challenge_id)
    challenge = Challenge.objects.get(pk=challenge_id)
    seed = days.derive_seed(day=challenge.date, game=challenge.game, attempt=attempt)
    try:
        outcome = (solver or default_solver)(challenge.game, seed, min(seconds, LONG_SOLVE_MAX_SECONDS))
    except BaseException:
        _long_solve_pass(waiting=waiting, attempt=attempt, status="unknown")
        raise
    logger.info("long solve of seed %s for %s %s: %s", attempt, challenge.date, challenge.game, outcome.status)
    if outcome.status == "solved" and _proves_win(challenge.game, seed, outcome.moves):
        return _challenge_mark_ready(
            challenge_id=challenge_id, seed=seed, outcome=outcome, tried=attempt + 1, also=waiting
        )
    if _long_solve_pass(waiting=waiting, attempt=attempt, status=outcome.status):
        tasks.send("solver_worker.prepare_challenge", args=(challenge.date.isoformat(), challenge.game))
    return Challenge.objects.get(pk=challenge_id)


def _long_solve_pass(*, waiting: Q, attempt: int, status: str) -> bool:
    """Pass over the seed of a long solve that won nothing: counted as skipped, the challenge pending again."""
    skipped = _skipped_field(status)
    passed = Challenge.objects.filter(waiting).update(
        status=Challenge.Status.PENDING,
        long_solve_attempt=None,
        seeds_tried=attempt + 1,
        claimed_by="",
        updated_at=timezone.now(),
        **{skipped: F(skipped) + 1},
    )
    return passed == 1


def claim_holder() -> str:
    """Who claims a challenge: this host and process (a Celery worker's, bin/serve's loop...)."""
    return f"{socket.gethostname()} pid {os.getpid()}"[:200]


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
        status=Challenge.Status.VERIFYING, failure="", claimed_by=claim_holder(), updated_at=now
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
    refuse_if_played(challenge=challenge)
    outcome = (solver or default_solver)(challenge.game, seed, seconds)
    proven = outcome.status == "solved" and _proves_win(challenge.game, seed, outcome.moves)
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(f"LOCK TABLE {connection.ops.quote_name(Attempt._meta.db_table)} IN SHARE MODE")
        challenge = Challenge.objects.select_for_update().get(pk=challenge_id)
        refuse_if_played(challenge=challenge)
        if proven:
            Challenge.objects.filter(pk=challenge_id).update(
                **_ready_fields(seed=seed, outcome=outcome), updated_at=timezone.now()
            )
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


# The last integrity check's figures (challenges_check), read by /metrics: {"checked", "broken", "at"}.
INTEGRITY_CACHE_KEY = "solver_worker:challenges-integrity"


def challenges_check(*, first: dt.date | None = None) -> list[str]:
    """Every ready challenge from ``first`` (default today) on, replayed by the engine: its stored solution
    must win its deal from its seed, as when it was published. What is wrong, a line per challenge (no
    seed in it: logs are read by many), each also logged as an error; the figures go to the cache for
    ``/metrics`` (``dailypatience_challenges_broken``). Beat runs it hourly; ``manage.py check_challenges``."""
    first = first or days.today()
    problems: list[str] = []
    checked = 0
    for challenge in Challenge.objects.filter(date__gte=first, status=Challenge.Status.READY).order_by("date", "game"):
        checked += 1
        if not challenge.solution:
            problems.append(f"{challenge} (id {challenge.pk}): ready without a solution")
        elif not _proves_win(challenge.game, challenge.seed_int, list(challenge.solution)):
            problems.append(f"{challenge} (id {challenge.pk}): its solution does not win its deal")
    for problem in problems:
        logger.error("challenge integrity: %s", problem)
    cache.set(
        INTEGRITY_CACHE_KEY, {"checked": checked, "broken": len(problems), "at": time.time()}, timeout=7 * 24 * 3600
    )
    return problems


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


def _challenge_mark_ready(
    *, challenge_id: int, seed: int, outcome: SolveOutcome, tried: int, also: Q | None = None
) -> Challenge:
    """The claimant's proven seed, written only while the challenge is still VERIFYING (and, for a long
    solve, ``also`` still waits for its seed).

    A row that is ready already (another preparer, whose claim this one took over, finished first;
    or an admin replacement) is returned untouched: a ready challenge's seed never changes here.
    """
    preparing = Q(pk=challenge_id, status=Challenge.Status.VERIFYING) & (also or Q())
    written = Challenge.objects.filter(preparing).update(
        **_ready_fields(seed=seed, outcome=outcome),
        seeds_tried=tried,
        long_solve_attempt=None,
        updated_at=timezone.now(),
    )
    if not written:
        logger.info("challenge %s was no longer being prepared: seed %s not written", challenge_id, seed)
    return Challenge.objects.get(pk=challenge_id)


def _skipped_field(status: str) -> str:
    """The counter of a seed passed over with the solver's ``status``: proven lost, or left undecided."""
    return "seeds_lost" if status == "unsolvable" else "seeds_unknown"
