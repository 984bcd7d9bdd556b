"""The month calendar of a player's days, through the API (GET /api/v1/me/calendar) and the page (/calendar):
each day won, not won or not played, of one game or every game, linking that day's board or archive."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.test import Client

from games.tests.factories import token_for
from leaderboard.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 3, 20, 12, tzinfo=dt.UTC)


def api(user: Any) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Token {token_for(user)}")


@pytest.fixture
def played() -> Any:
    """Ann won Klondike on the 18th and the 19th, lost Josephine on the 19th, lost Klondike on the 3rd (and an
    assisted win on the 10th: counted, as the profile counts it); Bob won on the 5th (not Ann's)."""
    with time_machine.travel(NOW, tick=False):
        ann, bob = make_user("ann"), make_user("bob")
        c = {d: make_challenge(date=dt.date(2026, 3, d), game="klondike") for d in (3, 5, 10, 18, 19, 20)}
        jo = make_challenge(date=dt.date(2026, 3, 19), game="josephine")
        make_result(challenge=c[18], player=ann)
        make_result(challenge=c[19], player=ann)
        make_result(challenge=jo, player=ann, won=False)
        make_result(challenge=c[3], player=ann, won=False)
        make_result(challenge=c[10], player=ann, assisted=True)
        make_result(challenge=c[5], player=bob)
        make_result(challenge=c[20], player=ann, ranked=False)  # practice: not a day played
        yield ann


def test_the_api_gives_each_day_of_the_month(played: Any) -> None:
    with time_machine.travel(NOW, tick=False):
        body = api(played).get("/api/v1/me/calendar", {"month": "2026-03"}).json()
    days = {d["date"]: d for d in body["days"]}
    assert body["month"] == "2026-03-01" and len(days) == 31 and body["game"] is None
    assert body["previous"] == "2026-02-01" and body["next"] is None  # nothing of the future
    assert body["streak"] == 2
    nineteenth = days["2026-03-19"]
    assert nineteenth["status"] == "won" and nineteenth["won"] == 1 and nineteenth["played"] == 2
    assert [g["game"] for g in days["2026-03-19"]["games"]] == ["josephine", "klondike"]  # the games' order
    assert days["2026-03-03"]["status"] == "lost" and days["2026-03-05"]["status"] == "none"  # Bob's day, not hers
    assert days["2026-03-20"]["status"] == "none" and days["2026-03-21"]["status"] == "future"
    assert days["2026-03-10"]["status"] == "won"
    with time_machine.travel(NOW, tick=False):
        jo = api(played).get("/api/v1/me/calendar", {"month": "2026-03", "game": "josephine"}).json()
    assert {d["date"]: d["status"] for d in jo["days"]}["2026-03-19"] == "lost" and jo["streak"] == 0
    assert sum(d["challenges"] for d in jo["days"]) == 1


@pytest.mark.parametrize(
    "query",
    [
        {"month": "2026-13"},
        {"month": "2026-3"},
        {"month": "march"},
        {"month": "0001-01"},
        {"month": "2026-03-01"},
        {"game": "poker"},
        {"game": "../admin"},
        {"month": "2026-03\x00"},
        {"month": ""},
        {"game": ""},
    ],
)
def test_bad_queries_are_400s(played: Any, query: dict[str, str]) -> None:
    with time_machine.travel(NOW, tick=False):
        response = api(played).get("/api/v1/me/calendar", query)
    assert response.status_code == 400, response.content
    assert "error" in response.json()


def test_a_month_to_come_is_all_future(played: Any) -> None:
    with time_machine.travel(NOW, tick=False):
        body = api(played).get("/api/v1/me/calendar", {"month": "2027-01"}).json()
    assert {d["status"] for d in body["days"]} == {"future"} and body["next"] is None


def test_only_the_caller_s_days_and_only_signed_in(played: Any) -> None:
    with time_machine.travel(NOW, tick=False):
        assert Client().get("/api/v1/me/calendar").status_code in (401, 403)
        assert Client().get("/calendar").status_code == 302
        bob = make_user("carl")
        body = api(bob).get("/api/v1/me/calendar", {"month": "2026-03"}).json()
    assert all(d["played"] == 0 for d in body["days"]) and body["streak"] == 0


def test_the_page_links_each_day_to_its_board_or_archive(played: Any) -> None:
    client = Client()
    client.force_login(played)
    with time_machine.travel(NOW, tick=False):
        page = client.get("/calendar", {"month": "2026-03"}).content.decode()
        klondike = client.get("/calendar", {"month": "2026-03", "game": "klondike"}).content.decode()
        bad = client.get("/calendar", {"month": "nope"})
    assert 'href="/archive#day-2026-03-19"' in page and "1/2 won" in page
    assert 'href="/"' in page  # today: today's games
    assert 'href="/board/2026-03-19/klondike"' in klondike and 'href="/play/2026-03-20/klondike"' in klondike
    assert 'data-date="2026-03-19" data-status="won"' in klondike
    assert 'href="/board/2026-03-05/klondike"' in klondike  # a day she did not play links its board too
    assert "/board/2026-03-21" not in klondike  # no link to the future
    assert bad.status_code == 400
