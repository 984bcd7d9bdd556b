"""The still-winnable light (reviews.winnable): only on the caller's practice of a day that is over,
only for the position the server stores, and only what the solver proved or the engine replayed."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth.models import User
from django.test import override_settings
from rest_framework.test import APIClient
from rest_framework.throttling import ScopedRateThrottle

from core.circuit import BROKER
from engine import Move, State, deal
from games import days, services
from games.models import Attempt, Challenge
from games.tests.factories import make_challenge, make_user, token_for
from reviews import tasks, winnable
from solver import review
from solver.api import solve_deal
from solver.log import wins_from as log_wins_from
from solver.review import LOST_POSITION, UNDECIDED_POSITION, WINNABLE

pytestmark = pytest.mark.django_db

DATA = json.loads((Path(__file__).parent / "data" / "winnable_forty_thieves.json").read_text())
GAME, SEED = DATA["game"], DATA["seed"]
WINNABLE_LOG: list[str] = DATA["winnable"]  # a win is still possible after it
LOSING_MOVE: str = DATA["losing_move"]  # ... and none after this draw
DAY = dt.date(2026, 12, 1)
NOON = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
NEXT_NOON = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.UTC)


@pytest.fixture(autouse=True)
def fresh_keys(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers of this test only (the cache may be a Redis shared with earlier runs). Not with a real
    worker: that process writes under the service's own prefix (the test deletes its keys instead)."""
    if "broker" not in request.keywords:
        monkeypatch.setattr(winnable, "KEY_PREFIX", f"test:winnable:{uuid.uuid4().hex}:")


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(NEXT_NOON, tick=False) as traveller:
        yield traveller


@pytest.fixture
def past(clock: time_machine.Traveller) -> Challenge:
    """A challenge of yesterday (its day is over: the deal is public)."""
    return make_challenge(game=GAME, seed=SEED, day=DAY, solution=DATA["solution"])


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def practice(challenge: Challenge, moves: list[str], *, player: User | None = None) -> Attempt:
    player = player or make_user()
    attempt = services.attempt_start(player=player, challenge=challenge)
    if moves:
        services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=moves)
    attempt.refresh_from_db()
    return attempt


def url(attempt_id: Any) -> str:
    return f"/api/v1/attempts/{attempt_id}/winnable"


def ask(attempt: Attempt, client: APIClient | None = None) -> Any:
    return (client or client_for(attempt.player)).get(url(attempt.pk))


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json")
    error: dict[str, Any] = response.json()["error"]
    assert error["code"] == code and error["message"]
    return error


def position_after(moves: list[str]) -> State:
    state = State(deal(GAME, SEED))
    for text in moves:
        state.play(Move.parse(text))
    return state


# -- the verdict of a position ----------------------------------------------------------------------


def test_a_position_with_a_win_is_winnable_and_the_win_replays() -> None:
    state = position_after(WINNABLE_LOG)
    replayed: list[tuple[Any, bool]] = []
    real = log_wins_from  # what solver.review calls, until the test replaces it

    def wins(start: State, moves: list[str]) -> bool:
        key = start.key()
        won = real(start, moves)
        replayed.append((key, won))
        return won

    with mock.patch.object(review, "log_wins_from", side_effect=wins):
        verdict = winnable.position_verdict(state=state)
    assert verdict.state == WINNABLE and verdict.nodes > 0
    assert replayed == [(state.key(), True)]  # the engine played the win from the player's position itself
    assert position_after(WINNABLE_LOG).key() == state.key()  # which is left as it was


def test_a_won_position_is_winnable_without_a_solve() -> None:
    state = position_after(DATA["solution"])
    assert state.won
    assert winnable.position_verdict(state=state) == winnable.Verdict(WINNABLE, 0, 0.0)


def test_a_position_the_solver_proves_lost_is_lost() -> None:
    verdict = winnable.position_verdict(state=position_after([*WINNABLE_LOG, LOSING_MOVE]))
    # Lemma S (solver.dead.never_all_up) proves it before any search: no nodes
    assert verdict.state == LOST_POSITION and verdict.nodes == 0


def test_what_the_budget_leaves_open_is_undecided_never_lost() -> None:
    assert winnable.position_verdict(state=position_after([]), nodes=50).state == UNDECIDED_POSITION
    assert winnable.position_verdict(state=position_after(WINNABLE_LOG), nodes=50).state == UNDECIDED_POSITION


