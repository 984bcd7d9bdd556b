"""The leagues' endpoints: status codes, the error shape, and nothing of a league shown to outsiders."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games import days
from games.tests.factories import token_for
from leaderboard.tests.factories import ENTRY_KEYS, make_challenge, make_result, make_user
from leagues import services
from leagues.models import League, Membership
from leagues.tests.factories import make_league, snapshot

pytestmark = pytest.mark.django_db


def client_for(user: User | None) -> Client:
    if user is None:
        return Client()
    token = token_for(user)
    return Client(HTTP_AUTHORIZATION=f"Token {token}")


def call(user: User | None, method: str, path: str, body: Any = None, **query: Any) -> Any:
    client = client_for(user)
    url = f"/api/v1/{path}"
    if method == "get":
        return client.get(url, query)
    return getattr(client, method)(url, data=body if body is not None else {}, content_type="application/json")


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) >= {"message", "code"}
    assert set(body["error"]) <= {"message", "code", "details"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    error: dict[str, Any] = body["error"]
    return error


@pytest.fixture
def world() -> dict[str, Any]:
    """A league owned by olga with member mia; sam is in no league."""
    olga, mia, sam = make_user("olga"), make_user("mia"), make_user("sam")
    league = make_league(owner=olga, members=[mia], name="Night Owls")
    return {"olga": olga, "mia": mia, "sam": sam, "league": league, "id": league.pk}


def today_board_path(league_id: int) -> str:
    return f"leagues/{league_id}/boards/{days.today().isoformat()}/klondike"


# --- Authentication ------------------------------------------------------------------------------------

ENDPOINTS = [
    ("get", "leagues"),
    ("post", "leagues"),
    ("post", "leagues/join"),
    ("get", "leagues/{id}"),
    ("delete", "leagues/{id}"),
    ("post", "leagues/{id}/leave"),
    ("post", "leagues/{id}/invite-code"),
    ("get", "leagues/{id}/boards/2026-11-20/klondike"),
    ("get", "leagues/{id}/boards/all-time"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_every_endpoint_needs_a_login(world: dict[str, Any], method: str, path: str) -> None:
    before = snapshot()
    assert_error(call(None, method, path.format(id=world["id"]), {"name": "abc"}), 401, "not_authenticated")
    response = client_for(None).get("/api/v1/leagues", HTTP_AUTHORIZATION="Token wrong")
    assert_error(response, 401, "authentication_failed")
    assert snapshot() == before


# --- Create and list ---------------------------------------------------------------------------------


def test_create(world: dict[str, Any]) -> None:
    response = call(world["sam"], "post", "leagues", {"name": "  Card Sharks "})
    assert response.status_code == 201, response.content
    body = response.json()
    league = League.objects.get(pk=body["id"])
    assert body == {
        "id": league.pk,
        "name": "Card Sharks",
        "owner": "sam",
        "members": 1,
        "invite_code": league.invite_code,
        "created_at": body["created_at"],
    }
    assert dt.datetime.fromisoformat(body["created_at"].replace("Z", "+00:00"))


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": 123},
        {"name": None},
        {"name": ["abc"]},
        {"name": "ab"},
        {"name": "   "},
        {"name": "x" * 61},
        {"name": "new\nline"},
        {"name": "evil\u202egnp.exe"},  # bidi override
        {"name": "zero\u200bwidth"},  # invisible
        ["abc"],
        '"abc"',  # a JSON string, not an object
        "42",
    ],
)
def test_create_refuses_bad_input(world: dict[str, Any], body: Any) -> None:
    before = snapshot()
    assert_error(call(world["sam"], "post", "leagues", body), 400, "invalid")
    assert snapshot() == before


def test_create_refuses_malformed_json(world: dict[str, Any]) -> None:
    response = client_for(world["sam"]).post("/api/v1/leagues", data="{name:", content_type="application/json")
    assert_error(response, 400, "parse_error")


def test_create_past_the_limit_is_a_conflict(world: dict[str, Any]) -> None:
    for i in range(services.MAX_OWNED_LEAGUES):
        make_league(owner=world["sam"], name=f"League {i}")
    before = snapshot()
    error = assert_error(call(world["sam"], "post", "leagues", {"name": "One more"}), 409, "league_limit")
    assert "20" in error["message"]
    assert snapshot() == before


def test_list_shows_my_leagues(world: dict[str, Any]) -> None:
    other = make_league(owner=world["sam"], name="Aardvarks", members=[world["mia"]])
    make_league(owner=world["sam"], name="Sam alone")
    body = call(world["mia"], "get", "leagues").json()
    assert [(x["id"], x["name"], x["owner"], x["members"]) for x in body] == [
        (other.pk, "Aardvarks", "sam", 2),
        (world["id"], "Night Owls", "olga", 2),
    ]
    assert call(make_user(), "get", "leagues").json() == []


# --- Detail: members only ------------------------------------------------------------------------------


def test_detail_for_a_member(world: dict[str, Any]) -> None:
    response = call(world["mia"], "get", f"leagues/{world['id']}")
    assert response.status_code == 200
    body = response.json()
    assert (body["name"], body["owner"], body["members"], body["invite_code"]) == (
        "Night Owls",
        "olga",
        2,
        world["league"].invite_code,
    )
    assert [(m["player"], m["owner"]) for m in body["roster"]] == [("olga", True), ("mia", False)]
    assert [m["guest"] for m in body["roster"]] == [False, False]


def test_a_non_member_sees_nothing_of_a_league(world: dict[str, Any]) -> None:
    league_id, sam, code = world["id"], world["sam"], world["league"].invite_code
    make_challenge(date=days.today())
    responses = [
        call(sam, "get", f"leagues/{league_id}"),
        call(sam, "get", today_board_path(league_id)),
        call(sam, "get", f"leagues/{league_id}/boards/all-time"),
        call(sam, "get", f"leagues/{league_id}/boards/not-a-date/klondike"),  # 404 before 400: nothing leaks
        call(sam, "post", f"leagues/{league_id}/leave"),
        call(sam, "delete", f"leagues/{league_id}"),
        call(sam, "post", f"leagues/{league_id}/invite-code"),
    ]
    unknown = [
        call(sam, "get", f"leagues/{league_id + 1000}"),
        call(sam, "get", f"leagues/{league_id + 1000}/boards/all-time"),
        call(sam, "delete", f"leagues/{league_id + 1000}"),
    ]
    for response in responses + unknown:
        assert_error(response, 404, "not_found")
        text = response.content.decode()
        assert code not in text and "Night Owls" not in text and "olga" not in text
    # The same message for a league that exists and one that does not, but for the id.
    assert responses[0].json()["error"]["message"].replace(str(league_id), "N") == unknown[0].json()["error"][
        "message"
    ].replace(str(league_id + 1000), "N")
    assert call(sam, "get", "leagues").json() == []


def test_huge_and_non_numeric_ids_are_not_found(world: dict[str, Any]) -> None:
    assert_error(call(world["olga"], "get", "leagues/99999999999999999999999"), 404, "not_found")
    assert_error(call(world["olga"], "get", "leagues/abc"), 404, "not_found")


# --- Join ------------------------------------------------------------------------------------------------


def test_join_and_join_again(world: dict[str, Any]) -> None:
    code = world["league"].invite_code
    first = call(world["sam"], "post", "leagues/join", {"invite_code": code})
    assert first.status_code == 200, first.content
    assert (first.json()["id"], first.json()["members"]) == (world["id"], 3)
    again = call(world["sam"], "post", "leagues/join", {"invite_code": f" {code.upper()} "})
    assert again.status_code == 200
    assert again.json() == first.json()
    assert Membership.objects.filter(league=world["league"]).count() == 3


def test_join_with_a_wrong_code(world: dict[str, Any]) -> None:
    before = snapshot()
    error = assert_error(call(world["sam"], "post", "leagues/join", {"invite_code": "zzzzzzzzzz"}), 404, "not_found")
    assert error["message"] == "No league has this invite code."
    assert snapshot() == before


@pytest.mark.parametrize("body", [{}, {"invite_code": 12345}, {"invite_code": ""}, {"invite_code": "x" * 65}, [1]])
def test_join_refuses_bad_input(world: dict[str, Any], body: Any) -> None:
    before = snapshot()
    assert_error(call(world["sam"], "post", "leagues/join", body), 400, "invalid")
    assert snapshot() == before


def test_join_a_full_league_is_a_conflict(world: dict[str, Any]) -> None:
    Membership.objects.bulk_create(
        Membership(league=world["league"], player=make_user()) for _ in range(services.MAX_MEMBERS - 2)
    )
    before = snapshot()
    response = call(world["sam"], "post", "leagues/join", {"invite_code": world["league"].invite_code})
    assert_error(response, 409, "league_full")
    assert snapshot() == before


@pytest.fixture
def throttle_keys(world: dict[str, Any]) -> Iterator[None]:
    """Only this player's throttle keys are reset, before and after (never the whole cache: it may be Redis)."""
    from django.core.cache import cache

    keys = [f"throttle_{scope}_{world['sam'].pk}" for scope in ("league_join", "user")]
    cache.delete_many(keys)
    yield
    cache.delete_many(keys)


