"""An anonymous GET of a board page is answered before DRF's request cycle (``leaderboard.apis.anonymous_board``):
it must give what the full view gives, byte for byte and header for header, refuse what the view refuses,
and be throttled as the view is (once per request, not twice)."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
import time_machine
from django.test import Client
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from leaderboard import apis
from leaderboard.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 20)
PATH = f"/api/v1/leaderboards/{DAY}/klondike"
# An Accept that DRF's negotiation serves as JSON, but that the fast path leaves to the view.
FULL_VIEW: dict[str, Any] = {"HTTP_ACCEPT": "application/json; q=0.9"}  # **extra for the test client


@pytest.fixture
def board() -> Iterator[None]:
    with time_machine.travel(dt.datetime.combine(DAY, dt.time(18), tzinfo=dt.UTC), tick=False):
        challenge = make_challenge(date=DAY)
        for i in range(12):
            make_result(challenge=challenge, player=make_user(f"p{i}-Zoë"), score=500 + i % 3, assisted=i % 4 == 0)
        yield


@pytest.fixture
def fast_calls(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each request was answered by the fast path."""
    calls: list[bool] = []
    real = apis.anonymous_board

    def spy(*args: Any, **kwargs: Any) -> Any:
        answer = real(*args, **kwargs)
        calls.append(answer is not None)
        return answer

    monkeypatch.setattr(apis, "anonymous_board", spy)
    return calls


QUERIES = ["", "?limit=5", "?offset=3&limit=4", "?board=all", "?board=all&offset=2", "?offset=500", "?limit=200"]


@pytest.mark.parametrize("query", QUERIES)
def test_the_fast_answer_is_the_full_views(backend: str, board: None, fast_calls: list[bool], query: str) -> None:
    fast = Client().get(PATH + query)
    full = Client().get(PATH + query, **FULL_VIEW)
    assert fast_calls == [True, False]
    assert fast.status_code == full.status_code == 200
    assert fast.content == full.content
    own = {"X-Request-ID"}  # each request's own
    assert {k: v for k, v in fast.headers.items() if k not in own} == {
        k: v for k, v in full.headers.items() if k not in own
    }


@pytest.mark.parametrize(
    ("path", "extra", "status"),
    [
        (PATH + "?limit=0", {}, 400),
        (PATH + "?limit=201", {}, 400),
        (PATH + "?limit=", {}, 400),
        (PATH + "?offset=-1", {}, 400),
        (PATH + "?board=best", {}, 400),
        (PATH + "?around=me", {}, 401),
        (PATH + "?format=html", {}, 404),
        (PATH, {"HTTP_ACCEPT": "text/html"}, 406),
        (PATH, {"HTTP_AUTHORIZATION": "Token nonsense"}, 401),
        (f"/api/v1/leaderboards/{DAY}/chess", {}, 400),
        ("/api/v1/leaderboards/2026-13-01/klondike", {}, 400),
        (f"/api/v1/leaderboards/{DAY + dt.timedelta(days=1)}/klondike", {}, 404),
        (f"/api/v1/leaderboards/{DAY}/klondike-3", {}, 404),
    ],
)
def test_what_the_view_refuses_is_left_to_the_view(
    board: None, fast_calls: list[bool], path: str, extra: dict[str, Any], status: int
) -> None:
    response = Client().get(path, **extra)
    assert response.status_code == status, response.content[:200]
    assert fast_calls == [False]
    assert response.json()["error"]["code"]


def test_a_logged_in_caller_gets_the_full_view(board: None, fast_calls: list[bool]) -> None:
    client = Client()
    client.force_login(make_user("viewer"))
    response = client.get(PATH)
    assert response.status_code == 200 and response.json()["me"] == {"rank": None, "entry": None}
    assert fast_calls == [False]


@pytest.mark.throttled
@pytest.mark.parametrize("headers", [{}, FULL_VIEW], ids=["fast", "full view"])
def test_the_board_is_throttled_once_per_request(board: None, headers: dict[str, Any]) -> None:
    from django.core.cache import cache
    from rest_framework.throttling import SimpleRateThrottle

    address = "192.0.2.77"
    cache.clear()
    rates = dict(SimpleRateThrottle.THROTTLE_RATES)
    SimpleRateThrottle.THROTTLE_RATES.update(anon="3/min", user="5/min")
    try:
        replies = [Client().get(PATH, REMOTE_ADDR=address, **headers) for _ in range(5)]
        assert [r.status_code for r in replies] == [200, 200, 200, 429, 429]
        assert replies[3].json()["error"]["code"] == "throttled" and int(replies[3]["Retry-After"]) > 0
        assert Client().get(PATH, REMOTE_ADDR="192.0.2.78", **headers).status_code == 200  # another address
    finally:
        SimpleRateThrottle.THROTTLE_RATES.clear()
        SimpleRateThrottle.THROTTLE_RATES.update(rates)
        cache.clear()


def test_a_process_holds_the_top_page_for_the_seconds_set(
    board: None, settings: Settings, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    """The anonymous top page is read once per process and ``LEADERBOARD_PAGE_HOLD_SECONDS``: a new result
    shows once they have passed; a page past the top and a player's page are read every time."""

    settings.LEADERBOARD_PAGE_HOLD_SECONDS = 30
    viewer = make_user("viewer")
    logged_in = Client()
    logged_in.force_login(viewer)
    top = Client().get(PATH).json()
    deep = Client().get(PATH + "?offset=1").json()
    from games.models import Challenge
    from leaderboard.services import leaderboard_record_result

    new = make_result(challenge=Challenge.objects.get(date=DAY, game="klondike"), player=viewer, score=9000)
    with django_capture_on_commit_callbacks(execute=True):
        leaderboard_record_result(result_id=new.pk)
    assert Client().get(PATH).json() == top  # held
    assert Client().get(PATH + "?offset=1").json()["total"] == deep["total"] + 1
    assert logged_in.get(PATH).json()["entries"][0]["player"] == "viewer"
    later = time.monotonic() + 31
    with mock.patch.object(time, "monotonic", return_value=later):  # the clock core.held reads
        assert Client().get(PATH).json()["entries"][0]["player"] == "viewer"