def test_a_win_the_engine_does_not_replay_is_not_reported_winnable() -> None:
    from solver.result import SolveResult

    fake = SolveResult(game=GAME, seed=SEED, status="solved", moves=["s", "wf1"], nodes=7)
    with mock.patch.object(review, "solve_deal", return_value=fake):
        assert winnable.position_verdict(state=position_after(WINNABLE_LOG)).state == UNDECIDED_POSITION


def test_the_cache_key_is_the_position_not_the_log() -> None:
    undone = [*WINNABLE_LOG, "s", "u"]  # a draw and its undo: the same position, another log
    a, b = position_after(WINNABLE_LOG), position_after(undone)
    assert winnable.position_key(game=GAME, state=a) == winnable.position_key(game=GAME, state=b)
    assert winnable.position_key(game=GAME, state=a) != winnable.position_key(
        game=GAME, state=position_after([*WINNABLE_LOG, "s"])
    )
    assert winnable.position_key(game=GAME, state=a) != winnable.position_key(game="josephine", state=a)


# -- the API on a past day's practice -----------------------------------------------------------------


def test_the_light_follows_the_stored_position_green_then_red(past: Challenge) -> None:
    attempt = practice(past, WINNABLE_LOG)
    assert not attempt.ranked
    answer = ask(attempt)
    assert answer.status_code == 200
    body = answer.json()
    assert body["state"] == "winnable" and body["words"] == "still winnable"
    assert body["moves"] == len(WINNABLE_LOG) and body["attempt"] == attempt.pk and body["nodes"] > 0
    services.attempt_append_moves(attempt_id=attempt.pk, player=attempt.player, start=len(WINNABLE_LOG), moves=["s"])
    body = ask(attempt).json()
    assert body["state"] == "lost" and body["words"] == "no longer winnable" and body["moves"] == len(WINNABLE_LOG) + 1


def test_repeated_asks_and_other_logs_to_the_same_position_cost_no_solve(past: Challenge) -> None:
    first = practice(past, WINNABLE_LOG)
    again = practice(past, [*WINNABLE_LOG, "s", "u"])  # another player, the same position by another log
    with mock.patch.object(review, "solve_deal", wraps=solve_deal) as solves:
        answers = [ask(first).json() for _ in range(3)] + [ask(again).json()]
    assert solves.call_count == 1
    assert {a["state"] for a in answers} == {"winnable"}
    assert answers[-1]["moves"] == len(WINNABLE_LOG) + 2  # each answer names its own log's length


def test_the_client_cannot_send_a_position(past: Challenge) -> None:
    """Query and body are ignored: the answer is for the stored log."""
    attempt = practice(past, WINNABLE_LOG)
    client = client_for(attempt.player)
    body = client.get(url(attempt.pk) + "?moves=3&log=s,s,s").json()
    assert body["moves"] == len(WINNABLE_LOG) and body["state"] == "winnable"
    assert client.post(url(attempt.pk), {"moves": ["s"]}, format="json").status_code == 405


def test_with_a_broker_the_request_only_sends_the_task_and_the_page_polls(past: Challenge) -> None:
    attempt = practice(past, WINNABLE_LOG)
    sent: list[tuple[Any, ...]] = []
    fake = mock.Mock()
    fake.apply_async.side_effect = lambda args, **kwargs: sent.append((args, kwargs))
    with mock.patch("core.tasks.task", return_value=fake), mock.patch.object(review, "solve_deal") as solves:
        first, second = ask(attempt), ask(attempt)
    assert solves.call_count == 0  # no solve in the web request
    assert first.status_code == second.status_code == 202
    assert first.json()["state"] == "pending" and first.json()["retry_after_ms"] > 0
    options = {"kwargs": None, "retry": False, "ignore_result": True, "expires": winnable.TASK_EXPIRES_SECONDS}
    assert sent == [((attempt.pk, len(WINNABLE_LOG)), options)]  # sent once, never waiting on a broker
    assert tasks.winnable_position(*sent[0][0]) == "winnable"  # the worker's turn
    done = ask(attempt)
    assert done.status_code == 200 and done.json()["state"] == "winnable"