@pytest.mark.throttled
@pytest.mark.usefixtures("throttle_keys")
def test_join_is_throttled(world: dict[str, Any]) -> None:
    statuses = [
        call(world["sam"], "post", "leagues/join", {"invite_code": f"guess{i:05d}"}).status_code for i in range(30)
    ]
    assert statuses == [404] * 30
    assert_error(call(world["sam"], "post", "leagues/join", {"invite_code": "guess"}), 429, "throttled")


# --- Leave, delete, regenerate ---------------------------------------------------------------------------


def test_leave(world: dict[str, Any]) -> None:
    response = call(world["mia"], "post", f"leagues/{world['id']}/leave")
    assert response.status_code == 204
    assert not Membership.objects.filter(player=world["mia"]).exists()
    assert_error(call(world["mia"], "get", f"leagues/{world['id']}"), 404, "not_found")


def test_the_owner_cannot_leave(world: dict[str, Any]) -> None:
    before = snapshot()
    assert_error(call(world["olga"], "post", f"leagues/{world['id']}/leave"), 409, "owner_cannot_leave")
    assert snapshot() == before


def test_delete(world: dict[str, Any]) -> None:
    before = snapshot()
    assert_error(call(world["mia"], "delete", f"leagues/{world['id']}"), 403, "not_owner")
    assert snapshot() == before
    response = call(world["olga"], "delete", f"leagues/{world['id']}")
    assert response.status_code == 204
    assert not League.objects.exists() and not Membership.objects.exists()
    assert_error(call(world["olga"], "delete", f"leagues/{world['id']}"), 404, "not_found")


