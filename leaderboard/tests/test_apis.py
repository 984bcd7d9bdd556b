"""GET /api/v1/leaderboards/{date}/{game} and GET /api/v1/players/{username}."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from games import days as dates
from games.tests.factories import token_for
from leaderboard.tests.factories import ENTRY_KEYS, make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) >= {"message", "code"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    error: dict[str, Any] = body["error"]
    return error


@pytest.fixture
def today() -> dt.date:
    return dates.today()


@pytest.fixture
def board(today: dt.date) -> dict[str, Any]:
    """Today's klondike board: 12 players, the 3rd one assisted."""
    challenge = make_challenge(date=today)
    players = [make_user(f"p{i:02d}") for i in range(12)]
    for i, player in enumerate(players):
        make_result(challenge=challenge, player=player, score=1000 - 10 * i, assisted=i == 2, play_time_ms=61_500)
    return {"challenge": challenge, "players": players, "url": f"/api/v1/leaderboards/{today.isoformat()}/klondike"}


def test_board_page(board: dict[str, Any], today: dt.date, backend: str) -> None:
    response = Client().get(board["url"], {"limit": "5", "offset": "1", "board": "all"})
    assert response.status_code == 200
    body = response.json()
    assert "me" not in body
    assert (body["date"], body["game"], body["total"], body["offset"], body["limit"]) == (
        today.isoformat(),
        "klondike",
        12,
        1,
        5,
    )
    assert [e["rank"] for e in body["entries"]] == [2, 3, 4, 5, 6]
    assert [e["player"] for e in body["entries"]] == ["p01", "p02", "p03", "p04", "p05"]
    entry = body["entries"][1]
    assert set(entry) == ENTRY_KEYS
    assert entry["attempt"] is None and entry["review"] is None  # today's: its game is nobody else's yet
    assert (entry["won"], entry["score"], entry["play_time_ms"], entry["time"], entry["assisted"]) == (
        True,
        980,
        61500,
        61.5,
        True,
    )
    assert dt.datetime.fromisoformat(entry["finished_at"].replace("Z", "+00:00"))


def test_defaults_and_limits(board: dict[str, Any]) -> None:
    body = Client().get(board["url"]).json()
    assert (body["offset"], body["limit"], len(body["entries"]), body["board"]) == (0, 50, 11, "day")
    assert Client().get(board["url"], {"limit": 200}).status_code == 200
    error = assert_error(Client().get(board["url"], {"limit": 201}), 400, "invalid")
    assert "limit" in error["message"] and "200" in error["message"]
    assert_error(Client().get(board["url"], {"limit": 0}), 400, "invalid")
    assert_error(Client().get(board["url"], {"offset": -1}), 400, "invalid")
    assert_error(Client().get(board["url"], {"limit": "many"}), 400, "invalid")
    assert_error(Client().get(board["url"], {"around": "you"}), 400, "invalid")
    for empty in ("offset", "limit", "board"):  # empty is not "the default": a 400 that says so
        error = assert_error(Client().get(f"{board['url']}?{empty}="), 400, "invalid")
        assert empty in error["message"] and "empty" in error["message"]
    for bad in ("clean", "ALL", "all,day", "1", "dayx"):
        error = assert_error(Client().get(board["url"], {"board": bad}), 400, "invalid")
        assert "board" in error["message"]


def test_the_days_board_ranks_only_unassisted_results(board: dict[str, Any]) -> None:
    for query in ({}, {"board": "day"}):
        body = Client().get(board["url"], query).json()
        assert body["board"] == "day" and body["total"] == 11
        assert "p02" not in [e["player"] for e in body["entries"]]
        assert {e["assisted"] for e in body["entries"]} == {False}
        assert [e["rank"] for e in body["entries"]] == list(range(1, 12))
    body = Client().get(board["url"], {"board": "all"}).json()
    assert body["board"] == "all" and body["total"] == 12
    assert [(e["player"], e["assisted"]) for e in body["entries"][:4]] == [
        ("p00", False),
        ("p01", False),
        ("p02", True),
        ("p03", False),
    ]


@pytest.mark.parametrize(
    ("date", "game", "code", "words"),
    [
        ("2026-13-01", "klondike", "invalid_date", "YYYY-MM-DD"),
        ("2026-02-30", "klondike", "invalid_date", "YYYY-MM-DD"),
        ("20261130", "klondike", "invalid_date", "YYYY-MM-DD"),
        ("yesterday", "klondike", "invalid_date", "YYYY-MM-DD"),
        ("2026-11-30", "chess", "unknown_game", "klondike"),
    ],
)
def test_bad_paths_are_400(date: str, game: str, code: str, words: str) -> None:
    error = assert_error(Client().get(f"/api/v1/leaderboards/{date}/{game}"), 400, code)
    assert words in error["message"]


def test_missing_boards_are_404(today: dt.date) -> None:
    tomorrow = today + dt.timedelta(days=1)
    make_challenge(date=tomorrow)  # prepared in advance, but not shown before its day
    error = assert_error(Client().get(f"/api/v1/leaderboards/{tomorrow}/klondike"), 404, "not_found")
    assert "has not come" in error["message"]
    error = assert_error(Client().get(f"/api/v1/leaderboards/{today}/lucas"), 404, "not_found")
    assert "lucas" in error["message"]
    make_challenge(date=today, game="maria", published=False)
    assert_error(Client().get(f"/api/v1/leaderboards/{today}/maria"), 404, "not_found")
    make_challenge(date=today, game="limited", status="verifying", seed=None)
    assert_error(Client().get(f"/api/v1/leaderboards/{today}/limited"), 404, "not_found")


