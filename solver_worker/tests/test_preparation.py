"""Preparing days is idempotent under concurrency: a ready challenge's seed never changes.

Races are run for real: threads with their own PostgreSQL sessions, started together
at a barrier (skipped on SQLite, which serializes every write anyway).
"""

from __future__ import annotations

import datetime as dt
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import pytest
from django.db import connection, connections, transaction
from django.utils import timezone

from core.circuit import BROKER
from games import days
from games.errors import Conflict
from games.models import Attempt, Challenge, SeedVerification
from games.services import challenges
from games.tests.factories import make_challenge, make_user
from solver_worker import services
from solver_worker.solving import SolveOutcome, Solver

pytestmark = pytest.mark.django_db(transaction=True)

DAY = dt.date(2026, 11, 30)
BOUND = 30.0


def run_together(*jobs: Callable[[], Any]) -> list[Any]:
    """Each job in its own thread (its own database session), released at once by a barrier."""
    barrier = threading.Barrier(len(jobs), timeout=BOUND)
    results: list[Any] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(i: int, job: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[i] = job()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(BOUND)
    assert not errors, errors
    return results


def solving_only(index_won: int, day: dt.date, calls: list[int] | None = None) -> Solver:
    """A solver that wins only the day's ``index_won``-th seed, slowly enough for a race to overlap."""
    seeds = [days.derive_seed(day=day, game="klondike", attempt=i) for i in range(10)]

    def solve(game: str, seed: int, seconds: float) -> SolveOutcome:
        if calls is not None:
            calls.append(seed)
        time.sleep(0.2)
        won = seeds.index(seed) == index_won
        return SolveOutcome("solved" if won else "unknown", ["w"] if won else [], 10, 0.2, 2 if won else None)

    return solve


@pytest.fixture
def proofs_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's replay of a proof is tested elsewhere; here any 'solved' counts."""
    monkeypatch.setattr(services, "_proves_win", lambda game, seed, moves: bool(moves))


@pytest.mark.postgres(reason="a race between sessions")
@pytest.mark.usefixtures("proofs_accepted")
@pytest.mark.parametrize("offset", range(3))
def test_two_prepares_at_once_give_one_ready_seed_that_never_changes(offset: int) -> None:
    day = DAY + dt.timedelta(days=offset)
    # Left alone, the first would publish seed #0 and the second, a little later, seed #1 over it.
    first, second = run_together(
        lambda: services.challenge_prepare(day=day, game="klondike", max_seeds=5, solver=solving_only(0, day)),
        lambda: services.challenge_prepare(day=day, game="klondike", max_seeds=5, solver=solving_only(1, day)),
    )
    stored = Challenge.objects.get(date=day, game="klondike")
    assert stored.status == Challenge.Status.READY
    returned_ready = [c for c in (first, second) if c.status == Challenge.Status.READY]
    assert returned_ready, (first.status, second.status)
    assert {c.seed for c in returned_ready} == {stored.seed}  # what a caller was told ready is what is stored
    assert Challenge.objects.filter(date=day, game="klondike").count() == 1
    calls: list[int] = []
    again = services.challenge_prepare(day=day, game="klondike", solver=solving_only(2, day, calls))
    assert again.seed == stored.seed and calls == []  # a ready challenge is not even solved again


@pytest.mark.usefixtures("proofs_accepted")
def test_a_ready_row_is_never_overwritten_by_a_late_preparer() -> None:
    challenge = make_challenge(day=DAY, seed=77)
    late = services._challenge_mark_ready(
        challenge_id=challenge.pk, seed=78, outcome=SolveOutcome("solved", ["w"], 1, 0.1, 1), tried=3
    )
    assert late.seed_int == 77 and late.status == Challenge.Status.READY


@pytest.mark.usefixtures("proofs_accepted")
def test_a_preparation_in_progress_is_left_to_its_owner_until_it_is_abandoned() -> None:
    challenge = Challenge.objects.create(date=DAY, game="klondike", status=Challenge.Status.VERIFYING, seeds_tried=2)
    calls: list[int] = []
    busy = services.challenge_prepare(day=DAY, game="klondike", solver=solving_only(2, DAY, calls))
    assert busy.status == Challenge.Status.VERIFYING and calls == []
    abandoned = timezone.now() - challenges.PREPARE_LEASE - dt.timedelta(seconds=1)
    Challenge.objects.filter(pk=challenge.pk).update(updated_at=abandoned)
    taken = services.challenge_prepare(day=DAY, game="klondike", solver=solving_only(2, DAY, calls))
    assert taken.status == Challenge.Status.READY and taken.seeds_tried == 3
    assert calls == [days.derive_seed(day=DAY, game="klondike", attempt=2)]  # went on from where it stopped


@pytest.mark.usefixtures("proofs_accepted")
def test_a_preparer_records_progress_so_its_claim_stays_alive(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[int, dt.datetime]] = []

    def solve(game: str, seed: int, seconds: float) -> SolveOutcome:
        row = Challenge.objects.get(date=DAY, game="klondike")
        seen.append((row.seeds_tried, row.updated_at))
        return SolveOutcome("unknown", [], 1, 0.0, None)

    failed = services.challenge_prepare(day=DAY, game="klondike", max_seeds=3, solver=solve)
    assert failed.status == Challenge.Status.FAILED and failed.seeds_tried == 3
    assert [tried for tried, _ in seen] == [0, 1, 2]
    assert seen[0][1] <= seen[1][1] <= seen[2][1]


def test_a_player_starting_during_the_replacement_solve_keeps_the_seed() -> None:
    challenge = make_challenge(day=DAY, seed=2026)

    def solve_while_a_player_starts(game: str, seed: int, seconds: float) -> SolveOutcome:
        Attempt.objects.create(player=make_user(), challenge=challenge, ranked=True)
        return SolveOutcome("solved", ["w"], 1, 0.1, 1)

    with pytest.raises(Conflict):
        services.challenge_verify_seed(challenge_id=challenge.pk, seed=5, solver=solve_while_a_player_starts)
    challenge.refresh_from_db()
    assert challenge.seed_int == 2026 and challenge.status == Challenge.Status.READY


@contextmanager
def attempt_inserted_not_committed(challenge: Challenge) -> Iterator[threading.Event]:
    """A player's start in another session, inserted and held open until the event is set."""
    inserted, commit = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def start() -> None:
        try:
            with transaction.atomic():
                Attempt.objects.create(player_id=player.pk, challenge_id=challenge.pk, ranked=True)
                inserted.set()
                commit.wait(BOUND)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)
            inserted.set()
        finally:
            connections.close_all()

    player = make_user()
    thread = threading.Thread(target=start)
    thread.start()
    inserted.wait(BOUND)
    try:
        yield commit
    finally:
        commit.set()
        thread.join(BOUND)
    assert not errors, errors