def test_regenerate_the_invite_code(world: dict[str, Any]) -> None:
    old = world["league"].invite_code
    before = snapshot()
    assert_error(call(world["mia"], "post", f"leagues/{world['id']}/invite-code"), 403, "not_owner")
    assert snapshot() == before
    response = call(world["olga"], "post", f"leagues/{world['id']}/invite-code")
    assert response.status_code == 200
    new = response.json()["invite_code"]
    assert new != old and League.objects.get(pk=world["id"]).invite_code == new
    assert_error(call(world["sam"], "post", "leagues/join", {"invite_code": old}), 404, "not_found")
    assert call(world["sam"], "post", "leagues/join", {"invite_code": new}).status_code == 200


@pytest.mark.parametrize(
    ("method", "path"),
    [("put", "leagues/{id}"), ("get", "leagues/join"), ("get", "leagues/{id}/leave"), ("post", "leagues/{id}")],
)
def test_wrong_methods(world: dict[str, Any], method: str, path: str) -> None:
    assert_error(call(world["mia"], method, path.format(id=world["id"])), 405, "method_not_allowed")


# --- Boards ---------------------------------------------------------------------------------------------------


def test_daily_board(world: dict[str, Any]) -> None:
    challenge = make_challenge(date=days.today())
    make_result(challenge=challenge, player=world["sam"], score=900)  # not a member: absent
    make_result(challenge=challenge, player=world["olga"], score=500, play_time_ms=61_500)
    make_result(challenge=challenge, player=world["mia"], score=700, assisted=True)
    day = call(world["olga"], "get", today_board_path(world["id"])).json()  # the day's board: unassisted only
    assert (day["board"], day["total"], [(e["rank"], e["player"]) for e in day["entries"]]) == ("day", 1, [(1, "olga")])
    response = call(world["olga"], "get", today_board_path(world["id"]), board="all")
    assert response.status_code == 200, response.content
    body = response.json()
    assert {k: body[k] for k in ("league", "date", "game", "board", "total", "offset", "limit")} == {
        "league": world["id"],
        "date": days.today().isoformat(),
        "game": "klondike",
        "board": "all",
        "total": 2,
        "offset": 0,
        "limit": 50,
    }
    assert [(e["rank"], e["player"], e["score"], e["assisted"]) for e in body["entries"]] == [
        (1, "mia", 700, True),
        (2, "olga", 500, False),
    ]
    assert_error(call(world["olga"], "get", today_board_path(world["id"]), board="clean"), 400, "invalid")
    for empty in ("offset", "limit", "board"):
        assert_error(call(world["olga"], "get", today_board_path(world["id"]), **{empty: ""}), 400, "invalid")
    assert set(body["entries"][1]) == ENTRY_KEYS
    assert body["entries"][1]["time"] == 61.5
    paged = call(world["olga"], "get", today_board_path(world["id"]), offset=1, limit=1, board="all").json()
    assert [(e["rank"], e["player"]) for e in paged["entries"]] == [(2, "olga")]


