"""The board endpoint's read caches: the rendered public top page (Redis) and the challenge lookup.

Whatever is cached, a write to the board changes the next read, and the ``me``
part (and ``around=me``) of an authenticated read is always computed afresh.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
import redis
from django.http import QueryDict
from django.test import Client, RequestFactory
from pytest_django import Settings
from rest_framework.exceptions import ValidationError

from games import days as dates
from games.fields import validated_query
from games.models import Challenge, Result
from leaderboard import redis_store
from leaderboard.apis import LeaderboardApi
from leaderboard.selectors import boards as selectors
from leaderboard.services import leaderboard_rebuild, leaderboard_record_result, leaderboard_remove_result
from leaderboard.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_challenge_memory() -> None:
    selectors.challenge_cache_clear()


@pytest.fixture
def board() -> dict[str, Any]:
    today = dates.today()
    challenge = make_challenge(date=today)
    players = [make_user(f"c{i:02d}") for i in range(6)]
    for i, player in enumerate(players):
        make_result(challenge=challenge, player=player, score=600 - 10 * i)
    return {"challenge": challenge, "players": players, "url": f"/api/v1/leaderboards/{today.isoformat()}/klondike"}


def record(result: Result, capture: Callable[..., Any]) -> None:
    with capture(execute=True):
        leaderboard_record_result(result_id=result.pk)


def scores(response: Any) -> list[int]:
    assert response.status_code == 200, response.content
    return [e["score"] for e in response.json()["entries"]]


def test_the_top_page_is_served_from_redis_until_a_write(
    board: dict[str, Any],
    redis_client: redis.Redis,
    django_assert_num_queries: Callable[..., Any],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    first = Client().get(board["url"])  # builds the board in Redis
    assert scores(first) == [600, 590, 580, 570, 560, 550]
    assert Client().get(board["url"]).content == first.content  # renders and keeps the page
    with django_assert_num_queries(0):  # challenge remembered, page rendered in Redis
        again = Client().get(board["url"])
    assert again.content == first.content
    assert again["Content-Type"] == first["Content-Type"] == "application/json"

    newcomer = make_result(challenge=board["challenge"], player=make_user("newcomer"), score=595)
    record(newcomer, django_capture_on_commit_callbacks)
    body = Client().get(board["url"]).json()
    assert [e["score"] for e in body["entries"]] == [600, 595, 590, 580, 570, 560, 550]
    assert body["total"] == 7 and body["entries"][1]["player"] == "newcomer"

    Result.objects.filter(pk=newcomer.pk).update(disqualified=True)
    with django_capture_on_commit_callbacks(execute=True):
        leaderboard_remove_result(result_id=newcomer.pk)
    assert scores(Client().get(board["url"])) == [600, 590, 580, 570, 560, 550]


def test_each_limit_and_each_board_have_their_own_page(board: dict[str, Any], redis_client: redis.Redis) -> None:
    make_result(challenge=board["challenge"], player=make_user("helped"), score=595, assisted=True)
    assert leaderboard_rebuild(challenge_id=board["challenge"].pk)
    for _ in range(2):
        assert scores(Client().get(board["url"], {"limit": 2})) == [600, 590]
        assert scores(Client().get(board["url"], {"limit": "2", "board": "all"})) == [600, 595]
        assert scores(Client().get(board["url"], {"board": "all"})) == [600, 595, 590, 580, 570, 560, 550]
        assert scores(Client().get(board["url"])) == [600, 590, 580, 570, 560, 550]
        assert scores(Client().get(board["url"], {"board": "day"})) == [600, 590, 580, 570, 560, 550]


def test_a_rebuild_changes_the_next_read(board: dict[str, Any], redis_client: redis.Redis) -> None:
    for _ in range(2):
        assert len(scores(Client().get(board["url"]))) == 6
    # A row changed behind Redis's back (no write reached the board): served as cached...
    Result.objects.filter(pk=board["challenge"].results.get(player=board["players"][0]).pk).update(score=100)
    assert scores(Client().get(board["url"]))[0] == 600
    # ...until the board is rebuilt (as it is at the latest once it is LEADERBOARD_REDIS_MAX_AGE old).
    assert leaderboard_rebuild(challenge_id=board["challenge"].pk)
    assert scores(Client().get(board["url"])) == [590, 580, 570, 560, 550, 100]


def test_an_aged_board_is_not_served_from_the_page_cache(
    board: dict[str, Any], redis_client: redis.Redis, settings: Settings
) -> None:
    for _ in range(2):
        assert len(scores(Client().get(board["url"]))) == 6
    Result.objects.filter(pk=board["challenge"].results.get(player=board["players"][0]).pk).update(score=100)
    settings.LEADERBOARD_REDIS_MAX_AGE = 0  # every board is too old: the read rebuilds it
    assert scores(Client().get(board["url"])) == [590, 580, 570, 560, 550, 100]


def test_a_dropped_board_is_not_served_from_the_page_cache(board: dict[str, Any], redis_client: redis.Redis) -> None:
    for _ in range(2):
        assert len(scores(Client().get(board["url"]))) == 6
    keys = redis_store.board_keys(challenge=board["challenge"])
    assert redis_client.hlen(keys.pages) == 1
    Result.objects.filter(pk=board["challenge"].results.get(player=board["players"][5]).pk).delete()
    redis_client.delete(keys.all, keys.clean, keys.members)  # flushed or evicted, the pages left behind
    assert scores(Client().get(board["url"])) == [600, 590, 580, 570, 560]


def test_me_stays_fresh_for_a_logged_in_player(
    board: dict[str, Any], redis_client: redis.Redis, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    me = board["players"][3]
    client = Client()
    client.force_login(me)
    Client().get(board["url"])  # the public page is cached...
    body = client.get(board["url"]).json()
    assert body["me"]["rank"] == 4 and body["me"]["entry"]["player"] == "c03"

    mine = Result.objects.get(challenge=board["challenge"], player=me)
    Result.objects.filter(pk=mine.pk).update(score=999)
    record(mine, django_capture_on_commit_callbacks)
    body = client.get(board["url"]).json()  # ...but a logged-in read sees the write at once
    assert body["me"]["rank"] == 1 and body["me"]["entry"]["score"] == 999
    assert body["entries"][0]["player"] == "c03"
    body = client.get(board["url"], {"around": "me"}).json()
    assert body["me"]["rank"] == 1 and [e["rank"] for e in body["entries"]] == [1, 2, 3, 4, 5, 6]
    assert "me" not in Client().get(board["url"]).json()


def test_without_redis_nothing_is_cached(board: dict[str, Any], no_redis: None) -> None:
    assert len(scores(Client().get(board["url"]))) == 6
    make_result(challenge=board["challenge"], score=1000)
    assert scores(Client().get(board["url"]))[0] == 1000


def test_a_saved_or_deleted_challenge_is_forgotten_at_once(board: dict[str, Any], backend: str) -> None:
    assert Client().get(board["url"]).status_code == 200
    challenge: Challenge = board["challenge"]
    challenge.published = False
    challenge.save()
    assert Client().get(board["url"]).status_code == 404
    challenge.published = True
    challenge.save()
    assert Client().get(board["url"]).status_code == 200
    challenge.delete()
    assert Client().get(board["url"]).status_code == 404


def test_an_update_behind_the_model_shows_within_the_cache_seconds(
    board: dict[str, Any], backend: str, settings: Settings
) -> None:
    assert Client().get(board["url"]).status_code == 200
    Challenge.objects.filter(pk=board["challenge"].pk).update(published=False)  # no signal
    assert Client().get(board["url"]).status_code == 200  # remembered for a few seconds
    later = time.monotonic() + selectors.challenge_cache_seconds() + 1
    with mock.patch.object(time, "monotonic", return_value=later):  # the clock the selectors read
        assert Client().get(board["url"]).status_code == 404
    settings.LEADERBOARD_CHALLENGE_CACHE_SECONDS = 0  # no memory at all
    Challenge.objects.filter(pk=board["challenge"].pk).update(published=True)
    assert Client().get(board["url"]).status_code == 200
    Challenge.objects.filter(pk=board["challenge"].pk).update(published=False)
    assert Client().get(board["url"]).status_code == 404


def test_a_remembered_challenge_loads_its_other_fields_on_access(board: dict[str, Any]) -> None:
    day = board["challenge"].date
    selectors.leaderboard_challenge_get(date=day, game="klondike", cached=True)
    remembered = selectors.leaderboard_challenge_get(date=day, game="klondike", cached=True)
    assert (remembered.pk, remembered.date, remembered.game) == (board["challenge"].pk, day, "klondike")
    assert remembered.seed == board["challenge"].seed and remembered.status == "ready"


@pytest.mark.parametrize(
    "query",
    [
        "",
        "limit=5",
        "limit=0005&offset=00",
        "limit=200&offset=999999999",
        "offset=3&board=all",
        "board=day",
        "board=all",
        "board=day&board=all",
        "limit=7&limit=9",
        "limit=1&offset=0&board=day",
        "limit=1.0",  # these the serializer reads as it likes (1, an Arabic-Indic 3):
        # the remembered reading is its reading, whatever it is
        "limit=%D9%A3",
        "around=me",
        "other=1",
    ],
)
def test_a_remembered_query_is_the_serializers_reading(query: str, monkeypatch: pytest.MonkeyPatch) -> None:
    params = QueryDict(query)
    serializer = LeaderboardApi.InputSerializer(data=params)
    assert serializer.is_valid(), serializer.errors
    request = RequestFactory().get(f"/?{query}")
    first = validated_query(LeaderboardApi.InputSerializer, request)
    assert first == dict(serializer.validated_data)
    first["limit"] = -1  # the caller's copy: the remembered reading is not changed
    monkeypatch.setattr(LeaderboardApi.InputSerializer, "is_valid", lambda *a, **k: pytest.fail("validated again"))
    assert validated_query(LeaderboardApi.InputSerializer, request) == dict(serializer.validated_data)


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=201",
        "limit=-1",
        "offset=-1",
        "offset=1234567890",
        "board=maybe",
        "limit=",  # an empty parameter is refused, not read as the default
        "offset=&limit=5",
        "board=",
        "board=%C4%B0",
        "board=ALL",
        "around=you",
    ],
)
def test_a_bad_query_is_refused_every_time_with_the_serializers_errors(query: str) -> None:
    serializer = LeaderboardApi.InputSerializer(data=QueryDict(query))
    assert not serializer.is_valid()
    request = RequestFactory().get(f"/?{query}")
    for _ in range(2):
        with pytest.raises(ValidationError) as caught:
            validated_query(LeaderboardApi.InputSerializer, request)
        assert caught.value.detail == serializer.errors


def test_the_cached_body_is_the_uncached_body(
    board: dict[str, Any], redis_client: redis.Redis, settings: Settings
) -> None:
    cached = [Client().get(board["url"], {"limit": 3}) for _ in range(2)]
    settings.REDIS_URL = ""
    direct = Client().get(board["url"], {"limit": 3})
    assert cached[0].content == cached[1].content == direct.content
    assert json.loads(direct.content)["limit"] == 3
    per_response = ("Content-Length", "X-Request-ID")  # the request id is each request's own
    assert {k: v for k, v in cached[1].items() if k not in per_response} == {
        k: v for k, v in direct.items() if k not in per_response
    }
    assert dt.date.fromisoformat(json.loads(direct.content)["date"]) == board["challenge"].date
