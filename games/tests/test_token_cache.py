"""Token authentication from the cache: as strict as the database's, and never stale after a change
that Django signals (token deleted, user saved or deleted)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token

from games import auth
from games.tests.factories import make_user, token_for

pytestmark = pytest.mark.django_db

ME = "/api/v1/leagues"  # any endpoint that needs a logged-in player


def _client(token: str) -> Client:
    return Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token}")


def _token_queries(capture: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in capture.captured_queries if "authtoken_token" in q["sql"]]


def test_the_second_request_reads_the_token_from_the_cache_not_the_database() -> None:
    user = make_user()
    client = _client(token_for(user))
    assert client.get(ME).status_code == 200
    with CaptureQueriesContext(connection) as capture:
        response = client.get(ME)
    assert response.status_code == 200
    assert _token_queries(capture) == []


def test_the_cache_holds_a_digest_of_the_token_never_the_token() -> None:
    key = token_for(make_user())
    assert _client(key).get(ME).status_code == 200
    cache_key = auth._token_cache_key(key)
    assert key not in cache_key and cache.get(cache_key) is not None


def test_a_deleted_token_is_refused_at_once() -> None:
    key = token_for(make_user())
    client = _client(key)
    assert client.get(ME).status_code == 200
    Token.objects.filter(key=key).get().delete()
    assert client.get(ME).status_code == 401


def test_a_deactivated_user_is_refused_at_once() -> None:
    user = make_user()
    client = _client(token_for(user))
    assert client.get(ME).status_code == 200
    user.is_active = False
    user.save()
    assert client.get(ME).status_code == 401


def test_a_deleted_user_is_refused_at_once() -> None:
    user = make_user()
    client = _client(token_for(user))
    assert client.get(ME).status_code == 200
    user.delete()
    assert client.get(ME).status_code == 401


def test_a_renamed_user_is_seen_at_once() -> None:
    user = make_user()
    client = _client(token_for(user))
    assert client.get(ME).status_code == 200
    user.username = "renamed-player"
    user.save()
    key = Token.objects.get(user=user).key
    assert auth.CachedTokenAuthentication().authenticate_credentials(key)[0].username == "renamed-player"


def test_fields_not_cached_are_read_from_the_database() -> None:
    user = make_user()
    user.email, user.is_staff = "p@example.org", True
    user.save()
    key = token_for(user)
    assert _client(key).get(ME).status_code == 200
    cached_user, _token = auth.CachedTokenAuthentication().authenticate_credentials(key)
    assert (cached_user.pk, cached_user.email, cached_user.is_staff) == (user.pk, "p@example.org", True)


@pytest.mark.parametrize("key", ["", "x" * 40, "a" * 39, "not a token at all"])
def test_unknown_tokens_are_refused_and_not_cached(key: str) -> None:
    assert _client(key).get(ME).status_code == 401
    assert cache.get(auth._token_cache_key(key)) is None


def test_an_unreadable_cache_falls_back_to_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    user = make_user()
    client = _client(token_for(user))

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "get", broken)
    monkeypatch.setattr(cache, "set", broken)
    assert client.get(ME).status_code == 200
    key = Token.objects.get(user=user).key
    assert auth.CachedTokenAuthentication().authenticate_credentials(key)[0].username == user.username


def test_a_save_of_fields_the_cache_does_not_hold_leaves_it_and_costs_no_query() -> None:
    user = make_user()
    client = _client(token_for(user))
    assert client.get(ME).status_code == 200
    with CaptureQueriesContext(connection) as capture:
        user.save(update_fields=["last_login"])  # what a login does
    assert _token_queries(capture) == []
    user.is_active = False
    user.save(update_fields=["is_active"])  # a field the cache holds: dropped at once
    assert client.get(ME).status_code == 401