def test_a_broker_that_is_down_leaves_the_light_grey_and_the_next_ask_tries_again(past: Challenge) -> None:
    attempt = practice(past, WINNABLE_LOG)
    down = mock.Mock()
    down.apply_async.side_effect = OSError("broker down")
    with mock.patch("core.tasks.task", return_value=down):
        body = ask(attempt).json()
    assert body["state"] == "undecided" and body["words"] == "solver undecided"
    assert BROKER.is_open()  # the next asks take the grey light at once, without waiting on the broker
    BROKER.reset()  # the broker is back
    assert ask(attempt).json()["state"] == "winnable"  # not left marked pending


def test_a_guests_own_past_practice_gets_the_light(past: Challenge) -> None:
    guest = services.guest_create()
    attempt = practice(past, WINNABLE_LOG, player=guest)
    assert ask(attempt).json()["state"] == "winnable"


# -- never for today's deal, nor anybody else's game -------------------------------------------------------


def test_today_by_any_route_is_refused_until_the_day_is_over() -> None:
    with time_machine.travel(NOON, tick=False) as clock:
        today = make_challenge(game=GAME, seed=SEED, day=DAY, solution=DATA["solution"])
        player = make_user()
        ranked = practice(today, WINNABLE_LOG, player=player)
        assert ranked.ranked
        owner = client_for(player)
        error = assert_error(ask(ranked, owner), 403, "ranked_attempt")
        assert "practice" in error["message"]
        services.attempt_submit(attempt_id=ranked.pk, player=player)
        todays_practice = practice(today, WINNABLE_LOG, player=player)  # practice of today's own deal
        assert not todays_practice.ranked
        error = assert_error(ask(todays_practice, owner), 404, "not_found")
        assert "once that day is over" in error["message"]
        assert error["details"] == {"ready_at": "2026-12-02T00:00:00+00:00", "ready_in_seconds": 12 * 3600}
        guest = services.guest_create()
        guests = practice(today, WINNABLE_LOG, player=guest)
        assert guests.ranked
        assert_error(ask(guests), 403, "ranked_attempt")
        other = client_for(make_user())
        for attempt in (ranked, todays_practice, guests):
            assert_error(ask(attempt, other), 404, "not_found")  # someone else's: as if it did not exist
            assert_error(APIClient().get(url(attempt.pk)), 401, "not_authenticated")  # nobody logged in
        # rotating client addresses changes nothing
        for address in ("203.0.113.9", "198.51.100.7, 10.0.0.1"):
            assert owner.get(url(todays_practice.pk), HTTP_X_FORWARDED_FOR=address).status_code == 404
        # a task sent anyway (a forged id, a forged length) solves nothing of today's
        with mock.patch.object(review, "solve_deal") as solves:
            assert tasks.winnable_position(todays_practice.pk, len(WINNABLE_LOG)) == "not_eligible"
            assert tasks.winnable_position(ranked.pk, 0) == "not_eligible"
        assert solves.call_count == 0
        # the day ends while the practice is open: from midnight on the light answers
        clock.move_to(dt.datetime(2026, 12, 1, 23, 59, 59, tzinfo=dt.UTC))
        assert ask(todays_practice, owner).status_code == 404
        clock.move_to(dt.datetime(2026, 12, 2, 0, 0, tzinfo=dt.UTC))
        body = ask(todays_practice, owner).json()
        assert body["state"] == "winnable" and body["moves"] == len(WINNABLE_LOG)
        # a ranked game stays without the light after its day too
        assert_error(ask(ranked, owner), 403, "ranked_attempt")


def test_another_players_past_practice_is_not_found(past: Challenge) -> None:
    attempt = practice(past, WINNABLE_LOG)
    snooper = client_for(make_user())
    missing = assert_error(snooper.get(url(10**9)), 404, "not_found")
    theirs = assert_error(ask(attempt, snooper), 404, "not_found")
    assert theirs["message"] == missing["message"].replace(str(10**9), str(attempt.pk))  # the same words
    guest = services.guest_create()
    assert_error(ask(attempt, client_for(guest)), 404, "not_found")


def test_bad_ids_are_clean_json_errors(past: Challenge) -> None:
    client = client_for(make_user())
    for attempt_id in ("0", "99999999999999999999", "-1", "abc", "1.5"):
        answer = client.get(url(attempt_id))
        assert answer.status_code == 404 and answer["Content-Type"].startswith("application/json"), attempt_id
        assert answer.json()["error"]["code"] == "not_found"


