"""Bad input never reaches a 500 (issue 11, item 6): each is a clear JSON 400 or 413.

Bodies nested too deeply, numbers too large, wrong types, bodies that are not
UTF-8 (or carry a BOM), lone surrogates and NUL characters, bodies too large,
and paging values past what the database can count.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from games import days
from games.tests.factories import make_challenge, make_user, token_for
from leagues.models import League

pytestmark = pytest.mark.django_db


@pytest.fixture
def token() -> str:
    return token_for(make_user())


def post(path: str, body: bytes | str, token: str | None = None, content_type: str = "application/json") -> Any:
    headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return Client().generic("POST", path, body, content_type=content_type, **headers)


def get(path: str, token: str | None = None) -> Any:
    headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    return Client().get(path, **headers)


def assert_error(response: Any, status: int, code: str | None = None) -> str:
    assert response.status_code == status, response.content[:500]
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"error"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"], body
    if code is not None:
        assert body["error"]["code"] == code, body
    return str(body["error"]["message"])


@pytest.fixture
def attempt_id(token: str) -> int:
    challenge = make_challenge(seed=7)
    response = Client().post(
        f"/api/v1/daily/{challenge.date}/{challenge.game}/attempts", HTTP_AUTHORIZATION=f"Token {token}"
    )
    assert response.status_code == 201
    return int(response.json()["id"])


# --- Bodies ------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [100, 100_000])
def test_deeply_nested_body_is_400(depth: int, token: str, attempt_id: int) -> None:
    nested = "[" * depth + "]" * depth
    message = assert_error(post(f"/api/v1/attempts/{attempt_id}/moves", nested, token), 400, "parse_error")
    assert "nested" in message
    body = '{"from": 0, "moves": ' + "[" * depth + "]" * depth + "}"
    assert_error(post(f"/api/v1/attempts/{attempt_id}/moves", body, token), 400, "parse_error")
    assert_error(post("/api/v1/auth/register", nested), 400, "parse_error")


def test_moderate_nesting_still_parses(token: str, attempt_id: int) -> None:
    body = '{"from": 0, "moves": [], "extra": ' + "[" * 20 + "]" * 20 + "}"
    assert post(f"/api/v1/attempts/{attempt_id}/moves", body, token).status_code == 200


@pytest.mark.parametrize(
    "value",
    [
        "9" * 5000,  # past Python's int parsing limit
        "1e400",  # a float that overflows to infinity
        "NaN",
        "Infinity",
        "-Infinity",
    ],
)
def test_huge_numbers_and_non_json_constants_are_400(value: str, token: str, attempt_id: int) -> None:
    body = '{"from": ' + value + ', "moves": []}'
    assert_error(post(f"/api/v1/attempts/{attempt_id}/moves", body, token), 400)


@pytest.mark.parametrize("value", [str(2**63), str(10**400), "-1", "true", '"0"', "0.0", "null", "[]", "{}"])
def test_a_from_of_the_wrong_kind_is_a_4xx(value: str, token: str, attempt_id: int) -> None:
    response = post(f"/api/v1/attempts/{attempt_id}/moves", '{"from": ' + value + ', "moves": ["s"]}', token)
    assert response.status_code in (400, 409), response.content
    assert_error(response, response.status_code)


@pytest.mark.parametrize("body", ["[]", '"text"', "42", "null", "true", '[{"from": 0}]'])
def test_a_body_that_is_not_an_object_is_400(body: str, token: str, attempt_id: int) -> None:
    assert_error(post(f"/api/v1/attempts/{attempt_id}/moves", body, token), 400)
    assert_error(post(f"/api/v1/attempts/{attempt_id}/submit", body, token), 400)
    assert_error(post("/api/v1/auth/register", body), 400)
    assert_error(post("/api/v1/leagues", body, token), 400)
    assert_error(post("/api/v1/leagues/join", body, token), 400)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"username": "caf\xe9", "password": "x"}',  # Latin-1
        b"\xff\xfe{\x00}\x00",  # UTF-16 with its BOM
        b'{"username": "\xc3"}',  # truncated UTF-8
    ],
)
def test_a_body_that_is_not_utf8_is_400(raw: bytes) -> None:
    message = assert_error(post("/api/v1/auth/register", raw), 400, "parse_error")
    assert "UTF-8" in message


def test_a_utf8_bom_is_ignored() -> None:
    body = '\ufeff{"username": "bom-user", "password": "a-long-enough-passphrase-42"}'.encode()
    assert post("/api/v1/auth/register", body).status_code == 201


def test_a_declared_charset_other_than_utf8_changes_nothing() -> None:
    body = b'{"username": "charset-user", "password": "a-long-enough-passphrase-42"}'
    response = post("/api/v1/auth/register", body, content_type="application/json; charset=no-such-codec")
    assert response.status_code == 201


@pytest.mark.parametrize("text", ["\\ud800", "\\udfff", "a\\u0000b"])
def test_lone_surrogates_and_nul_are_400(text: str, token: str, attempt_id: int) -> None:
    assert_error(post("/api/v1/auth/register", '{"username": "u' + text + '", "password": "pw-1-long-enough"}'), 400)
    assert_error(post("/api/v1/auth/register", '{"username": "user-x", "password": "p' + text + '"}'), 400)
    assert_error(post("/api/v1/auth/token", '{"username": "user-x", "password": "p' + text + '"}'), 400)
    assert_error(post("/api/v1/leagues", '{"name": "League ' + text + '"}', token), 400)
    assert_error(post("/api/v1/leagues/join", '{"invite_code": "' + text + '"}', token), 400)
    body = '{"from": 0, "moves": ["s' + text + '"]}'
    assert_error(post(f"/api/v1/attempts/{attempt_id}/moves", body, token), 400)
    assert not League.objects.exists()


def test_a_huge_body_is_413(token: str, attempt_id: int) -> None:
    body = '{"from": 0, "moves": [' + ",".join(['"s"'] * 200_000) + "]}"
    assert_error(post(f"/api/v1/attempts/{attempt_id}/moves", body, token), 413, "too_large")
    assert_error(post("/api/v1/auth/register", body), 413, "too_large")


def test_a_body_with_a_wrong_content_type_is_415(token: str) -> None:
    assert_error(post("/api/v1/leagues", "name=x", token, content_type="application/x-www-form-urlencoded"), 415)


# --- Paths and queries ------------------------------------------------------------------------


HUGE = [str(2**63), str(2**64), "9" * 30, "9" * 2000]


@pytest.mark.parametrize("value", HUGE)
def test_huge_offsets_and_limits_on_boards_are_400(value: str, token: str) -> None:
    challenge = make_challenge(seed=8, day=days.today() - dt.timedelta(days=1))
    board = f"/api/v1/leaderboards/{challenge.date}/{challenge.game}"
    for query in (f"offset={value}", f"limit={value}", f"offset={value}&limit=5", f"offset=-{value}"):
        assert_error(get(f"{board}?{query}"), 400)
        assert_error(get(f"{board}?{query}", token), 400)
    league = (
        Client()
        .post(
            "/api/v1/leagues", {"name": "Paging"}, content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}"
        )
        .json()
    )
    for path in (f"leagues/{league['id']}/boards/all-time", f"leagues/{league['id']}/boards/{challenge.date}/klondike"):
        for query in (f"offset={value}", f"limit={value}"):
            assert_error(get(f"/api/v1/{path}?{query}", token), 400)


def test_the_largest_offset_allowed_answers_an_empty_page(token: str) -> None:
    challenge = make_challenge(seed=9, day=days.today() - dt.timedelta(days=1))
    board = f"/api/v1/leaderboards/{challenge.date}/{challenge.game}"
    response = get(f"{board}?offset=1000000000", token)
    assert response.status_code == 200
    assert response.json()["entries"] == []
    assert_error(get(f"{board}?offset=1000000001", token), 400)


@pytest.mark.parametrize("value", HUGE[:3])
def test_huge_ids_in_paths_are_404(value: str, token: str) -> None:
    for path in (f"attempts/{value}", f"submissions/{value}", f"leagues/{value}"):
        assert_error(get(f"/api/v1/{path}", token), 404)
    for path in (f"attempts/{value}/moves", f"attempts/{value}/submit", f"attempts/{value}/hint"):
        assert_error(post(f"/api/v1/{path}", '{"from": 0, "moves": []}', token), 404)


@pytest.mark.parametrize("name", ["a%00b", "%F0%9F", "x" * 5000, "%ED%A0%80"])
def test_odd_usernames_in_paths_are_404(name: str) -> None:
    assert_error(get(f"/api/v1/players/{name}"), 404)


@pytest.mark.parametrize("game", ["%00", "klondike%00", "x" * 5000])
def test_odd_games_and_dates_in_paths_are_400_or_404(game: str, token: str) -> None:
    today = days.today()
    for path in (f"daily/{today}/{game}", f"leaderboards/{today}/{game}", f"daily/{game}/klondike"):
        response = get(f"/api/v1/{path}", token)
        assert response.status_code in (400, 404), (path, response.content[:300])
        assert_error(response, response.status_code)


@pytest.mark.parametrize(
    "path",
    [
        "/players/a%00b",
        "/board/2026-01-01/%00",
        "/play/2026-01-01/klondike%00",
        "/leagues/join/%00",
        "/board/99999-01-01/x",
    ],
)
def test_odd_paths_of_the_pages_are_not_500(path: str) -> None:
    assert Client(raise_request_exception=False).get(path).status_code in (200, 302, 400, 404)
