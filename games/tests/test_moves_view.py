"""``POST /attempts/{id}/moves`` served without DRF (games.apis.attempt_moves) answers exactly as the DRF
view (AttemptMovesApi) does: the same status, body and headers, for every kind of request.

Two players play the same deal at the same frozen instant, each sending the same requests: one through
the service's route (the plain path where it applies), the other through the DRF view alone (a route of
this module). Each pair of answers must be equal, their attempt ids aside.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import include, path
from django.utils import timezone
from pytest_django import Settings
from rest_framework.throttling import BaseThrottle

from games import apis, days
from games.models import ApiToken
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = [pytest.mark.django_db]

urlpatterns = [
    path("api/drf/attempts/<int:attempt_id>/moves", apis.AttemptMovesApi.as_view()),
    path("", include("config.urls")),
]

HEADERS = ("Content-Type", "Allow", "WWW-Authenticate", "Retry-After", "Vary", "Cache-Control")
NOW = dt.datetime(2026, 12, 7, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def pair(settings: Settings) -> Iterator[Any]:
    """Two clients on the same deal, each with an open attempt started at the same instant."""
    settings.ROOT_URLCONF = __name__
    with time_machine.travel(NOW, tick=False):
        make_challenge()
        players = []
        for _ in range(2):
            user = make_user()
            client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(user)}")
            response = client.post(f"/api/v1/daily/{days.today()}/klondike/attempts")
            assert response.status_code == 201
            players.append((client, response.json()["id"], user))
        yield players


def _answer(response: Any, attempt: int) -> tuple[int, Any, dict[str, str]]:
    text = response.content.decode().replace(f"attempt {attempt}", "attempt ID")
    text = text.replace(f'"id":{attempt},', "").replace(f'"id": {attempt},', "")
    text = text.replace(f'"attempt":{attempt}', '"attempt":"ID"').replace(f"/attempts/{attempt}/", "/attempts/ID/")
    return response.status_code, text, {h: response.headers[h] for h in HEADERS if h in response.headers}


def _both(pair: Any, send: Any, *, plain: bool = True) -> Any:
    """``send(client, url, attempt)`` through the service's route and through the DRF view: equal answers.
    ``plain``: the service's route must answer without the DRF view's handler (else it must use it)."""
    (ours, ours_id, _), (drf, drf_id, _) = pair
    calls: list[int] = []
    real = apis.AttemptMovesApi.dispatch

    def counted(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(self, *args, **kwargs)

    with time_machine.travel(NOW + dt.timedelta(seconds=5), tick=False), pytest.MonkeyPatch.context() as patch:
        patch.setattr(apis.AttemptMovesApi, "dispatch", counted)
        first = _answer(send(ours, f"/api/v1/attempts/{ours_id}/moves", ours_id), ours_id)
        assert calls == ([] if plain else [1])
        second = _answer(send(drf, f"/api/drf/attempts/{drf_id}/moves", drf_id), drf_id)
    assert first == second
    return first


def _post(body: Any, **extra: Any) -> Any:
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return lambda client, url, _id: client.post(url, data, content_type="application/json", **extra)


def test_batches_resends_and_conflicts_answer_alike(pair: Any) -> None:
    status, body, headers = _both(pair, _post({"from": 0, "moves": ["s"]}))
    assert status == 200 and json.loads(body)["log_length"] == 1
    private = {"Cache-Control": "private, no-store"}
    assert headers == {"Content-Type": "application/json", "Allow": "POST, OPTIONS", **private}
    assert _both(pair, _post({"from": 1, "moves": ["s", "s", "s"]}))[0] == 200
    assert _both(pair, _post({"from": 1, "moves": ["s"]}))[0] == 200  # a resend: nothing new stored
    assert _both(pair, _post({"from": 9, "moves": ["s"]}))[0] == 409  # past the stored log
    assert _both(pair, _post({"from": 0, "moves": ["w-f"]}))[0] == 409  # disagrees with the stored log
    assert _both(pair, _post({"from": 4, "moves": []}))[0] == 200


def test_an_illegal_move_answers_alike(pair: Any) -> None:
    status, body, _ = _both(pair, _post({"from": 0, "moves": ["s", "t1-f"]}))
    assert status == 400 and json.loads(body)["error"]["code"] == "illegal_move"
    assert _both(pair, _post({"from": 1, "moves": ["nonsense"]}))[0] == 400


def test_someone_elses_or_no_attempt_answers_alike(pair: Any) -> None:
    (ours, _ours_id, _), (drf, drf_id, _) = pair
    other = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(make_user())}")
    body = json.dumps({"from": 0, "moves": ["s"]})
    with time_machine.travel(NOW, tick=False):
        a = other.post(f"/api/v1/attempts/{drf_id}/moves", body, content_type="application/json")
        b = other.post(f"/api/drf/attempts/{drf_id}/moves", body, content_type="application/json")
        assert (a.status_code, a.content) == (b.status_code, b.content) and a.status_code == 404
        a = ours.post("/api/v1/attempts/999999/moves", body, content_type="application/json")
        b = drf.post("/api/drf/attempts/999999/moves", body, content_type="application/json")
        assert (a.status_code, a.content) == (b.status_code, b.content) and a.status_code == 404


def test_bad_tokens_answer_alike(pair: Any) -> None:
    send = _post({"from": 0, "moves": ["s"]})
    bad = lambda client, url, _id: client.post(  # noqa: E731
        url, json.dumps({"from": 0, "moves": ["s"]}), content_type="application/json", HTTP_AUTHORIZATION="Token nope"
    )
    status, _body, headers = _both(pair, bad)
    assert status == 401 and headers["WWW-Authenticate"] == "Token"
    for _client, _id, user in pair:  # expired tokens: refused (and deleted) alike
        ApiToken.objects.filter(user=user).update(created=timezone.now() - dt.timedelta(days=400))
    from games.auth import forget_local_tokens

    forget_local_tokens()
    from django.core.cache import cache

    cache.clear()
    status, body, headers = _both(pair, send)
    assert status == 401 and "expired" in body and headers["WWW-Authenticate"] == "Token"


def test_an_inactive_player_answers_alike(pair: Any) -> None:
    for _client, _id, user in pair:
        get_user_model().objects.filter(pk=user.pk).update(is_active=False)
    from django.core.cache import cache

    from games.auth import forget_local_tokens

    forget_local_tokens()
    cache.clear()
    assert _both(pair, _post({"from": 0, "moves": ["s"]}))[0] == 401


class Refuse(BaseThrottle):
    def allow_request(self, request: Any, view: Any) -> bool:
        return False

    def wait(self) -> float:
        return 7.0


def test_a_throttled_batch_answers_alike(pair: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(apis.AttemptMovesApi, "throttle_classes", [Refuse])
    status, _body, headers = _both(pair, _post({"from": 0, "moves": ["s"]}))
    assert status == 429 and headers["Retry-After"] == "7"


@pytest.mark.parametrize(
    ("body", "extra"),
    [
        ({"from": 0, "moves": ["s"], "more": 1}, {}),  # not the common body: the serializer decides
        ({"from": "0", "moves": ["s"]}, {}),
        ({"from": 0, "moves": "s"}, {}),
        ([], {}),
        ("{not json", {}),
        ('{"from": 0, "moves": [NaN]}', {}),
        ({"from": 0, "moves": ["s"]}, {"HTTP_ACCEPT": "text/html"}),
        ({"from": 0, "moves": ["s"]}, {"HTTP_ACCEPT": "application/json; indent=2"}),
        ({"from": 0, "moves": ["s"]}, {"HTTP_AUTHORIZATION": "Token"}),
        ({"from": 0, "moves": ["s"]}, {"HTTP_AUTHORIZATION": "Token a b"}),
        ({"from": 0, "moves": ["s"]}, {"HTTP_AUTHORIZATION": "Bearer x"}),
        ({"from": 0, "moves": ["s"]}, {"HTTP_AUTHORIZATION": ""}),
    ],
)
def test_every_other_request_is_the_drf_views(pair: Any, body: Any, extra: dict[str, str]) -> None:
    _both(pair, _post(body, **extra), plain=False)


def test_other_methods_and_content_types_are_the_drf_views(pair: Any) -> None:
    _both(pair, lambda client, url, _id: client.get(url), plain=False)
    _both(pair, lambda client, url, _id: client.options(url), plain=False)
    form = lambda client, url, _id: client.post(url, {"from": 0, "moves": "s"})  # noqa: E731
    _both(pair, form, plain=False)


def test_the_schema_still_describes_the_operation(client: Client) -> None:
    schema = client.get("/api/schema/?format=json", HTTP_HOST="localhost").json()
    operation = schema["paths"]["/api/v1/attempts/{attempt_id}/moves"]["post"]
    assert operation["operationId"] == "attempt_moves"
    assert "200" in operation["responses"] and "409" in operation["responses"]
