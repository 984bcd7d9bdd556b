"""A drawn seed the ordinary budget leaves undecided gets a long solve on the solver queue before it is
passed over, for days far enough ahead; nearer days never wait (services.challenge_prepare,
services.challenge_long_solve, the task solver_worker.long_solve_seed)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.test import override_settings
from django.utils import timezone

from games import days
from games.models import Challenge
from games.services.challenges import PREPARE_LEASE
from solver_worker import services, tasks
from solver_worker.solving import SolveOutcome, Solver

pytestmark = pytest.mark.django_db

GAME = "josephine"
UNKNOWN = SolveOutcome("unknown", [], 1, 0.0, None)
LOST = SolveOutcome("unsolvable", [], 1, 0.0, None)
WON = SolveOutcome("solved", ["w"], 1, 0.0, 3)


@pytest.fixture(autouse=True)
def proofs_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's replay of a proof is tested elsewhere; here any 'solved' with moves counts."""
    monkeypatch.setattr(services, "_proves_win", lambda game, seed, moves: bool(moves))


@pytest.fixture
def sent() -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    """The tasks sent, by name and arguments, instead of running them."""
    calls: list[tuple[str, tuple[Any, ...]]] = []

    def task(name: str) -> mock.Mock:
        stub = mock.Mock()
        stub.apply_async.side_effect = lambda args=(), **_: calls.append((name, tuple(args)))
        return stub

    with mock.patch("core.tasks.task", side_effect=task):
        yield calls


def seed(day: dt.date, attempt: int) -> int:
    return days.derive_seed(day=day, game=GAME, attempt=attempt)


def answering(day: dt.date, answers: dict[int, SolveOutcome], calls: list[int]) -> Solver:
    """A solver answering by the seed's attempt number (unknown for any other), recording what it was asked."""
    by_seed = {seed(day, attempt): outcome for attempt, outcome in answers.items()}
    attempts = {seed(day, attempt): attempt for attempt in range(50)}

    def solve(game: str, s: int, seconds: float) -> SolveOutcome:
        calls.append(attempts[s])
        return by_seed.get(s, UNKNOWN)

    return solve


def far() -> dt.date:
    return days.today() + dt.timedelta(days=5)


def test_an_undecided_seed_of_a_far_day_waits_for_its_long_solve_which_can_make_the_day(
    sent: list[tuple[str, tuple[Any, ...]]],
) -> None:
    day = far()
    quick: list[int] = []  # the seeds asked of the quick solve
    waiting = services.challenge_prepare(
        day=day, game=GAME, long_seconds=300, solver=answering(day, {}, quick), max_seeds=5
    )
    assert quick == [0]  # the first undecided seed stops the draw: it is not passed over
    assert waiting.status == Challenge.Status.VERIFYING
    assert (waiting.long_solve_attempt, waiting.seeds_tried, waiting.seeds_unknown) == (0, 0, 0)
    assert "long solve of seed #0" in waiting.claimed_by
    assert sent == [("solver_worker.long_solve_seed", (waiting.pk, 0))]

    slow: list[int] = []
    ready = services.challenge_long_solve(
        challenge_id=waiting.pk, attempt=0, seconds=300, solver=answering(day, {0: WON}, slow)
    )
    assert slow == [0]
    assert ready.status == Challenge.Status.READY and ready.seed_int == seed(day, 0)
    assert (ready.long_solve_attempt, ready.seeds_tried, ready.seeds_unknown) == (None, 1, 0)
    assert len(sent) == 1  # nothing more to do


def test_a_long_solve_that_wins_nothing_passes_the_seed_over_and_sends_the_preparation_on(
    sent: list[tuple[str, tuple[Any, ...]]],
) -> None:
    day = far()
    waiting = services.challenge_prepare(day=day, game=GAME, long_seconds=300, solver=answering(day, {}, []))
    done = services.challenge_long_solve(
        challenge_id=waiting.pk, attempt=0, seconds=300, solver=answering(day, {0: LOST}, [])
    )
    assert done.status == Challenge.Status.PENDING and done.claimed_by == ""
    assert (done.long_solve_attempt, done.seeds_tried, done.seeds_lost, done.seeds_unknown) == (None, 1, 1, 0)
    assert sent[-1] == ("solver_worker.prepare_challenge", (day.isoformat(), GAME))

    # The preparation goes on from the next seed: the one passed over is not solved again.
    quick: list[int] = []
    ready = services.challenge_prepare(day=day, game=GAME, long_seconds=300, solver=answering(day, {1: WON}, quick))
    assert quick == [1] and ready.status == Challenge.Status.READY and ready.seed_int == seed(day, 1)


def test_a_day_nearer_than_the_long_solves_reach_never_waits(sent: list[tuple[str, tuple[Any, ...]]]) -> None:
    day = days.today() + dt.timedelta(days=2)
    quick: list[int] = []  # the seeds asked of the quick solve
    ready = services.challenge_prepare(
        day=day, game=GAME, long_seconds=300, long_ahead_days=3, solver=answering(day, {2: WON}, quick)
    )
    assert quick == [0, 1, 2] and ready.status == Challenge.Status.READY
    assert (ready.seeds_unknown, ready.long_solve_attempt) == (2, None)
    assert sent == []


