"""Preparing a day's deals and replacing a seed (solver_worker.services)."""

from __future__ import annotations

import datetime as dt

import pytest

from games import days
from games.errors import Conflict
from games.models import Attempt, Challenge
from games.tests.factories import make_challenge, make_user
from games.tests.test_services import solver_win
from solver_worker import services as preparation
from solver_worker.solving import SolveOutcome

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)


class ScriptedSolver:
    """Answers per call from a script; 'fake-win' claims a win with a log that does not win."""

    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.seeds: list[int] = []

    def __call__(self, game: str, seed: int, seconds: float) -> SolveOutcome:
        self.seeds.append(seed)
        answer = self.answers.pop(0) if self.answers else "unknown"
        if answer == "fake-win":
            return SolveOutcome("solved", ["s"], 10, 0.01, 1)
        return SolveOutcome(answer, [], 100, 0.5, None)


def test_seeds_depend_on_the_secret_and_are_stable() -> None:
    a = days.derive_seed(day=DAY, game="klondike", attempt=0, secret="one")
    assert a == days.derive_seed(day=DAY, game="klondike", attempt=0, secret="one")
    assert a != days.derive_seed(day=DAY, game="klondike", attempt=0, secret="two")
    assert a != days.derive_seed(day=DAY, game="klondike", attempt=1, secret="one")
    assert a != days.derive_seed(day=DAY + dt.timedelta(days=1), game="klondike", attempt=0, secret="one")
    assert 0 <= a < 2**64


def test_prepare_tries_seeds_until_one_is_proven(monkeypatch: pytest.MonkeyPatch) -> None:
    solver = ScriptedSolver("unknown", "unsolvable", "fake-win", "solved")
    real_seed = days.derive_seed(day=DAY, game="klondike", attempt=3)
    win = ["s"]  # replaced below by a real win for the 4th seed when there is one
    calls = {"n": 0}

    def answer(game: str, seed: int, seconds: float) -> SolveOutcome:
        calls["n"] += 1
        outcome = solver(game, seed, seconds)
        if outcome.status == "solved" and seed == real_seed:
            return SolveOutcome("solved", list(win), 50, 0.2, 3)
        return outcome

    # Find a secret whose 4th klondike seed the solver wins quickly, so the proof is real.
    for secret in (f"s{i}" for i in range(20)):
        seed = days.derive_seed(day=DAY, game="klondike", attempt=3, secret=secret)
        line = solver_win("klondike", seed)
        if line:
            monkeypatch.setattr("django.conf.settings.DAILY_SECRET", secret)
            real_seed, win = seed, line
            break
    else:
        pytest.fail("the solver won none of 20 klondike deals")
    challenge = preparation.challenge_prepare(day=DAY, game="klondike", solver=answer, max_seeds=5)
    assert challenge.status == Challenge.Status.READY
    assert challenge.seed_int == real_seed and challenge.solution == win
    assert challenge.seeds_tried == 4 and challenge.difficulty == 3
    assert calls["n"] == 4  # the fake win on the 3rd seed was refused: the engine replays every proof
    again = preparation.challenge_prepare(day=DAY, game="klondike", solver=ScriptedSolver())
    assert again.seed_int == real_seed  # a ready challenge is left as it is


def test_prepare_fails_when_no_seed_is_proven() -> None:
    challenge = preparation.challenge_prepare(day=DAY, game="maria", solver=ScriptedSolver(), max_seeds=3)
    assert challenge.status == Challenge.Status.FAILED and challenge.seed is None
    assert "3" in challenge.failure and challenge.seeds_tried == 3


def test_replacing_a_seed_after_play_started_is_refused() -> None:
    challenge = make_challenge(day=DAY)
    Attempt.objects.create(player=make_user(), challenge=challenge, ranked=False)
    with pytest.raises(Conflict):
        preparation.challenge_verify_seed(challenge_id=challenge.pk, seed=5, solver=ScriptedSolver("solved"))
    challenge.refresh_from_db()
    assert challenge.seed_int == 2026 and challenge.status == Challenge.Status.READY


def test_replacing_a_seed_that_is_not_proven_keeps_a_ready_challenge_as_it_was() -> None:
    challenge = make_challenge(day=DAY)
    done = preparation.challenge_verify_seed(challenge_id=challenge.pk, seed=5, solver=ScriptedSolver("unknown"))
    assert done.status == Challenge.Status.READY and done.seed_int == 2026 and "seed 5" in done.failure


def test_a_seed_that_is_not_proven_fails_a_challenge_that_was_not_ready() -> None:
    challenge = make_challenge(day=DAY, status=Challenge.Status.FAILED, difficulty=None)
    done = preparation.challenge_verify_seed(challenge_id=challenge.pk, seed=5, solver=ScriptedSolver("unknown"))
    assert done.status == Challenge.Status.FAILED and done.seed_int == 5