def sessions_waiting_on_a_lock() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return int(cursor.fetchone()[0])


@pytest.mark.postgres(reason="a race between sessions")
@pytest.mark.usefixtures("proofs_accepted")
def test_a_replacement_waits_for_a_start_in_flight_and_then_refuses() -> None:
    challenge = make_challenge(day=DAY, seed=2026)
    outcome: list[Any] = []

    def replace() -> None:
        try:
            services.challenge_verify_seed(
                challenge_id=challenge.pk, seed=5, solver=lambda g, s, sec: SolveOutcome("solved", ["w"], 1, 0.1, 1)
            )
            outcome.append("replaced")
        except Conflict:
            outcome.append("refused")
        finally:
            connections.close_all()

    with attempt_inserted_not_committed(challenge) as commit:
        swap = threading.Thread(target=replace)
        swap.start()
        deadline = time.monotonic() + BOUND
        while not sessions_waiting_on_a_lock() and swap.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert swap.is_alive(), f"the replacement did not wait for the start in flight: {outcome}"
        commit.set()
        swap.join(BOUND)
    assert outcome == ["refused"]
    challenge.refresh_from_db()
    assert challenge.seed_int == 2026


@pytest.mark.usefixtures("proofs_accepted")
def test_a_verification_runs_once_and_a_dead_ones_runs_again(monkeypatch: pytest.MonkeyPatch) -> None:
    challenge = Challenge.objects.create(date=DAY, game="klondike", status=Challenge.Status.FAILED, seeds_tried=20)
    calls: list[int] = []

    def solver(game: str, seed: int, seconds: float) -> SolveOutcome:
        calls.append(seed)
        return SolveOutcome("solved", ["w"], 1, 0.1, 1)

    monkeypatch.setattr(services, "default_solver", solver)
    queued = challenges.seed_verification_request(challenge_id=challenge.pk, seed=5)  # the task runs in process here
    queued.refresh_from_db()
    assert queued.status == SeedVerification.Status.PROVEN and calls == [5]
    assert queued.started_at is not None and queued.finished_at is not None and "proven" in queued.message
    again = services.seed_verification_run(verification_id=queued.pk, solver=solver)
    assert again.status == SeedVerification.Status.PROVEN and calls == [5]  # a redelivered task finds it done
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.READY and challenge.seed_int == 5

    running = SeedVerification.objects.create(challenge=challenge, seed=6, status="running", started_at=timezone.now())
    assert services.seed_verification_run(verification_id=running.pk, solver=solver).status == "running"
    SeedVerification.objects.filter(pk=running.pk).update(
        started_at=timezone.now() - challenges.PREPARE_LEASE - dt.timedelta(seconds=1)
    )
    assert services.seed_verification_run(verification_id=running.pk, solver=solver).status == "proven"
    assert calls == [5, 6]


