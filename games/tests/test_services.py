"""The games app's services: attempts, moves, submissions and their validation."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from engine import State, deal
from games import days, services
from games.errors import NotFound
from games.models import Attempt, Challenge, Result, Submission
from games.tests.factories import make_challenge, make_user
from solver import solve

pytestmark = pytest.mark.django_db


def solver_win(game: str, seed: int) -> list[str] | None:
    """A real winning line, from the solver (fast for the seeds used here)."""
    result = solve(game, seed, seconds=5)
    return result.moves if result.status == "solved" else None


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
    for challenge in (
        make_challenge(game="maria", status="pending", difficulty=None),
        Challenge.objects.create(date=days.today(), game="lucas", seed=3, status="ready", published=False),
    ):
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