@pytest.mark.parametrize(
    ("suffix", "query", "code"),
    [
        ("boards/2026-13-01/klondike", {}, "invalid_date"),
        ("boards/yesterday/klondike", {}, "invalid_date"),
        ("boards/20261120/klondike", {}, "invalid_date"),
        ("boards/{today}/chess", {}, "unknown_game"),
        ("boards/{today}/klondike", {"limit": 0}, "invalid"),
        ("boards/{today}/klondike", {"limit": 201}, "invalid"),
        ("boards/{today}/klondike", {"offset": -1}, "invalid"),
        ("boards/{today}/klondike", {"limit": "many"}, "invalid"),
        ("boards/all-time", {"limit": 0}, "invalid"),
        ("boards/all-time", {"offset": "x"}, "invalid"),
    ],
)
def test_board_bad_input(world: dict[str, Any], suffix: str, query: dict[str, Any], code: str) -> None:
    make_challenge(date=days.today())
    path = f"leagues/{world['id']}/" + suffix.format(today=days.today().isoformat())
    assert_error(call(world["mia"], "get", path, **query), 400, code)


def test_daily_board_of_a_missing_or_future_day(world: dict[str, Any]) -> None:
    assert_error(call(world["mia"], "get", today_board_path(world["id"])), 404, "not_found")
    tomorrow = days.today() + dt.timedelta(days=1)
    make_challenge(date=tomorrow)
    path = f"leagues/{world['id']}/boards/{tomorrow.isoformat()}/klondike"
    assert_error(call(world["mia"], "get", path), 404, "not_found")


def test_alltime_board(world: dict[str, Any]) -> None:
    challenge = make_challenge(date=days.today())
    make_result(challenge=challenge, player=world["mia"], score=700, moves=80)
    make_result(challenge=challenge, player=world["sam"], score=900)  # not a member
    make_result(challenge=challenge, player=world["olga"], score=990, assisted=True)  # not on the day's board
    response = call(world["mia"], "get", f"leagues/{world['id']}/boards/all-time")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["league"], body["total"], body["offset"], body["limit"]) == (world["id"], 2, 0, 50)
    assert body["since"] == world["league"].created_at.date().isoformat()
    assert body["entries"] == [
        {"rank": 1, "player": "mia", "wins": 1, "played": 1, "score": 700, "moves": 80, "guest": False},
        {"rank": 2, "player": "olga", "wins": 0, "played": 0, "score": 0, "moves": 0, "guest": False},
    ]