def test_without_a_long_budget_undecided_seeds_are_passed_over_at_once(
    sent: list[tuple[str, tuple[Any, ...]]],
) -> None:
    day = far()
    quick: list[int] = []  # the seeds asked of the quick solve
    ready = services.challenge_prepare(day=day, game=GAME, solver=answering(day, {1: WON}, quick))
    assert quick == [0, 1] and ready.status == Challenge.Status.READY and ready.seeds_unknown == 1
    assert sent == []


def test_a_long_solve_that_never_reports_is_passed_over_once_its_lease_runs_out_and_a_late_one_changes_nothing(
    sent: list[tuple[str, tuple[Any, ...]]],
) -> None:
    day = far()
    waiting = services.challenge_prepare(day=day, game=GAME, long_seconds=300, solver=answering(day, {}, []))
    quick: list[int] = []
    busy = services.challenge_prepare(day=day, game=GAME, long_seconds=300, solver=answering(day, {}, quick))
    assert busy.status == Challenge.Status.VERIFYING and quick == []  # the long solve holds the claim

    stale = timezone.now() - PREPARE_LEASE - dt.timedelta(seconds=1)
    Challenge.objects.filter(pk=waiting.pk).update(updated_at=stale)  # its worker died with it
    taken = services.challenge_prepare(day=day, game=GAME, long_seconds=300, solver=answering(day, {1: WON}, quick))
    assert quick == [1]  # seed #0 is passed over without another solve, let alone another long one
    assert taken.status == Challenge.Status.READY and taken.seed_int == seed(day, 1)
    assert (taken.seeds_unknown, taken.long_solve_attempt) == (1, None)

    late: list[int] = []
    after = services.challenge_long_solve(
        challenge_id=waiting.pk, attempt=0, seconds=300, solver=answering(day, {0: WON}, late)
    )
    assert late == [] and after.seed_int == seed(day, 1)  # the ready day is not touched


def test_when_the_long_solve_cannot_be_sent_the_seed_is_passed_over_at_once() -> None:
    day = far()
    quick: list[int] = []  # the seeds asked of the quick solve
    down = mock.Mock()
    down.apply_async.side_effect = OSError("broker down")
    with mock.patch("core.tasks.task", return_value=down):
        ready = services.challenge_prepare(day=day, game=GAME, long_seconds=300, solver=answering(day, {1: WON}, quick))
    assert quick == [0, 1] and ready.status == Challenge.Status.READY
    assert (ready.seeds_unknown, ready.long_solve_attempt) == (1, None)


def test_a_long_solve_stopped_by_a_crash_gives_the_challenge_back_with_the_seed_passed_over(
    sent: list[tuple[str, tuple[Any, ...]]],
) -> None:
    day = far()
    waiting = services.challenge_prepare(day=day, game=GAME, long_seconds=300, solver=answering(day, {}, []))

    def crash(game: str, s: int, seconds: float) -> SolveOutcome:
        raise MemoryError("out of memory")

    with pytest.raises(MemoryError):
        services.challenge_long_solve(challenge_id=waiting.pk, attempt=0, seconds=300, solver=crash)
    back = Challenge.objects.get(pk=waiting.pk)
    assert back.status == Challenge.Status.PENDING
    assert (back.seeds_tried, back.seeds_unknown, back.long_solve_attempt) == (1, 1, None)


def test_the_long_budget_is_capped_inside_the_preparers_lease(sent: list[tuple[str, tuple[Any, ...]]]) -> None:
    day = far()
    waiting = services.challenge_prepare(day=day, game=GAME, long_seconds=300, solver=answering(day, {}, []))
    budgets: list[float] = []

    def solve(game: str, s: int, seconds: float) -> SolveOutcome:
        budgets.append(seconds)
        return WON

    services.challenge_long_solve(challenge_id=waiting.pk, attempt=0, seconds=3600, solver=solve)
    assert budgets == [services.LONG_SOLVE_MAX_SECONDS]
    assert dt.timedelta(seconds=services.LONG_SOLVE_MAX_SECONDS) < PREPARE_LEASE


@override_settings(SOLVER_SECONDS=10, SOLVER_LONG_SECONDS=300, SOLVER_LONG_AHEAD_DAYS=3)
def test_the_prepare_task_hands_an_undecided_seed_to_the_long_solve_task(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real tasks (run in process): seed #0 undecided at 10 s is won by its 300 s solve."""
    day, budgets = far(), []

    def solve(game: str, s: int, seconds: float) -> SolveOutcome:
        budgets.append(seconds)
        return WON if seconds == 300 and s == seed(day, 0) else UNKNOWN

    monkeypatch.setattr(services, "default_solver", solve)
    assert tasks.prepare_challenge.delay(day.isoformat(), GAME).get() == "ready"
    challenge = Challenge.objects.get(date=day, game=GAME)
    assert budgets == [10, 300]
    assert challenge.status == Challenge.Status.READY and challenge.seed_int == seed(day, 0)
