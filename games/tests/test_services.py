"""Services of the games app against the real database: preparing days, attempts, validation."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import days, services
from games.engine import State, deal
from games.errors import Conflict, NotFound
from games.models import Attempt, Challenge, Result, Submission
from games.services import SolveOutcome
from games.tests.factories import make_challenge, make_user

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 30)


def solver_win(game: str, seed: int) -> list[str] | None:
    """A real winning line, from the solver (fast for the seeds used here)."""
    from solver_worker.search import solve

    result = solve(game, seed, seconds=5)
    return result.moves if result.status == "solved" else None


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
    challenge = services.challenge_prepare(day=DAY, game="klondike", solver=answer, max_seeds=5)
    assert challenge.status == Challenge.Status.READY
    assert challenge.seed_int == real_seed and challenge.solution == win
    assert challenge.seeds_tried == 4 and challenge.difficulty == 3
    assert calls["n"] == 4  # the fake win on the 3rd seed was refused: the engine replays every proof
    again = services.challenge_prepare(day=DAY, game="klondike", solver=ScriptedSolver())
    assert again.seed_int == real_seed  # a ready challenge is left as it is


def test_prepare_fails_when_no_seed_is_proven() -> None:
    challenge = services.challenge_prepare(day=DAY, game="maria", solver=ScriptedSolver(), max_seeds=3)
    assert challenge.status == Challenge.Status.FAILED and challenge.seed is None
    assert "3" in challenge.failure and challenge.seeds_tried == 3


def test_replacing_a_seed_after_play_started_is_refused() -> None:
    challenge = make_challenge(day=DAY)
    Attempt.objects.create(player=make_user(), challenge=challenge, ranked=False)
    with pytest.raises(Conflict):
        services.challenge_verify_seed(challenge_id=challenge.pk, seed=5, solver=ScriptedSolver("solved"))
    challenge.refresh_from_db()
    assert challenge.seed_int == 2026 and challenge.status == Challenge.Status.READY


def test_replacing_a_seed_that_is_not_proven_keeps_a_ready_challenge_as_it_was() -> None:
    challenge = make_challenge(day=DAY)
    done = services.challenge_verify_seed(challenge_id=challenge.pk, seed=5, solver=ScriptedSolver("unknown"))
    assert done.status == Challenge.Status.READY and done.seed_int == 2026 and "seed 5" in done.failure


def test_a_seed_that_is_not_proven_fails_a_challenge_that_was_not_ready() -> None:
    challenge = make_challenge(day=DAY, status=Challenge.Status.FAILED, difficulty=None)
    done = services.challenge_verify_seed(challenge_id=challenge.pk, seed=5, solver=ScriptedSolver("unknown"))
    assert done.status == Challenge.Status.FAILED and done.seed_int == 5


def test_database_allows_one_ranked_attempt_per_player_and_challenge() -> None:
    challenge, player = make_challenge(), make_user()
    Attempt.objects.create(player=player, challenge=challenge, ranked=True, finished_at=timezone.now())
    Attempt.objects.create(player=player, challenge=challenge, ranked=False, finished_at=timezone.now())
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(player=player, challenge=challenge, ranked=True, finished_at=timezone.now())


def test_database_allows_one_open_attempt_per_player_and_challenge() -> None:
    challenge, player = make_challenge(), make_user()
    Attempt.objects.create(player=player, challenge=challenge, ranked=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        Attempt.objects.create(player=player, challenge=challenge, ranked=False)
    Attempt.objects.create(player=make_user(), challenge=challenge, ranked=False)  # another player's is fine


def test_unpublished_or_unready_challenges_cannot_be_started() -> None:
    player = make_user()
    for challenge in (make_challenge(game="maria", status="pending", difficulty=None),
                      Challenge.objects.create(date=days.today(), game="lucas", seed=3, status="ready",
                                               published=False)):
        with pytest.raises(NotFound):
            services.attempt_start(player=player, challenge=challenge)
    assert Attempt.objects.count() == 0


def test_an_illegal_entry_stores_the_legal_moves_before_it_and_nothing_after() -> None:
    player = make_user()
    attempt = services.attempt_start(player=player, challenge=make_challenge())
    services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=["s", "s"])
    outcome = services.attempt_append_moves(
        attempt_id=attempt.pk, player=player, start=2, moves=["s", "u", "u", "u", "u", "s"]
    )
    assert outcome.error is not None
    assert outcome.error.index == 6 and outcome.error.reason == "nothing to undo"
    assert outcome.applied == 4 and outcome.state.moves == 6
    attempt.refresh_from_db()
    assert attempt.moves == ["s", "s", "s", "u", "u", "u"]


def test_validation_is_idempotent_and_scores_the_whole_log() -> None:
    player = make_user()
    challenge = make_challenge()
    attempt = services.attempt_start(player=player, challenge=challenge)
    services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=["s", "s", "u"])
    submission, created = services.attempt_submit(attempt_id=attempt.pk, player=player)
    assert created and submission.status == Submission.Status.PENDING
    services.submission_validate(submission_id=submission.pk)
    services.submission_validate(submission_id=submission.pk)  # a redelivered task finds it done
    result = Result.objects.get()
    assert (result.won, result.score, result.moves, result.ranked) == (False, 0, 3, True)
    assert Submission.objects.get().validations == 1


def test_a_winning_log_scores_the_bonus() -> None:
    seed = 2
    log = solver_win("klondike", seed)
    assert log is not None
    player = make_user()
    attempt = services.attempt_start(player=player, challenge=make_challenge(seed=seed))
    services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=log)
    submission, _ = services.attempt_submit(attempt_id=attempt.pk, player=player)
    services.submission_validate(submission_id=submission.pk)
    result = Result.objects.get()
    before_last = State(deal("klondike", seed))
    for move in log[:-1]:
        before_last.play_text(move)
    assert result.won and result.moves == len(log)
    assert result.score == before_last.score + 10 + max(0, 700 - 2 * len(log))  # the last card, then the bonus


def test_disqualify_and_revalidate_keep_the_mark() -> None:
    player = make_user()
    attempt = services.attempt_start(player=player, challenge=make_challenge())
    submission, _ = services.attempt_submit(attempt_id=attempt.pk, player=player)
    services.submission_validate(submission_id=submission.pk)
    services.result_disqualify(result_id=Result.objects.get().pk)
    services.submission_revalidate(submission_id=submission.pk)
    result = Result.objects.get()
    assert result.disqualified and Submission.objects.get().status == Submission.Status.VALID


@pytest.mark.parametrize("seed", [0, 1, 2**63 - 1, 2**63, 2**64 - 1, 7829005434785440482])
def test_seeds_are_stored_exactly(seed: int) -> None:
    challenge = make_challenge(seed=seed)
    challenge.full_clean()
    assert Challenge.objects.get(pk=challenge.pk).seed_int == seed
    assert Challenge.objects.filter(seed=seed).count() == 1
