"""Parallel requests of one player on PostgreSQL: starts, batches and submits that race.

Each request runs in its own thread with its own database connection, released together by a
barrier, so they really overlap. The row lock on the attempt and the partial unique indexes
decide: one start wins and the others get 409 naming its attempt; one of several different
batches or last batches is stored and the others get 409.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from games import days
from games.models import Attempt, Submission
from games.tests.factories import make_challenge, make_user, token_for
from tests.concurrency import at_once

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="races need a database with row locks and concurrent connections"),
]

PARALLEL = 5


def race(requests: list[Callable[[Client], Any]], token: str) -> list[tuple[int, dict[str, Any]]]:
    """Run the requests at the same moment, each in a thread with its own client and connection."""

    def call(request: Callable[[Client], Any]) -> tuple[int, dict[str, Any]]:
        response = request(Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token}"))
        return response.status_code, response.json()

    return at_once(*(lambda request=request: call(request) for request in requests))


@pytest.fixture
def game() -> tuple[str, int]:
    """Today's klondike, a player's token, and that player's open attempt, started outside any race."""
    make_challenge()
    token = token_for(make_user())
    return token, open_attempt(token)


def open_attempt(token: str) -> int:
    """A fresh attempt of the token's player on today's klondike, started outside any race."""
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    return int(client.post(f"/api/v1/daily/{days.today()}/klondike/attempts").json()["id"])


def post(path: str, body: Any = None) -> Callable[[Client], Any]:
    return lambda client: client.post(f"/api/v1/{path}", json.dumps(body or {}), content_type="application/json")


@pytest.mark.parametrize("trial", range(5))
def test_parallel_starts_open_one_attempt_and_the_others_get_409_naming_it(trial: int) -> None:
    challenge = make_challenge()
    user = make_user()
    answers = race([post(f"daily/{days.today()}/klondike/attempts")] * PARALLEL, token_for(user))
    statuses = Counter(status for status, _ in answers)
    assert statuses == {201: 1, 409: PARALLEL - 1}, answers
    winner = next(body for status, body in answers if status == 201)
    assert winner["ranked"] is True
    for status, body in answers:
        if status == 409:
            assert body["error"]["details"]["attempt"] == winner["id"]
    assert list(Attempt.objects.filter(player=user, challenge=challenge).values_list("id", flat=True)) == [winner["id"]]


def test_parallel_different_batches_store_exactly_one_of_them(game: tuple[str, int]) -> None:
    token, attempt_id = game
    batches = [["s"] * (i + 1) for i in range(PARALLEL)]
    answers = race([post(f"attempts/{attempt_id}/moves", {"from": 0, "moves": b}) for b in batches], token)
    stored = Attempt.objects.get(pk=attempt_id).moves
    # Batches of draws are prefixes of one another: the first stored wins, a longer one extends it,
    # a shorter one is a harmless resend. Whatever the order, the stored log is one of the batches.
    assert stored in batches
    assert all(status == 200 for status, _ in answers), answers
    assert sum(body["applied"] for _, body in answers) == len(stored)
    assert_receipts_add_up(attempt_id)


def assert_receipts_add_up(attempt_id: int) -> None:
    """The pace judge's receipts (games.pace) match the stored log whatever raced: a race cannot make
    a game's pace unjudgeable."""
    attempt = Attempt.objects.get(pk=attempt_id)
    assert sum(n for _ms, n in attempt.batches) == len(attempt.moves) and all(n > 0 for _ms, n in attempt.batches)


def test_parallel_conflicting_batches_store_one_and_409_the_others(game: tuple[str, int]) -> None:
    token, attempt_id = game
    batches = [["s", "u"], ["s", "s"], ["s", "s", "s"], ["s", "u", "s"], ["s", "s", "u"]]
    answers = race([post(f"attempts/{attempt_id}/moves", {"from": 0, "moves": b}) for b in batches], token)
    stored = Attempt.objects.get(pk=attempt_id).moves
    assert stored in batches
    for (status, body), batch in zip(answers, batches, strict=True):
        agrees = stored[: len(batch)] == batch or batch[: len(stored)] == stored
        assert status == (200 if agrees else 409), (batch, stored, body)
    assert_receipts_add_up(attempt_id)


def test_parallel_submits_with_different_last_batches_make_one_submission(game: tuple[str, int]) -> None:
    token, attempt_id = game
    batches = [["s"] * (i + 1) for i in range(PARALLEL)]
    answers = race([post(f"attempts/{attempt_id}/submit", {"from": 0, "moves": b}) for b in batches], token)
    submission = Submission.objects.get(attempt_id=attempt_id)
    assert Attempt.objects.get(pk=attempt_id).moves == submission.moves
    for (status, body), batch in zip(answers, batches, strict=True):
        if batch == submission.moves:
            assert status == 202 and body["id"] == submission.pk
        else:
            assert status == 409 and body["error"]["details"]["submission"] == submission.pk, body
    assert Counter(status for status, _ in answers) == {202: 1, 409: PARALLEL - 1}
    assert_receipts_add_up(attempt_id)


def test_a_batch_racing_a_submit_is_stored_before_it_or_refused(game: tuple[str, int]) -> None:
    token, attempt_id = game
    answers = race(
        [post(f"attempts/{attempt_id}/moves", {"from": 0, "moves": ["s", "s"]}), post(f"attempts/{attempt_id}/submit")],
        token,
    )
    (moves_status, _), (submit_status, _) = answers
    submission = Submission.objects.get(attempt_id=attempt_id)
    assert submit_status == 202
    if moves_status == 200:
        assert submission.moves == ["s", "s"]
    else:
        assert moves_status == 409 and submission.moves == []
    assert Attempt.objects.get(pk=attempt_id).moves == submission.moves
    assert_receipts_add_up(attempt_id)
