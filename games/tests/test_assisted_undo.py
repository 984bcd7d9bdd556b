"""No peeking by undo (SPEC section 7, issue 24): the service marks the attempt, the validator the result.

An attacker draws or turns up hidden cards, undoes to take the look back, and then plays the line
the look told it. Whichever way the undo reaches the server (the unlocked path of one batch, the
locked path, a last batch with the submit, two batches at once), the attempt is assisted from that
undo on, and its result is too. Undos that show nothing new (a second pass after a redeal, a move
that turned nothing up) stay plain undos.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django import DjangoCaptureOnCommitCallbacks

from engine import replay
from games import days, services
from games.models import Attempt, Challenge, Result, Submission
from games.services import positions
from games.tests.factories import make_challenge, make_user, token_for
from games.tests.test_apis import Api, assert_error, start
from tests.concurrency import at_once

pytestmark = pytest.mark.django_db

WINS = json.loads((Path(__file__).resolve().parent / "data" / "winning_logs.json").read_text())

# (game, seed, log, whether the log marks the attempt): one row per kind of disclosure.
PEEKS = [
    pytest.param("josephine", 1, ["s", "u"], True, id="one-pass-stock"),
    pytest.param("forty-thieves", 1, ["t7f1", "s", "s", "u"], True, id="one-pass-stock-later-draw"),
    pytest.param("forty-and-eight", 1, ["s"] * 64 + ["r", "s", "u"], False, id="two-pass-second-pass"),
    pytest.param("forty-and-eight", 1, ["s"] * 64 + ["r", "u", "u"], True, id="two-pass-first-pass"),
    pytest.param("klondike", 9, ["t6t3", "u"], True, id="klondike-turn-up"),
    pytest.param("klondike", 9, ["t1t7", "u"], False, id="klondike-plain-move"),
    pytest.param("klondike", 9, ["s"] * 24 + ["r", "s", "u"], False, id="klondike-redeal"),
    pytest.param("klondike-3", 9, ["s"] * 8 + ["r", "s", "u"], False, id="klondike-3-redeal"),
]


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> DjangoCaptureOnCommitCallbacks:
    """Run what a view leaves for after the commit (the position cache, the validation task)."""
    return django_capture_on_commit_callbacks


def send(api: Api, attempt_id: int, start_at: int, moves: list[str]) -> Any:
    return api.post(f"attempts/{attempt_id}/moves", {"from": start_at, "moves": moves})


def submit_and_result(api: Api, attempt_id: int, on_commit: DjangoCaptureOnCommitCallbacks) -> dict[str, Any]:
    with on_commit(execute=True):
        submission = api.post(f"attempts/{attempt_id}/submit").json()
    body = api.get(f"submissions/{submission['id']}").json()
    assert body["status"] == "valid", body
    result: dict[str, Any] = body["result"]
    return result


@pytest.mark.parametrize(("game", "seed", "log", "marks"), PEEKS)
@pytest.mark.parametrize("batches", ["one-by-one", "one-batch"])
def test_a_ranked_peek_by_undo_marks_the_attempt_and_its_result(
    game: str, seed: int, log: list[str], marks: bool, batches: str, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    make_challenge(game=game, seed=seed)
    api = Api(token_for(make_user()))
    with on_commit(execute=True):
        attempt = start(api, game=game)
    assert attempt["ranked"] is True and attempt["assisted"] is False
    if batches == "one-batch":
        with on_commit(execute=True):
            response = send(api, attempt["id"], 0, log)
        assert response.status_code == 200, response.content
        body = response.json()
    else:
        for i, move in enumerate(log):
            with on_commit(execute=True):
                response = send(api, attempt["id"], i, [move])
            assert response.status_code == 200, response.content
            body = response.json()
            # The state says beforehand whether the next undo would mark: what the table asks about.
            if i + 1 < len(log) and log[i + 1] == "u" and not body["assisted"]:
                marking = replay(game, seed, log[: i + 2]).assisted
                assert body["state"]["undo_assists"] is marking
    assert body["assisted"] is marks
    assert Attempt.objects.get(pk=attempt["id"]).assisted is marks
    assert api.get(f"attempts/{attempt['id']}").json()["assisted"] is marks
    result = submit_and_result(api, attempt["id"], on_commit)
    assert result["assisted"] is marks
    assert Result.objects.get().assisted is marks


def test_the_mark_is_for_good(on_commit: DjangoCaptureOnCommitCallbacks) -> None:
    make_challenge(game="josephine", seed=1)
    api = Api(token_for(make_user()))
    with on_commit(execute=True):
        attempt = start(api, game="josephine")
    with on_commit(execute=True):
        assert send(api, attempt["id"], 0, ["s", "u"]).json()["assisted"] is True
    for i in range(2, 6):  # later batches, from the cache or replayed, never clear it
        if i == 4:
            cache.delete(positions.position_key(attempt_id=attempt["id"]))
            positions.forget_local_positions()  # as a process that holds no copy sees it
        with on_commit(execute=True):
            assert send(api, attempt["id"], i, ["s"]).json()["assisted"] is True
    assert Attempt.objects.get(pk=attempt["id"]).assisted is True


def test_an_illegal_undo_stores_and_marks_nothing(on_commit: DjangoCaptureOnCommitCallbacks) -> None:
    make_challenge(game="josephine", seed=1)
    api = Api(token_for(make_user()))
    with on_commit(execute=True):
        attempt = start(api, game="josephine")
    error = assert_error(send(api, attempt["id"], 0, ["u"]), 400)
    assert error["details"]["index"] == 0 and error["details"]["applied"] == 0
    error = assert_error(send(api, attempt["id"], 0, ["s", "x", "u"]), 400)
    assert error["details"]["index"] == 1 and error["details"]["applied"] == 1
    assert error["details"]["state"]["undo_assists"] is True  # the stored draw: an undo would mark
    stored = Attempt.objects.get(pk=attempt["id"])
    assert stored.moves == ["s"] and stored.assisted is False
    stranger = Api(token_for(make_user()))  # someone else's attempt: not found, and not marked
    assert_error(send(stranger, attempt["id"], 1, ["u"]), 404)
    assert_error(stranger.post(f"attempts/{attempt['id']}/submit", {"from": 1, "moves": ["u"]}), 404)
    for bad in (
        {"from": 1, "moves": "u"},
        {"from": 1, "moves": [["u"]]},
        {"from": "1", "moves": ["u"]},
        {"from": 1, "moves": ["U"]},
        {"from": -1, "moves": ["u"]},
    ):
        response = api.post(f"attempts/{attempt['id']}/moves", bad)
        assert response.status_code == 400, (bad, response.content)
    assert Attempt.objects.get(pk=attempt["id"]).assisted is False


def test_a_last_batch_with_the_submit_marks_the_attempt(on_commit: DjangoCaptureOnCommitCallbacks) -> None:
    make_challenge(game="klondike", seed=9)
    api = Api(token_for(make_user()))
    with on_commit(execute=True):
        attempt = start(api, game="klondike")
    with on_commit(execute=True):
        response = api.post(f"attempts/{attempt['id']}/submit", {"from": 0, "moves": ["t6t3", "u"]})
    assert response.status_code == 202
    assert Attempt.objects.get(pk=attempt["id"]).assisted is True
    assert Result.objects.get().assisted is True


def test_the_validator_marks_by_the_replay_whatever_the_attempt_row_says(
    on_commit: DjangoCaptureOnCommitCallbacks,
) -> None:
    """The replay decides: an attempt row that lost its mark (a restore, a bug) still gives an assisted result."""
    make_challenge(game="josephine", seed=1)
    api = Api(token_for(make_user()))
    with on_commit(execute=True):
        attempt = start(api, game="josephine")
    with on_commit(execute=True):
        send(api, attempt["id"], 0, ["s", "u"])
    Attempt.objects.filter(pk=attempt["id"]).update(assisted=False)
    assert submit_and_result(api, attempt["id"], on_commit)["assisted"] is True


def test_a_hint_marks_and_a_later_plain_undo_changes_nothing(on_commit: DjangoCaptureOnCommitCallbacks) -> None:
    make_challenge(game="klondike", seed=9)
    api = Api(token_for(make_user()))
    with on_commit(execute=True):
        attempt = start(api, game="klondike")
    assert api.post(f"attempts/{attempt['id']}/hint").json()["assisted"] is True
    with on_commit(execute=True):
        body = send(api, attempt["id"], 0, ["t1t7", "u"]).json()
    assert body["assisted"] is True and body["state"]["undo_assists"] is False
    assert submit_and_result(api, attempt["id"], on_commit)["assisted"] is True


def test_an_old_cached_snapshot_is_replayed_and_the_undo_marks(on_commit: DjangoCaptureOnCommitCallbacks) -> None:
    """A position cached before the rule (snapshot format 1) knows nothing of disclosures: refused, replayed."""
    make_challenge(game="josephine", seed=1)
    api = Api(token_for(make_user()))
    with on_commit(execute=True):
        attempt = start(api, game="josephine")
    with on_commit(execute=True):
        send(api, attempt["id"], 0, ["s"])
    cached = positions.position_cached(attempt_id=attempt["id"])
    assert cached is not None
    old = positions.CachedPosition(length=1, snapshot=(1, *cached.snapshot[1:14]), attempt=cached.attempt)
    cache.set(positions.position_key(attempt_id=attempt["id"]), old)
    positions.forget_local_positions()  # as a process that holds no copy sees it
    with on_commit(execute=True):
        assert send(api, attempt["id"], 1, ["u"]).json()["assisted"] is True
    assert Attempt.objects.get(pk=attempt["id"]).assisted is True


def test_the_unlocked_path_stores_the_undo_and_its_mark_in_one_statement(
    on_commit: DjangoCaptureOnCommitCallbacks,
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("the unlocked path is PostgreSQL's")
    make_challenge(game="klondike", seed=9)
    api = Api(token_for(make_user()))
    with on_commit(execute=True):
        attempt = start(api, game="klondike")
    with on_commit(execute=True):
        assert send(api, attempt["id"], 0, ["t6t3"]).json()["state"]["undo_assists"] is True
    with CaptureQueriesContext(connection) as capture, on_commit(execute=True):
        body = send(api, attempt["id"], 1, ["u"]).json()
    assert [q["sql"].split()[0].upper() for q in capture.captured_queries] == ["UPDATE"]
    assert "assisted = assisted OR" in capture.captured_queries[0]["sql"]
    assert body["assisted"] is True and Attempt.objects.get(pk=attempt["id"]).assisted is True


def test_a_peeking_attempt_left_open_past_midnight_is_closed_assisted(
    on_commit: DjangoCaptureOnCommitCallbacks,
) -> None:
    """After the day the attempt takes no undo (409 day_over, nothing marked or stored), and the sweep
    closes it as it stood: its stored peek still makes the result assisted."""
    evening, after = dt.datetime(2026, 11, 30, 23, 59, tzinfo=dt.UTC), dt.datetime(2026, 12, 1, 0, 1, tzinfo=dt.UTC)
    with time_machine.travel(evening, tick=False):
        make_challenge(game="josephine", seed=1, day=evening.date())
        api = Api(token_for(make_user()))
        attempt = api.post(f"daily/{evening.date()}/josephine/attempts").json()
        with on_commit(execute=True):
            assert send(api, attempt["id"], 0, ["s", "s", "u"]).json()["assisted"] is True
        other = Api(token_for(make_user()))
        clean = other.post(f"daily/{evening.date()}/josephine/attempts").json()
        with on_commit(execute=True):
            assert send(other, clean["id"], 0, ["s"]).json()["state"]["undo_assists"] is True
    with time_machine.travel(after, tick=False):
        assert_error(send(other, clean["id"], 1, ["u"]), 409, "day_over")
        assert Attempt.objects.get(pk=clean["id"]).assisted is False
        with on_commit(execute=True):
            assert services.attempts_close_expired() == 2
    results = {r.player_id: r.assisted for r in Result.objects.all()}
    assert sorted(results.values()) == [False, True]
    assert results[Attempt.objects.get(pk=attempt["id"]).player_id] is True


# --- two batches at once (PostgreSQL) ----------------------------------------------------------------


def _race(token: str, attempt_id: int, batches: list[tuple[int, list[str]]]) -> list[tuple[int, dict[str, Any]]]:
    def call(start_at: int, moves: list[str]) -> tuple[int, dict[str, Any]]:
        client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token}")
        response = client.post(
            f"/api/v1/attempts/{attempt_id}/moves",
            json.dumps({"from": start_at, "moves": moves}),
            content_type="application/json",
        )
        return response.status_code, response.json()

    return at_once(*(lambda batch=batch: call(*batch) for batch in batches))


RACES = [
    pytest.param([(1, ["u"]), (1, ["u"])], id="the-same-undo-twice"),
    pytest.param([(1, ["u"]), (1, ["s"])], id="undo-or-draw"),
    pytest.param([(0, ["s", "u"]), (1, ["u"])], id="a-resend-and-its-tail"),
    pytest.param([(1, ["s", "u"]), (1, ["s"]), (2, ["u"])], id="three-overlapping"),
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("batches", RACES)
def test_parallel_batches_never_lose_the_mark(batches: list[tuple[int, list[str]]]) -> None:
    """Whichever batch wins, the attempt is assisted exactly when its stored log says so, and every
    200 answer that stored a marking undo says assisted."""
    if connection.vendor != "postgresql":
        pytest.skip("races need row locks and concurrent connections (PostgreSQL)")
    for _round in range(4):
        make_challenge(game="josephine", seed=1, day=days.today())
        user = make_user()
        api = Api(token_for(user))
        attempt = start(api, game="josephine")
        assert send(api, attempt["id"], 0, ["s"]).status_code == 200  # the unlocked path is warm
        answers = _race(token_for(user), attempt["id"], batches)
        stored = Attempt.objects.get(pk=attempt["id"])
        marked = replay("josephine", 1, stored.moves).assisted
        assert stored.assisted is marked, (stored.moves, answers)
        for status, body in answers:
            assert status in (200, 409), body
            if status == 200 and body["log_length"] == len(stored.moves):
                assert body["assisted"] is marked, (stored.moves, answers)
        Attempt.objects.all().delete()
        Submission.objects.all().delete()
        Challenge.objects.all().delete()


# --- issue 24, probe 1 ---------------------------------------------------------------------------


def test_probe_1_draw_64_undo_64_then_win_is_assisted(on_commit: DjangoCaptureOnCommitCallbacks) -> None:
    """A ranked Josephine attempt draws the 64 stock cards, undoes the 64 draws, then wins: it ranks on
    the board of all results, marked, and not on the day's board, where an honest loser stays first."""
    win = WINS["josephine"]
    make_challenge(game="josephine", seed=win["seed"])
    honest = Api(token_for(make_user("honest")))
    with on_commit(execute=True):
        attempt = start(honest, game="josephine")
    with on_commit(execute=True):
        send(honest, attempt["id"], 0, ["t7f1", "u", "s", "s"])  # the undo of a move that showed nothing: plain
    assert submit_and_result(honest, attempt["id"], on_commit)["assisted"] is False
    board = f"leaderboards/{days.today()}/josephine"
    before = Api().get(board).json()
    assert [(e["rank"], e["player"], e["won"]) for e in before["entries"]] == [(1, "honest", False)]
    api = Api(token_for(make_user("peeker")))
    # Played at a person's pace by the server's clock (ten moves every ten seconds, from the middle of
    # the day): a faster game would be held for review (games.pace) and rank on no board at all.
    midday = days.next_day_starts_at(days.today()) - dt.timedelta(hours=12)
    with time_machine.travel(midday, tick=True) as clock:
        with on_commit(execute=True):
            attempt = start(api, game="josephine")
        peeking = ["s"] * 64 + ["u"] * 64
        for at in range(0, len(peeking), 10):
            clock.shift(dt.timedelta(seconds=10))
            with on_commit(execute=True):
                peek = send(api, attempt["id"], at, peeking[at : at + 10]).json()
        assert peek["assisted"] is True and peek["state"]["score"] == 0
        for at in range(0, len(win["moves"]), 10):
            clock.shift(dt.timedelta(seconds=10))
            with on_commit(execute=True):
                won = send(api, attempt["id"], 128 + at, win["moves"][at : at + 10]).json()
        assert won["state"]["won"] is True and won["assisted"] is True
        result = submit_and_result(api, attempt["id"], on_commit)
    assert result["won"] is True and result["assisted"] is True
    assert (result["rank"], result["board"]) == (1, "all")
    assert "assisted, not on the day's board" in result["share"] and "rank " not in result["share"]
    day = Api().get(board).json()
    assert day["board"] == "day" and [(e["rank"], e["player"]) for e in day["entries"]] == [(1, "honest")]
    everyone = Api().get(board + "?board=all").json()
    assert [(e["rank"], e["player"], e["won"], e["assisted"]) for e in everyone["entries"]] == [
        (1, "peeker", True, True),
        (2, "honest", False, False),
    ]
    profile = Api().get("players/peeker").json()["recent"][0]
    assert (profile["assisted"], profile["rank"], profile["board"]) == (True, 1, "all")
    assert replay("josephine", win["seed"], ["s"] * 64 + ["u"] * 64 + win["moves"]).assisted_at == 64