def test_a_forged_task_length_solves_nothing(past: Challenge) -> None:
    attempt = practice(past, WINNABLE_LOG)
    for moves in (-1, len(WINNABLE_LOG) + 1):
        assert tasks.winnable_position(attempt.pk, moves) == "not_eligible"
    assert tasks.winnable_position(10**9, 0) == "not_eligible"
    assert tasks.winnable_position(attempt.pk, len(WINNABLE_LOG)) == "winnable"


@pytest.mark.throttled
def test_asking_is_throttled_per_player(past: Challenge, monkeypatch: pytest.MonkeyPatch) -> None:
    from django.core.cache import cache

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "winnable", "4/min")
    attempt = practice(past, WINNABLE_LOG)
    other = practice(past, WINNABLE_LOG)
    keys = [f"throttle_winnable_{a.player_id}" for a in (attempt, other)]
    cache.delete_many(keys)  # only these keys: the cache may be a shared Redis
    try:
        assert [ask(attempt).status_code for _ in range(4)] == [200] * 4
        assert_error(ask(attempt), 429, "throttled")
        assert ask(other).status_code == 200  # per player, not for everybody
    finally:
        cache.delete_many(keys)


# -- fair shares: the queue holds a few tasks of anybody ---------------------------------------------------


@pytest.fixture
def queue(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """A broker nobody consumes: what the asks send stays queued (its tasks' args, in order)."""
    sent: list[tuple[int, int]] = []

    def fake_send(name: str, *, args: tuple[int, int], **options: Any) -> bool:
        assert name == winnable.WINNABLE_TASK and options["expires"] == winnable.TASK_EXPIRES_SECONDS
        sent.append(args)
        return True

    monkeypatch.setattr(winnable, "send", fake_send)
    return sent


def past_days(count: int) -> list[Any]:
    """Challenges of past days, each its own deal (so each attempt's position is a new one to solve)."""
    return [make_challenge(game=GAME, seed=SEED + 1 + i, day=DAY - dt.timedelta(days=1 + i)) for i in range(count)]


def test_a_second_ask_for_an_attempt_while_its_solve_runs_sends_nothing(
    past: Challenge, queue: list[tuple[int, int]]
) -> None:
    attempt = practice(past, WINNABLE_LOG)
    assert ask(attempt).json()["state"] == "pending"
    services.attempt_append_moves(attempt_id=attempt.pk, player=attempt.player, start=len(WINNABLE_LOG), moves=["s"])
    for _ in range(5):  # a new position, asked again and again while the first solve is in flight
        answer = ask(attempt)
        assert answer.status_code == 202 and answer.json()["state"] == "pending"
    assert queue == [(attempt.pk, len(WINNABLE_LOG))]
    assert tasks.winnable_position(*queue[0]) == "winnable"  # the worker's turn frees the attempt
    assert ask(attempt).json()["state"] == "pending"  # the newest position goes now
    assert queue[1:] == [(attempt.pk, len(WINNABLE_LOG) + 1)]
    assert tasks.winnable_position(*queue[1]) == "lost"
    assert ask(attempt).json()["state"] == "lost"


@override_settings(WINNABLE_TASKS_PER_PLAYER=2, WINNABLE_TASKS_PER_ADDRESS=100)
def test_a_flood_of_new_positions_from_one_player_queues_at_most_its_share(
    clock: time_machine.Traveller, queue: list[tuple[int, int]]
) -> None:
    flooder = make_user()
    *challenges, other_day = past_days(13)
    attempts = [practice(challenge, [], player=flooder) for challenge in challenges]
    client = client_for(flooder)
    answers = [ask(attempt, client) for attempt in attempts for _ in range(3)]
    assert {a.json()["state"] for a in answers} == {"pending"}  # nobody is refused: the page polls on
    assert len(queue) == 2  # the queue never holds more of this player
    # another player's light is not behind the flood: its task goes now, next to the flooder's two
    honest = practice(other_day, [])
    assert ask(honest).json()["state"] == "pending" and queue[-1] == (honest.pk, 0) and len(queue) == 3
    # each task done lets one more of the flooder's in, never more than the share at once
    tasks.winnable_position(*queue[0])
    [ask(attempt, client) for attempt in attempts]
    assert len(queue) == 4 and sum(1 for a, _ in queue if a != honest.pk) == 3


@override_settings(WINNABLE_TASKS_PER_PLAYER=3, WINNABLE_TASKS_PER_GUEST=1, WINNABLE_TASKS_PER_ADDRESS=100)
def test_a_guest_gets_the_smallest_share(clock: time_machine.Traveller, queue: list[tuple[int, int]]) -> None:
    guest = services.guest_create()
    attempts = [practice(challenge, [], player=guest) for challenge in past_days(4)]
    [ask(attempt) for attempt in attempts]
    assert len(queue) == 1


@override_settings(WINNABLE_TASKS_PER_PLAYER=2, WINNABLE_TASKS_PER_ADDRESS=3)
def test_players_from_one_address_share_it_an_ipv6_address_by_its_64(
    clock: time_machine.Traveller, queue: list[tuple[int, int]]
) -> None:
    challenges = past_days(8)
    players = [practice(challenge, []) for challenge in challenges[:6]]
    for i, attempt in enumerate(players):  # six players, each a new address in one /64
        attempt_client = client_for(attempt.player)
        attempt_client.get(url(attempt.pk), REMOTE_ADDR=f"2001:db8:77:1:{i}::1")
    assert len(queue) == 3
    elsewhere = practice(challenges[6], [])
    client_for(elsewhere.player).get(url(elsewhere.pk), REMOTE_ADDR="2001:db8:77:2::1")  # another /64
    assert queue[-1] == (elsewhere.pk, 0) and len(queue) == 4


@override_settings(WINNABLE_TASKS_PER_GUEST=1, WINNABLE_TASKS_PER_ADDRESS=4, WINNABLE_GUEST_TASKS_PER_ADDRESS=2)
def test_ten_guests_from_one_address_are_one_small_share_and_leave_room_for_its_players(
    clock: time_machine.Traveller, queue: list[tuple[int, int]]
) -> None:
    challenges = past_days(12)
    for i, challenge in enumerate(challenges[:10]):
        attempt = practice(challenge, [], player=services.guest_create())
        client_for(attempt.player).get(url(attempt.pk), REMOTE_ADDR=f"2001:db8:66:1::{i + 1}")
    assert len(queue) == 2  # ten free guests of one /64: two solves in flight at most
    for challenge in challenges[10:]:  # players with accounts behind the same address still get theirs
        attempt = practice(challenge, [])
        client_for(attempt.player).get(url(attempt.pk), REMOTE_ADDR="2001:db8:66:1::99")
        assert queue[-1] == (attempt.pk, 0)
    assert len(queue) == 4


def test_a_task_frees_its_shares_whatever_it_finds(past: Challenge, queue: list[tuple[int, int]]) -> None:
    attempt = practice(past, WINNABLE_LOG)
    ask(attempt)
    Attempt.objects.filter(pk=attempt.pk).delete()  # gone meanwhile (a deleted guest): nothing to solve
    assert tasks.winnable_position(*queue[0]) == "not_eligible"
    again = practice(past, WINNABLE_LOG, player=attempt.player)
    with override_settings(
        WINNABLE_TASKS_PER_PLAYER=1, WINNABLE_TASKS_PER_ADDRESS=1, WINNABLE_GUEST_TASKS_PER_ADDRESS=1
    ):
        ask(again)
    assert queue[1:] == [(again.pk, len(WINNABLE_LOG))]  # the player's and the address's shares were free


def test_a_broker_that_is_down_takes_no_share(past: Challenge, monkeypatch: pytest.MonkeyPatch) -> None:
    attempt = practice(past, WINNABLE_LOG)
    monkeypatch.setattr(winnable, "send", lambda *args, **kwargs: False)
    with override_settings(WINNABLE_TASKS_PER_PLAYER=1, WINNABLE_TASKS_PER_ADDRESS=1):
        assert ask(attempt).json()["state"] == "undecided"
        monkeypatch.setattr(winnable, "send", lambda name, args, **kwargs: tasks.winnable_position(*args) and True)
        assert ask(attempt).json()["state"] == "winnable"


def test_a_task_lost_with_its_worker_frees_its_shares_when_it_would_have_expired(
    past: Challenge, queue: list[tuple[int, int]]
) -> None:
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    if not isinstance(caches["default"], LocMemCache):
        pytest.skip("Redis keeps time by its own clock: the expiry is the cache's, tested on the local cache")
    attempt = practice(past, WINNABLE_LOG)
    ask(attempt)  # its task is lost: never run
    services.attempt_append_moves(attempt_id=attempt.pk, player=attempt.player, start=len(WINNABLE_LOG), moves=["s"])
    ask(attempt)
    assert len(queue) == 1
    with time_machine.travel(NEXT_NOON + dt.timedelta(seconds=winnable.IN_FLIGHT_SECONDS + 1), tick=False):
        ask(attempt)
    assert queue[1:] == [(attempt.pk, len(WINNABLE_LOG) + 1)]


@pytest.mark.throttled
def test_asks_are_throttled_per_guest_below_players_and_per_address(
    past: Challenge, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.core.cache import cache

    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "winnable", "6/min")
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "winnable_guest", "3/min")
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "winnable_address", "9/min")
    guest = practice(past, WINNABLE_LOG, player=services.guest_create())
    player = practice(past, WINNABLE_LOG)
    late = practice(past, WINNABLE_LOG)
    keys = [f"throttle_winnable_guest_{guest.player_id}", f"throttle_winnable_{player.player_id}"]
    keys += [f"throttle_winnable_{late.player_id}"]
    keys += [f"throttle_winnable_address_{share}" for share in ("2001:db8:9:9::/64", "198.51.100.77")]
    cache.delete_many(keys)
    try:
        here: dict[str, Any] = {"REMOTE_ADDR": "2001:db8:9:9::1"}
        guest_client, player_client = client_for(guest.player), client_for(player.player)
        assert [guest_client.get(url(guest.pk), **here).status_code for _ in range(4)] == [200] * 3 + [429]
        assert [player_client.get(url(player.pk), **here).status_code for _ in range(4)] == [200] * 4
        # 8 of the address's 9 asks are spent (DRF counts an ask every throttle it passes, the guest's
        # refused one too); a new address in the same /64 is the same address
        late_client = client_for(late.player)
        assert late_client.get(url(late.pk), REMOTE_ADDR="2001:db8:9:9:ffff::2").status_code == 200
        assert_error(late_client.get(url(late.pk), REMOTE_ADDR="2001:db8:9:9:ffff::3"), 429, "throttled")
        assert late_client.get(url(late.pk), REMOTE_ADDR="198.51.100.77").status_code == 200
    finally:
        cache.delete_many(keys)


