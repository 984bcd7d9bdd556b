"""The unlocked path of a moves batch (one conditional UPDATE from the cached position) on PostgreSQL.

It may only ever store a legal batch that starts where the stored log ends, on the player's own
open attempt; everything else must reach the locked path and get exactly its answers.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
import time_machine
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django import DjangoCaptureOnCommitCallbacks

from engine import State, deal, visible
from games import days, services
from games.models import Attempt, Submission
from games.services import positions
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.postgres(reason="the unlocked path is PostgreSQL's (jsonb); elsewhere a batch takes the locked path"),
]


def _replayed(moves: list[str]) -> State:
    state = State(deal("klondike", 2026))
    for text in moves:
        state.play_text(text)
    return state


def _state_of(moves: list[str]) -> dict[str, Any]:
    """The visible state after ``moves``, as the API's JSON carries it."""
    state: dict[str, Any] = json.loads(json.dumps(visible(_replayed(moves))))
    return state


@pytest.fixture
def play(django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> Any:
    """A player, a token client and an open attempt on today's klondike, as the API starts it."""
    make_challenge()
    user = make_user()
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    with django_capture_on_commit_callbacks(execute=True):
        attempt_id = client.post(f"/api/v1/daily/{days.today()}/klondike/attempts").json()["id"]

    def send(start: int, moves: list[str], who: Client = client) -> tuple[int, dict[str, Any]]:
        with django_capture_on_commit_callbacks(execute=True):
            response = who.post(
                f"/api/v1/attempts/{attempt_id}/moves",
                json.dumps({"from": start, "moves": moves}),
                content_type="application/json",
            )
        return response.status_code, response.json()

    return user, attempt_id, send


def _statements(capture: CaptureQueriesContext) -> list[str]:
    return [q["sql"].split()[0].upper() for q in capture.captured_queries]


def test_a_legal_batch_is_one_update_without_a_lock_or_a_replay(play: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    _user, attempt_id, send = play
    assert send(0, ["s"])[0] == 200  # the token is read from the database once, then from the cache
    monkeypatch.setattr(positions, "attempt_replay", lambda *, attempt: pytest.fail("replayed from the deal"))
    with CaptureQueriesContext(connection) as capture:
        status, body = send(1, ["s", "s"])
    assert status == 200, body
    assert _statements(capture) == ["UPDATE"]
    assert "FOR UPDATE" not in capture.captured_queries[0]["sql"]
    assert (body["log_length"], body["applied"]) == (3, 2)
    assert body["state"] == _state_of(["s", "s", "s"])
    stored = Attempt.objects.get(pk=attempt_id)
    assert stored.moves == ["s", "s", "s"]
    # The same statement recorded each batch's receipt for the pace judge: [ms since the start, moves].
    assert [n for _ms, n in stored.batches] == [1, 2] and stored.batches[0][0] <= stored.batches[1][0]
    assert "batches = batches ||" in capture.captured_queries[0]["sql"]
    expected = _replayed(["s", "s", "s"])
    cached = cache.get(positions.position_key(attempt_id=attempt_id))
    assert cached.length == 3 and State.restore(deal("klondike", 2026), cached.snapshot).key() == expected.key()


def test_the_answer_is_the_locked_paths_answer(play: Any) -> None:
    """The same batches, once from the cache and once with it dropped before each: equal answers."""
    _user, attempt_id, send = play
    line = ["s", "s", "s", "u", "s"]
    fast = [send(i, [move]) for i, move in enumerate(line)]
    Attempt.objects.filter(pk=attempt_id).update(moves=[], assisted=False)  # the undo of a draw marked it
    slow = []
    for i, move in enumerate(line):
        cache.delete(positions.position_key(attempt_id=attempt_id))
        positions.forget_local_positions()  # as a process that holds no copy sees it
        slow.append(send(i, [move]))
    for (s1, b1), (s2, b2) in zip(fast, slow, strict=True):
        assert s1 == s2 == 200
        b1.pop("elapsed_ms"), b2.pop("elapsed_ms")
        assert b1 == b2


def test_a_batch_behind_the_cache_takes_the_locked_path(play: Any) -> None:
    """The stored log grew without the cache knowing (another process's batch whose cache write was
    lost): the conditional UPDATE stores nothing, and the locked path decides (resend or 409)."""
    _user, attempt_id, send = play
    assert send(0, ["s"])[0] == 200
    Attempt.objects.filter(pk=attempt_id).update(moves=["s", "s"])  # the cache still says length 1
    status, body = send(1, ["u"])
    assert status == 409 and body["error"]["details"]["expected_from"] == 2, body
    assert Attempt.objects.get(pk=attempt_id).moves == ["s", "s"]
    status, body = send(1, ["s"])  # what the log holds: a harmless resend
    assert status == 200 and body["applied"] == 0 and body["log_length"] == 2
    assert body["state"] == _state_of(["s", "s"])


def test_an_ended_attempt_takes_nothing_even_with_its_position_cached(play: Any) -> None:
    _user, attempt_id, send = play
    assert send(0, ["s"])[0] == 200
    Attempt.objects.filter(pk=attempt_id).update(finished_at=dt.datetime.now(dt.UTC))
    status, body = send(1, ["s"])
    assert status == 409 and "ended" in body["error"]["message"]
    assert Attempt.objects.get(pk=attempt_id).moves == ["s"]


def test_another_players_id_is_not_found_even_with_its_position_cached(play: Any) -> None:
    _user, attempt_id, send = play
    assert send(0, ["s"])[0] == 200
    intruder = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(make_user())}")
    status, _body = send(1, ["s"], who=intruder)
    assert status == 404
    assert Attempt.objects.get(pk=attempt_id).moves == ["s"]


def test_an_attempt_that_reused_the_id_is_not_written_from_the_old_position(play: Any) -> None:
    _user, attempt_id, send = play
    assert send(0, ["s"])[0] == 200
    attempt = Attempt.objects.get(pk=attempt_id)
    earlier = attempt.started_at - dt.timedelta(hours=1)
    Attempt.objects.filter(pk=attempt_id).update(started_at=earlier)  # as if another attempt had this id
    with CaptureQueriesContext(connection) as capture:
        assert send(1, ["s"])[0] == 200
    assert "SELECT" in _statements(capture)  # the locked path, which replayed the real log
    assert Attempt.objects.get(pk=attempt_id).moves == ["s", "s"]


def test_an_illegal_entry_is_reported_from_the_stored_log(play: Any) -> None:
    _user, attempt_id, send = play
    assert send(0, ["s"])[0] == 200
    status, body = send(1, ["s", "f9"])  # "f9" is no move of klondike's notation
    assert status == 400, body
    details = body["error"]["details"]
    assert (details["applied"], details["log_length"], details["index"]) == (1, 2, 2)
    assert details["state"] == _state_of(["s", "s"])
    assert Attempt.objects.get(pk=attempt_id).moves == ["s", "s"]


def test_a_hint_shows_in_the_next_batch_answer(
    play: Any, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    user, attempt_id, send = play
    assert send(0, ["s"])[1]["assisted"] is False
    services.attempt_hint(attempt_id=attempt_id, player=user)
    assert send(1, ["s"])[1]["assisted"] is True


def test_the_days_end_ends_the_unlocked_path_too(play: Any) -> None:
    _user, attempt_id, send = play
    assert send(0, ["s"])[0] == 200
    with time_machine.travel(days.next_day_starts_at(days.today()) + dt.timedelta(seconds=1)):
        status, body = send(1, ["s"])
    assert status == 409 and body["error"]["code"] == "day_over", body
    assert Attempt.objects.get(pk=attempt_id).moves == ["s"]
    assert not Submission.objects.exists()


def test_a_rolled_back_caller_leaves_no_position_for_a_length_never_stored(play: Any) -> None:
    from django.db import transaction

    user, attempt_id, send = play
    assert send(0, ["s"])[0] == 200
    with pytest.raises(RuntimeError), transaction.atomic():
        services.attempt_append_moves(attempt_id=attempt_id, player=user, start=1, moves=["s"])
        raise RuntimeError("the caller's transaction fails")
    assert cache.get(positions.position_key(attempt_id=attempt_id)).length == 1
    assert Attempt.objects.get(pk=attempt_id).moves == ["s"]
