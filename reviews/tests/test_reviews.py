"""Game reviews as a service: made once per finished attempt of a day that is over, on the solver queue."""

from __future__ import annotations

import datetime as dt
import io
import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import time_machine
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import override_settings
from pytest_django import DjangoCaptureOnCommitCallbacks
from rest_framework.test import APIClient

from engine import Move, State, deal
from games import services
from games.models import Attempt, Challenge
from games.tests.factories import make_challenge, make_user, token_for
from reviews import services as review_services
from reviews import tasks
from reviews.models import GameReview
from solver.review import review_game

pytestmark = pytest.mark.django_db

WINS = json.loads((Path(__file__).parents[2] / "games" / "tests" / "data" / "winning_logs.json").read_text())
KLONDIKE = WINS["klondike"]
DAY = dt.date(2026, 12, 1)
NOON = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
NEXT_MORNING = dt.datetime(2026, 12, 2, 0, 3, tzinfo=dt.UTC)
# The first moves of the winning line, then the waste's card thrown about until the game is given up.
LOST_LOG = KLONDIKE["moves"][:6]


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


@pytest.fixture(autouse=True)
def _commits(django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> None:
    """What is sent after commit (validations, reviews) is sent at once: the test's transaction never commits."""
    global _capture
    _capture = django_capture_on_commit_callbacks


_capture: DjangoCaptureOnCommitCallbacks  # set for every test by _commits (autouse)


def sweep() -> int:
    with _capture(execute=True):
        return review_services.reviews_sweep()


@pytest.fixture
def challenge(clock: time_machine.Traveller) -> Challenge:
    return make_challenge(game="klondike", seed=KLONDIKE["seed"], day=DAY, solution=KLONDIKE["moves"])


def finished(
    challenge: Challenge, moves: list[str], *, player: User | None = None, clock: time_machine.Traveller | None = None
) -> Attempt:
    """With ``clock``, played at a person's pace by the server's clock (ten moves every ten seconds): a
    win sent in one batch is held, and a held game is in nobody's review (SPEC section 7)."""
    player = player or make_user()
    attempt = services.attempt_start(player=player, challenge=challenge)
    for start in range(0, len(moves), 10) if clock is not None else ():
        assert clock is not None
        clock.shift(dt.timedelta(seconds=10))
        services.attempt_append_moves(
            attempt_id=attempt.pk, player=player, start=start, moves=moves[start : start + 10]
        )
    with _capture(execute=True):
        services.attempt_submit(attempt_id=attempt.pk, player=player, start=0, moves=moves)
    attempt.refresh_from_db()
    return attempt


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def review_url(attempt: Attempt) -> str:
    return f"/api/v1/attempts/{attempt.pk}/review"


# -- nothing of today exists yet ------------------------------------------------------------------


def test_nothing_of_today_is_reviewed_or_disclosed_by_any_route(
    clock: time_machine.Traveller, challenge: Challenge
) -> None:
    attempt = finished(challenge, LOST_LOG)
    other = make_user()
    assert sweep() == 0
    assert tasks.review_attempt(attempt.pk) == "not_due"  # a task sent anyway (a forged id) stores nothing
    assert tasks.review_attempt(10**9) == "not_due"
    assert not GameReview.objects.exists()
    owner = client_for(attempt.player)
    answer = owner.get(review_url(attempt))
    assert answer.status_code == 404
    error = answer.json()["error"]
    assert error["code"] == "not_found" and "once that day is over" in error["message"]
    assert error["details"] == {"ready_at": "2026-12-02T00:00:00+00:00", "ready_in_seconds": 12 * 3600}
    assert client_for(other).get(review_url(attempt)).status_code == 404  # someone else's id
    assert APIClient().get(review_url(attempt)).status_code == 404  # a guest: nothing either
    # rotated client addresses change nothing: the answer depends on the day and the owner only
    for address in ("203.0.113.9", "198.51.100.7, 10.0.0.1"):
        assert owner.get(review_url(attempt), HTTP_X_FORWARDED_FOR=address).status_code == 404
    # the attempt's own answer says when the review and the solution will be ready
    after = owner.get(f"/api/v1/attempts/{attempt.pk}").json()["after_the_day"]
    assert after == {
        "ready_at": "2026-12-02T00:00:00Z",
        "ready_in_seconds": 43200,
        "review": review_url(attempt),
        "solution": f"/api/v1/daily/{DAY}/klondike/solution",
    }


def test_bad_ids_are_clean_json_errors(clock: time_machine.Traveller, challenge: Challenge) -> None:
    user = make_user()
    client = client_for(user)
    for path in (
        "/api/v1/attempts/0/review",
        "/api/v1/attempts/99999999999999999999/review",
        "/api/v1/attempts/-1/review",
        "/api/v1/attempts/abc/review",
    ):
        answer = client.get(path)
        assert answer.status_code == 404 and answer["Content-Type"].startswith("application/json"), path


# -- after the day --------------------------------------------------------------------------------


def test_after_the_day_the_sweep_reviews_every_finished_game_once(
    clock: time_machine.Traveller, challenge: Challenge
) -> None:
    lost = finished(challenge, LOST_LOG)
    won = finished(challenge, KLONDIKE["moves"], clock=clock)
    open_practice = services.attempt_start(player=lost.player, challenge=challenge)
    clock.move_to(NEXT_MORNING)
    assert sweep() == 2  # tasks run in process here: both reviews are made now
    assert set(GameReview.objects.values_list("attempt_id", "status")) == {(lost.pk, "done"), (won.pk, "done")}

    body = client_for(lost.player).get(review_url(lost)).json()
    assert body["status"] == "done" and body["date"] == "2026-12-01" and body["game"] == "klondike"
    review = body["review"]
    assert review["outcome"] in ("gave_up_winnable", "lost", "undecided")
    assert review["winnable_after"] is not None and review["claims"]
    # the win it offers is one the engine plays to the end from the player's own position
    state = State(deal("klondike", KLONDIKE["seed"]))
    for text in review["line"][: review["winnable_after"]] + review["win"]:
        state.play(Move.parse(text))
    assert state.won

    won_review = client_for(won.player).get(review_url(won)).json()["review"]
    assert won_review["outcome"] == "won"
    assert won_review["comparison"]["solution"]["moves"] == len(KLONDIKE["moves"])
    assert won_review["best_players"][0]["player"] == won.player.get_username()

    assert client_for(lost.player).get(review_url(open_practice)).status_code == 409
    assert sweep() == 0  # nothing new: each review is made once
    assert GameReview.objects.count() == 2


def test_a_redelivered_task_finds_the_review_done(clock: time_machine.Traveller, challenge: Challenge) -> None:
    attempt = finished(challenge, LOST_LOG)
    clock.move_to(NEXT_MORNING)
    assert tasks.review_attempt(attempt.pk) == "done"
    row = GameReview.objects.get(attempt=attempt)
    with mock.patch.object(review_services, "review_game") as review_game:
        assert tasks.review_attempt(attempt.pk) == "done"
        assert sweep() == 0
    review_game.assert_not_called()
    again = GameReview.objects.get(attempt=attempt)
    assert (again.tries, again.finished_at, again.data) == (1, row.finished_at, row.data)


def test_a_review_another_worker_holds_is_left_to_it_until_its_lease_ends(
    clock: time_machine.Traveller, challenge: Challenge
) -> None:
    attempt = finished(challenge, LOST_LOG)
    clock.move_to(NEXT_MORNING)
    GameReview.objects.create(attempt=attempt, status="running", started_at=NEXT_MORNING, tries=1)
    with mock.patch.object(review_services, "review_game") as review_game:
        assert tasks.review_attempt(attempt.pk) == "running"
        assert sweep() == 0
    review_game.assert_not_called()
    clock.move_to(NEXT_MORNING + review_services.REVIEW_LEASE + dt.timedelta(seconds=1))  # that worker died
    assert sweep() == 1
    row = GameReview.objects.get(attempt=attempt)
    assert (row.status, row.tries) == ("done", 2)


def test_a_failed_review_is_tried_again_a_few_times_then_left_failed(
    clock: time_machine.Traveller, challenge: Challenge
) -> None:
    attempt = finished(challenge, LOST_LOG)
    clock.move_to(NEXT_MORNING)
    with mock.patch.object(review_services, "review_game", side_effect=RuntimeError("boom")):
        assert sweep() == 1
        for _ in range(5):
            sweep()
    row = GameReview.objects.get(attempt=attempt)
    assert (row.status, row.tries) == ("failed", review_services.REVIEW_MAX_TRIES)
    assert "boom" in row.error and row.data == {}
    assert client_for(attempt.player).get(review_url(attempt)).json()["status"] == "failed"


def test_before_the_sweep_the_review_is_pending(clock: time_machine.Traveller, challenge: Challenge) -> None:
    attempt = finished(challenge, LOST_LOG)
    clock.move_to(NEXT_MORNING)
    body = client_for(attempt.player).get(review_url(attempt)).json()
    assert (body["status"], body["review"]) == ("pending", None)


def test_an_illegal_submitted_log_is_reviewed_up_to_its_first_illegal_entry(
    clock: time_machine.Traveller, challenge: Challenge
) -> None:
    attempt = finished(challenge, [*LOST_LOG, "t1f9"])
    clock.move_to(NEXT_MORNING)
    assert tasks.review_attempt(attempt.pk) == "done"
    data = GameReview.objects.get(attempt=attempt).data
    assert data["log_error"]["index"] == len(LOST_LOG)
    assert data["moves_played"] <= len(LOST_LOG)


@override_settings(REVIEW_SWEEP_LIMIT=1)
def test_the_sweep_takes_the_oldest_games_first_within_its_limit(
    clock: time_machine.Traveller, challenge: Challenge
) -> None:
    first = finished(challenge, LOST_LOG)
    clock.shift(60)
    second = finished(challenge, LOST_LOG)
    clock.move_to(NEXT_MORNING)
    assert sweep() == 1
    assert list(GameReview.objects.values_list("attempt_id", flat=True)) == [first.pk]
    assert sweep() == 1
    assert GameReview.objects.filter(attempt=second).exists()


def test_bin_serve_loop_makes_the_reviews_after_midnight_with_nothing_else_started(
    clock: time_machine.Traveller, challenge: Challenge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """keep_days_ready (bin/serve's loop, tasks in process): the round after the day's end reviews its games."""
    monkeypatch.setattr(signal, "signal", lambda *args: None)  # the command's SIGTERM handler: not in pytest
    attempt = finished(challenge, LOST_LOG)
    for offset in (1, 2):  # the coming days are ready: the round has nothing to prepare
        make_challenge(game="klondike", seed=KLONDIKE["seed"], day=DAY + dt.timedelta(days=offset))
    loop = ["keep_days_ready", "--rounds", "1", "--games", "klondike"]  # by name: the solver worker's command
    call_command(*loop, stdout=io.StringIO())
    assert not GameReview.objects.exists()  # still the day itself
    clock.move_to(NEXT_MORNING)
    with _capture(execute=True):
        call_command(*loop, stdout=io.StringIO())
    assert GameReview.objects.get(attempt=attempt).status == "done"


def old_challenge(days_ago: int = 40) -> Challenge:
    return make_challenge(
        game="klondike", seed=KLONDIKE["seed"], day=DAY - dt.timedelta(days=days_ago), solution=KLONDIKE["moves"]
    )


def ask_review(attempt: Attempt, client: APIClient | None = None, **extra: Any) -> Any:
    client = client or client_for(attempt.player)
    with _capture(execute=True):
        return client.post(review_url(attempt), **extra)


def test_practice_is_not_reviewed_automatically_only_when_its_player_asks(clock: time_machine.Traveller) -> None:
    attempt = finished(old_challenge(), LOST_LOG)
    assert not attempt.ranked
    with mock.patch.object(review_services, "_send") as send:
        assert sweep() == 0  # the sweep queues no practice review
        send.assert_not_called() if not send.call_args else send.assert_called_once_with([])
    assert not GameReview.objects.exists()
    owner = client_for(attempt.player)
    body = owner.get(review_url(attempt)).json()
    assert (body["status"], body["review"]) == ("not_requested", None)
    # the owner asks: queued once (sent after the commit; the embedded defaults run it at once)
    answer = ask_review(attempt)
    assert answer.status_code == 202 and answer.json()["status"] == "pending"
    assert GameReview.objects.get(attempt=attempt).status == "done"
    assert owner.get(review_url(attempt)).json()["status"] == "done"
    # asking again makes nothing new and counts nothing
    with mock.patch.object(review_services, "_send") as send:
        again = ask_review(attempt)
    assert again.status_code == 200 and again.json()["status"] == "done"
    send.assert_not_called()
    assert GameReview.objects.count() == 1


def test_a_practice_review_asked_for_is_queued_on_the_solver_queue_and_answered_pending(
    clock: time_machine.Traveller,
) -> None:
    attempt = finished(old_challenge(), LOST_LOG)
    with mock.patch.object(review_services, "_send") as send:
        answer = ask_review(attempt)
    assert answer.status_code == 202 and answer.json()["status"] == "pending"
    send.assert_called_once_with([attempt.pk])
    assert GameReview.objects.get(attempt=attempt).status == "queued"
    with mock.patch.object(review_services, "_send") as send:  # a second ask while it is queued: no second task
        assert ask_review(attempt).json()["status"] == "pending"
    send.assert_not_called()


@override_settings(REVIEW_REQUESTS_PER_DAY=3, REVIEW_REQUESTS_PER_DAY_GUEST=1)
def test_a_player_gets_a_few_practice_reviews_a_day_then_a_clear_429(clock: time_machine.Traveller) -> None:
    player = make_user()
    attempts = [finished(old_challenge(40 + i), LOST_LOG, player=player) for i in range(5)]
    with mock.patch.object(review_services, "_send") as send:
        answers = [ask_review(attempts[0])]
        clock.shift(3600)
        answers += [ask_review(a) for a in attempts[1:3]]
        assert [a.status_code for a in answers] == [202, 202, 202]
        refused = ask_review(attempts[3])
    assert send.call_count == 3
    assert refused.status_code == 429 and refused["Retry-After"] == str(23 * 3600)
    error = refused.json()["error"]
    assert error["code"] == "throttled" and error["details"] == {"retry_after": 23 * 3600}
    assert "3 reviews of practice games in the last 24 hours" in error["message"]
    assert "23 hours" in error["message"] and "ranked games are made without asking" in error["message"]
    assert not GameReview.objects.filter(attempt=attempts[3]).exists()
    # a day after the first one, one more may be asked for
    clock.shift(23 * 3600)
    with mock.patch.object(review_services, "_send"):
        assert ask_review(attempts[3]).status_code == 202
        assert ask_review(attempts[4]).status_code == 429
    # a guest gets fewer
    guest = services.guest_create()
    mine = [finished(old_challenge(50 + i), LOST_LOG, player=guest) for i in range(2)]
    with mock.patch.object(review_services, "_send"):
        assert ask_review(mine[0]).status_code == 202
        assert ask_review(mine[1]).status_code == 429


@pytest.mark.throttled
@override_settings(REVIEW_REQUESTS_PER_ADDRESS_PER_DAY=2)
def test_new_guests_from_one_address_share_its_practice_reviews(clock: time_machine.Traveller) -> None:
    from django.core.cache import cache

    cache.delete_many(
        [review_services.address_count_key(address=a, day=NOON.date()) for a in ("2001:db8:5:6::/64", "198.51.100.4")]
    )
    attempts = [finished(old_challenge(40 + i), LOST_LOG, player=services.guest_create()) for i in range(4)]
    with mock.patch.object(review_services, "_send") as send:
        codes = [ask_review(a, REMOTE_ADDR=f"2001:db8:5:6::{i + 1}").status_code for i, a in enumerate(attempts)]
        other = ask_review(attempts[3], REMOTE_ADDR="198.51.100.4")
    assert codes == [202, 202, 429, 429]  # one /64: one share
    assert other.status_code == 202 and send.call_count == 3
    refused = ask_review(attempts[2], REMOTE_ADDR="2001:db8:5:6::9").json()["error"]
    assert "from your address today" in refused["message"]


def test_parallel_asks_of_one_player_do_not_go_past_the_share(clock: time_machine.Traveller) -> None:
    """Each ask counts what is there under the player's lock: asks one after the other past the share are refused;
    an ask for a game already asked for is answered without counting."""
    player = make_user()
    attempts = [finished(old_challenge(40 + i), LOST_LOG, player=player) for i in range(8)]
    with mock.patch.object(review_services, "_send"), override_settings(REVIEW_REQUESTS_PER_DAY=5):
        codes = [ask_review(a).status_code for a in attempts]
        repeat = [ask_review(a).status_code for a in attempts[:5]]
    assert codes == [202] * 5 + [429] * 3 and repeat == [202] * 5
    assert GameReview.objects.count() == 5


def test_only_the_owner_may_ask_and_only_for_a_finished_game_of_a_day_that_is_over(
    clock: time_machine.Traveller, challenge: Challenge
) -> None:
    practice = finished(old_challenge(), LOST_LOG)
    other = make_user()
    assert ask_review(practice, client_for(other)).status_code == 404  # someone else's id
    assert APIClient().post(review_url(practice)).status_code in (401, 403)  # nobody signed in
    todays = finished(challenge, LOST_LOG)  # ranked, today
    assert ask_review(todays).status_code == 404
    open_one = services.attempt_start(player=make_user(), challenge=old_challenge(41))
    assert ask_review(open_one, client_for(open_one.player)).status_code == 409
    assert not GameReview.objects.exists()


def test_a_ranked_game_needs_no_asking_and_asking_counts_nothing(
    clock: time_machine.Traveller, challenge: Challenge
) -> None:
    ranked = finished(challenge, LOST_LOG)
    clock.move_to(NEXT_MORNING)
    with mock.patch.object(review_services, "_send") as send, override_settings(REVIEW_REQUESTS_PER_DAY=0):
        answer = ask_review(ranked)
    assert answer.status_code == 200 and answer.json()["status"] == "pending"  # the sweep makes it
    send.assert_not_called()
    assert sweep() == 1
    assert GameReview.objects.get(attempt=ranked).status == "done"


def test_a_practice_review_asked_for_and_lost_is_sent_again_by_the_sweep(clock: time_machine.Traveller) -> None:
    attempt = finished(old_challenge(), LOST_LOG)
    with mock.patch.object(review_services, "_send"):
        ask_review(attempt)
    clock.shift(review_services.REVIEW_RESEND_AFTER.total_seconds() + 60)
    assert sweep() == 1
    assert GameReview.objects.get(attempt=attempt).status == "done"


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_once_make_one_review() -> None:
    """Two deliveries of the same task at the same instant (PostgreSQL: real row locks): one
    worker makes the review, the other finds it held and leaves it."""
    import threading

    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    with time_machine.travel(NOON, tick=True) as traveller:
        challenge = make_challenge(game="klondike", seed=KLONDIKE["seed"], day=DAY, solution=KLONDIKE["moves"])
        player = make_user()
        attempt = services.attempt_start(player=player, challenge=challenge)
        services.attempt_submit(attempt_id=attempt.pk, player=player, start=0, moves=LOST_LOG)
        traveller.move_to(NEXT_MORNING)
        real = review_game  # what reviews.services calls, until the test replaces it
        made: list[int] = []
        other_done = threading.Event()
        barrier = threading.Barrier(2)
        answers: list[str] = []

        def slow_review(*args: Any, **kwargs: Any) -> Any:
            made.append(1)
            other_done.wait(10)  # the other delivery runs while this one holds the row
            return real(*args, **kwargs)

        def deliver() -> None:
            try:
                barrier.wait(10)
                answers.append(tasks.review_attempt(attempt.pk))
                if len(answers) == 1:
                    other_done.set()
            finally:
                connection.close()

        with mock.patch.object(review_services, "review_game", side_effect=slow_review):
            threads = [threading.Thread(target=deliver) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
        assert len(made) == 1
        assert sorted(answers) == ["done", "running"]
        row = GameReview.objects.get(attempt=attempt)
        assert (row.status, row.tries) == ("done", 1)