# -- with a real worker and broker, as in production ------------------------------------------------------


@pytest.mark.broker
@pytest.mark.slow
@pytest.mark.redis(reason="a real broker for the worker")
@pytest.mark.postgres(reason="the worker process needs a database it can share")
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_answers_while_the_page_polls(tmp_path: Path) -> None:
    import time

    from celery import current_app
    from django.core.cache import cache

    from tests.processes import celery_worker
    from tests.test_end_to_end import database_url

    yesterday = days.today() - dt.timedelta(days=1)
    challenge = make_challenge(game=GAME, seed=SEED, day=yesterday, solution=DATA["solution"])
    attempt = practice(challenge, WINNABLE_LOG)
    lost = [*WINNABLE_LOG, LOSING_MOVE]
    cache.delete_many([winnable.position_key(game=GAME, state=position_after(m)) for m in (WINNABLE_LOG, lost)])
    current_app.control.purge()  # the service's app (config loads it with Django): nothing left from a run
    client = client_for(attempt.player)
    log = tmp_path / "worker.log"
    with celery_worker(log, queues=settings.CELERY_WINNABLE_QUEUE, env={"DATABASE_URL": database_url()}):
        for moves, expected in ((WINNABLE_LOG, "winnable"), (lost, "lost")):
            if moves is lost:
                services.attempt_append_moves(
                    attempt_id=attempt.pk, player=attempt.player, start=len(WINNABLE_LOG), moves=[LOSING_MOVE]
                )
            first = client.get(url(attempt.pk))
            assert first.status_code == 202 and first.json()["state"] == "pending"  # the request solved nothing
            deadline = time.monotonic() + 60
            body = first.json()
            while body["state"] == "pending" and time.monotonic() < deadline:
                time.sleep(body["retry_after_ms"] / 1000)
                body = client.get(url(attempt.pk)).json()
            assert body["state"] == expected, f"{body}\nworker log:\n{log.read_text()[-3000:]}"
            assert body["moves"] == len(moves)