def test_an_empty_board(today: dt.date) -> None:
    make_challenge(date=today)
    body = Client().get(f"/api/v1/leaderboards/{today}/klondike").json()
    assert (body["total"], body["entries"]) == (0, [])


def test_around_me_needs_a_login(board: dict[str, Any]) -> None:
    error = assert_error(Client().get(board["url"], {"around": "me"}), 401, "not_authenticated")
    assert "around=me" in error["message"]


def test_around_me(board: dict[str, Any], backend: str) -> None:
    client = Client()
    client.force_login(board["players"][8])
    body = client.get(board["url"], {"around": "me", "board": "all"}).json()
    assert [e["rank"] for e in body["entries"]] == [4, 5, 6, 7, 8, 9, 10, 11, 12]
    assert body["me"]["rank"] == 9
    assert body["me"]["entry"]["player"] == "p08"
    assert (body["total"], body["offset"], body["limit"]) == (12, 3, 9)

    body = client.get(board["url"], {"around": "me"}).json()
    assert body["me"]["rank"] == 8 and body["entries"][0]["rank"] == 3


def test_around_me_without_a_result(board: dict[str, Any], backend: str) -> None:
    token = token_for(make_user("spectator"))
    body = Client().get(board["url"], {"around": "me"}, HTTP_AUTHORIZATION=f"Token {token}").json()
    assert body["entries"] == []
    assert body["me"] == {"rank": None, "entry": None}
    assert body["total"] == 11  # the day's board: the assisted result is on the board of all results only


def test_me_comes_with_a_page_when_logged_in(board: dict[str, Any]) -> None:
    client = Client()
    client.force_login(board["players"][2])  # the assisted one
    body = client.get(board["url"], {"limit": "1", "board": "all"}).json()
    assert [e["player"] for e in body["entries"]] == ["p00"]
    assert body["me"]["rank"] == 3 and body["me"]["entry"]["assisted"] is True
    body = client.get(board["url"], {"limit": 1}).json()
    assert body["me"] == {"rank": None, "entry": None}


def test_player_profile(board: dict[str, Any], today: dt.date) -> None:
    player = board["players"][3]
    make_result(challenge=make_challenge(date=today - dt.timedelta(days=1)), player=player, won=False)
    response = Client().get("/api/v1/players/p03")
    assert response.status_code == 200
    body = response.json()
    assert {k: body[k] for k in ("username", "played", "won", "win_rate", "current_streak", "best_streak")} == {
        "username": "p03",
        "played": 2,
        "won": 1,
        "win_rate": 0.5,
        "current_streak": 1,
        "best_streak": 1,
    }
    assert [(r["date"], r["game"], r["won"], r["rank"]) for r in body["recent"]] == [
        (today.isoformat(), "klondike", True, 3),  # p02 above is assisted: not on the day's board
        ((today - dt.timedelta(days=1)).isoformat(), "klondike", False, 1),
    ]
    assert {r["board"] for r in body["recent"]} == {"day"}
    helped = Client().get("/api/v1/players/p02").json()["recent"][0]
    assert (helped["assisted"], helped["rank"], helped["board"]) == (True, 3, "all")
    assert set(body["recent"][0]) == {
        "date",
        "game",
        "won",
        "score",
        "moves",
        "play_time_ms",
        "time",
        "assisted",
        "board",
        "finished_at",
        "rank",
        "attempt",
        "replay",
        "review",
    }


def test_unknown_player_is_404() -> None:
    error = assert_error(Client().get("/api/v1/players/nobody"), 404, "not_found")
    assert "nobody" in error["message"]


def test_a_player_without_results() -> None:
    make_user("newcomer")
    body = Client().get("/api/v1/players/newcomer").json()
    assert (body["played"], body["won"], body["win_rate"], body["recent"]) == (0, 0, 0.0, [])


def test_schema_documents_the_endpoints() -> None:
    schema = Client().get("/api/schema/", {"format": "json"}).json()
    board = schema["paths"]["/api/v1/leaderboards/{date}/{game}"]["get"]
    assert {p["name"] for p in board["parameters"]} >= {"date", "game", "limit", "offset", "around", "board"}
    assert "/api/v1/players/{username}" in schema["paths"]
    assert {"Leaderboard", "LeaderboardEntry", "PlayerProfile"} <= set(schema["components"]["schemas"])


def test_the_direct_entry_shape_is_the_serializers() -> None:
    """The board builds its entries without DRF's field machinery; they must be EntrySerializer's."""
    import datetime as _dt

    from leaderboard.selectors.boards import LeaderboardEntry
    from leaderboard.serializers import EntrySerializer, entry_data

    for finished in (
        _dt.datetime(2026, 11, 30, 23, 59, 59, 123456, tzinfo=_dt.UTC),
        _dt.datetime(2026, 12, 1, 0, 0, tzinfo=_dt.UTC),
    ):
        entry = LeaderboardEntry(
            rank=3,
            result_id=9,
            player_id=4,
            player="ada",
            won=True,
            score=712,
            moves=144,
            play_time_ms=67_410,
            finished_at=finished,
            assisted=False,
        )
        assert entry_data(entry) == dict(EntrySerializer(entry).data)