@pytest.mark.django_db(transaction=True)  # the task is sent once the request's transaction commits
def test_a_seed_proof_that_cannot_be_sent_says_so_on_its_row_and_a_second_request_sends_it() -> None:
    challenge = make_challenge(day=DAY, seed=2026)
    down = mock.Mock()
    down.apply_async.side_effect = OSError("broker down")
    with mock.patch("core.tasks.task", return_value=down):
        failed = challenges.seed_verification_request(challenge_id=challenge.pk, seed=5)
    failed.refresh_from_db()
    assert failed.status == SeedVerification.Status.FAILED and "could not be sent" in failed.message
    assert BROKER.is_open()
    BROKER.reset()  # the broker is back: "Verify now" again
    sent = mock.Mock()
    with mock.patch("core.tasks.task", return_value=sent):
        again = challenges.seed_verification_request(challenge_id=challenge.pk, seed=5)
    again.refresh_from_db()
    assert again.status == SeedVerification.Status.QUEUED
    assert sent.apply_async.call_args.kwargs["args"] == (again.pk,)


def test_a_ready_seed_that_is_not_proven_again_is_reported_failed_and_kept() -> None:
    challenge = make_challenge(day=DAY, seed=2026)
    queued = SeedVerification.objects.create(challenge=challenge, seed=2026)  # "Verify now" on its own seed
    done = services.seed_verification_run(
        verification_id=queued.pk, solver=lambda g, s, sec: SolveOutcome("unknown", [], 1, 30.0, None)
    )
    assert done.status == SeedVerification.Status.FAILED and "unknown" in done.message
    challenge.refresh_from_db()
    assert challenge.status == Challenge.Status.READY and challenge.seed_int == 2026


def test_a_verification_of_a_played_challenge_records_the_refusal() -> None:
    challenge = make_challenge(day=DAY)
    queued = SeedVerification.objects.create(challenge=challenge, seed=5)
    Attempt.objects.create(player=make_user(), challenge=challenge, ranked=True)
    done = services.seed_verification_run(
        verification_id=queued.pk, solver=lambda g, s, sec: SolveOutcome("solved", ["w"], 1, 0.1, 1)
    )
    assert done.status == SeedVerification.Status.FAILED and "already started" in done.message
    with pytest.raises(Conflict):
        challenges.seed_verification_request(challenge_id=challenge.pk, seed=6)


def test_skipped_seeds_are_counted_by_reason_and_reported() -> None:
    import io

    from django.core.management import call_command

    answers = iter(["unsolvable", "unknown", "unsolvable"])

    def solver(game: str, seed: int, seconds: float) -> SolveOutcome:
        return SolveOutcome(status=next(answers), moves=[], nodes=1, seconds=0.0, difficulty=None)

    challenge = services.challenge_prepare(day=days.today(), game="klondike", seconds=1, max_seeds=3, solver=solver)
    assert challenge.status == "failed" and challenge.seeds_tried == 3
    assert (challenge.seeds_lost, challenge.seeds_unknown) == (2, 1)
    out = io.StringIO()
    call_command("skipped_seeds", "--days", "1", stdout=out)
    line = next(row for row in out.getvalue().splitlines() if row.startswith("klondike "))
    assert line.split()[1:5] == ["1", "3", "2", "1"] and line.endswith("33.3%"), line
