"""Follows through the API, as an attacker would use them: oneself, guests, strangers, floods, other lists."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from follows import services
from follows.errors import TooManyFollows
from follows.models import Follow
from games import days
from games.models import Attempt, Guest, PlayerBan
from games.tests.factories import token_for
from leaderboard.tests.factories import make_challenge, make_result, make_user
from tests.concurrency import at_once

pytestmark = pytest.mark.django_db


def call(user: User | None, method: str, path: str, **query: Any) -> Any:
    client = Client()
    if user is not None:
        client = Client(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    url = f"/api/v1/{path}"
    if method == "get":
        return client.get(url, query)
    return getattr(client, method)(url, content_type="application/json")


def error(response: Any, status: int, code: str) -> str:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    return str(body["error"]["message"])


def names(user: User) -> list[str]:
    return [f["player"] for f in call(user, "get", "me/follows").json()]


def test_follow_list_and_unfollow() -> None:
    ann, bob, cy = make_user("ann"), make_user("bob"), make_user("cy")
    created = call(ann, "put", "me/follows/bob")
    assert created.status_code == 201 and created.json()["player"] == "bob"
    assert call(ann, "put", "me/follows/bob").status_code == 200  # again: nothing new
    assert call(ann, "put", "me/follows/cy").status_code == 201
    assert names(ann) == ["bob", "cy"]
    assert call(ann, "get", "me/follows/bob").json()["player"] == "bob"
    assert call(ann, "delete", "me/follows/bob").status_code == 204
    assert call(ann, "delete", "me/follows/bob").status_code == 204  # not following: no error, no change
    error(call(ann, "get", "me/follows/bob"), 404, "not_found")
    assert names(ann) == ["cy"] and Follow.objects.count() == 1
    assert names(bob) == [] and cy.pk  # nobody else's list changed


def test_following_oneself_is_refused() -> None:
    ann = make_user("ann")
    assert "yourself" in error(call(ann, "put", "me/follows/ann"), 400, "follow_self")
    assert not Follow.objects.exists()


@pytest.mark.parametrize("target", ["nobody", "closed", "banned", "guest", "x" * 151, "a%00b"])
def test_a_stranger_a_guest_and_a_closed_account_are_the_same_404(target: str) -> None:
    ann = make_user("ann")
    closed = make_user("closed")
    closed.is_active = False
    closed.save()
    PlayerBan.objects.create(player=make_user("banned"), reason="cheating")  # accounts.services.player_ban
    guest = make_user("guest")
    Guest.objects.create(user=guest)
    error(call(ann, "put", f"me/follows/{target}"), 404, "not_found")
    assert not Follow.objects.exists()


def test_a_guest_cannot_follow_and_a_visitor_must_log_in() -> None:
    guest = make_user("guest-1a2b3c")
    Guest.objects.create(user=guest)
    make_user("bob")
    error(call(guest, "put", "me/follows/bob"), 403, "guest_cannot_follow")
    assert call(None, "put", "me/follows/bob").status_code in (401, 403)
    assert call(None, "get", "me/follows").status_code in (401, 403)
    assert call(None, "get", "me/friends/today").status_code in (401, 403)
    assert not Follow.objects.exists()


def test_the_cap_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "MAX_FOLLOWS", 3)
    ann = make_user("ann")
    for i in range(4):
        make_user(f"p{i}")
    for i in range(3):
        assert call(ann, "put", f"me/follows/p{i}").status_code == 201
    error(call(ann, "put", "me/follows/p3"), 409, "follow_limit")
    assert call(ann, "put", "me/follows/p0").status_code == 200  # following one already followed still answers
    assert Follow.objects.filter(follower=ann).count() == 3


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_flood_of_parallel_follows_stops_at_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(services, "MAX_FOLLOWS", 3)
    ann = make_user("ann")
    others = [make_user(f"p{i}").get_username() for i in range(6)]

    def follow(name: str) -> Any:
        def go() -> int:
            try:
                services.follow_add(follower=ann, username=name)
                return 201
            except TooManyFollows:
                return 409

        return go

    answers = at_once(*[follow(n) for n in others], follow(others[0]))
    assert Follow.objects.filter(follower=ann).count() == 3
    assert answers.count(409) >= 3


def test_nobody_reads_anybody_elses_follows() -> None:
    """Follows are private: no path names another player's list, and the profile shows none."""
    ann, bob = make_user("ann"), make_user("bob")
    make_user("cy")
    call(bob, "put", "me/follows/cy")
    assert names(ann) == []  # the caller's own list only
    for path in ("players/bob/follows", "players/bob/followers", "players/bob/following"):
        assert call(ann, "get", path).status_code == 404
    profile = call(ann, "get", "players/bob").json()
    assert not {"follows", "followers", "following"} & set(profile)
    assert "cy" not in str(profile)


def test_friends_today_shows_only_what_the_public_board_shows() -> None:
    ann, bob, cy, dan = make_user("ann"), make_user("bob"), make_user("cy"), make_user("dan")
    for name in ("bob", "cy"):
        call(ann, "put", f"me/follows/{name}")
    today = make_challenge(date=days.today(), game="klondike")
    other = make_challenge(date=days.today(), game="maria")
    yesterday = make_challenge(date=days.today() - dt.timedelta(days=1), game="klondike")
    make_result(challenge=today, player=bob, score=612)
    make_result(challenge=other, player=bob, won=False, score=80, assisted=True)
    make_result(challenge=yesterday, player=cy, score=500)  # not today
    make_result(challenge=today, player=dan, score=700)  # not followed
    Attempt.objects.create(player=cy, challenge=today, ranked=True)  # cy is still playing: nothing of it shows
    body = call(ann, "get", "me/friends/today").json()
    assert body["date"] == days.today().isoformat()
    shown = {(r["player"], r["game"], r["won"], r["score"], r["assisted"]) for r in body["results"]}
    assert shown == {("bob", "klondike", True, 612, False), ("bob", "maria", False, 80, True)}
    assert not any(key in r for r in body["results"] for key in ("attempt", "moves_log", "seed", "replay"))


def test_friends_today_leaves_out_held_disqualified_and_pending_results() -> None:
    ann, bob = make_user("ann"), make_user("bob")
    call(ann, "put", "me/follows/bob")
    for game, fields in (("klondike", {"status": "pending"}), ("maria", {"disqualified": True})):
        make_result(challenge=make_challenge(date=days.today(), game=game), player=bob, **fields)
    held = make_result(challenge=make_challenge(date=days.today(), game="lucas"), player=bob)
    held.held = True
    held.save()
    assert call(ann, "get", "me/friends/today").json()["results"] == []


def test_the_friends_board_is_the_public_board_of_whom_you_follow_and_you() -> None:
    ann, bob, cy, dan = make_user("ann"), make_user("bob"), make_user("cy"), make_user("dan")
    call(ann, "put", "me/follows/bob")
    call(ann, "put", "me/follows/cy")
    today = make_challenge(date=days.today(), game="klondike")
    make_result(challenge=today, player=dan, score=900)
    make_result(challenge=today, player=bob, score=600)
    make_result(challenge=today, player=ann, score=550)
    make_result(challenge=today, player=cy, score=700, assisted=True)
    path = f"me/friends/leaderboards/{days.today().isoformat()}/klondike"
    body = call(ann, "get", path).json()
    assert [(e["rank"], e["player"]) for e in body["entries"]] == [(1, "bob"), (2, "ann")]
    assert body["total"] == 2 and body["board"] == "day"
    assert all(e["attempt"] is None for e in body["entries"])  # no game links before the day is over
    every = call(ann, "get", path, board="all").json()
    assert [(e["player"], e["assisted"]) for e in every["entries"]] == [("cy", True), ("bob", False), ("ann", False)]
    # bob's friends board is his own: ann is not on it unless he follows her
    assert [e["player"] for e in call(bob, "get", path).json()["entries"]] == ["bob"]


def test_the_friends_board_refuses_bad_paths_and_the_future() -> None:
    ann = make_user("ann")
    tomorrow = (days.today() + dt.timedelta(days=1)).isoformat()
    make_challenge(date=days.today() + dt.timedelta(days=1), game="klondike")
    assert call(ann, "get", f"me/friends/leaderboards/{tomorrow}/klondike").status_code == 404
    assert call(ann, "get", f"me/friends/leaderboards/{days.today().isoformat()}/chess").status_code == 400
    assert call(ann, "get", "me/friends/leaderboards/2026-13-40/klondike").status_code == 400
    path = f"me/friends/leaderboards/{days.today().isoformat()}/klondike"
    make_challenge(date=days.today(), game="klondike")
    assert call(ann, "get", path, limit=0).status_code == 400
    assert call(ann, "get", path, board="mine").status_code == 400
    assert call(None, "get", path).status_code in (401, 403)


@pytest.mark.throttled
def test_follow_changes_are_throttled() -> None:
    """60 follow changes a minute per player; reading the list is not counted as one."""
    from django.core.cache import cache

    ann = make_user("ann")
    make_user("bob")
    keys = [f"throttle_{scope}_{ann.pk}" for scope in ("follow", "user")]
    cache.delete_many(keys)
    try:
        statuses = [call(ann, "put" if i % 2 else "delete", "me/follows/bob").status_code for i in range(60)]
        assert set(statuses) == {201, 204}
        assert call(ann, "get", "me/follows").status_code == 200
        error(call(ann, "put", "me/follows/bob"), 429, "throttled")
    finally:
        cache.delete_many(keys)


def test_reads_cost_the_same_few_queries_whoever_is_followed() -> None:
    """No query per friend: the block, the board and the list read as many rows as there are in one go."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    ann = make_user("ann")
    today = make_challenge(date=days.today(), game="klondike")
    path = f"me/friends/leaderboards/{days.today().isoformat()}/klondike"
    counts = []
    for friends in (3, 12):
        for _ in range(friends - Follow.objects.filter(follower=ann).count()):
            friend = make_user()
            Follow.objects.create(follower=ann, followed=friend)
            make_result(challenge=today, player=friend)
        with CaptureQueriesContext(connection) as queries:
            assert len(call(ann, "get", "me/friends/today").json()["results"]) == friends
            assert call(ann, "get", path).json()["total"] == friends
            assert len(call(ann, "get", "me/follows").json()) == friends
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
