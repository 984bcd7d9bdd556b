"""Token authentication from the cache: as strict as the database's, and never stale after a change
that Django signals (token deleted, user saved or deleted)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from games import auth
from games.models import ApiToken
from games.tests.factories import make_user, token_for

pytestmark = pytest.mark.django_db

ME = "/api/v1/leagues"  # any endpoint that needs a logged-in player


def _client(token: str) -> Client:
    return Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token}")


def _token_queries(capture: CaptureQueriesContext) -> list[str]:
    return [q["sql"] for q in capture.captured_queries if "games_apitoken" in q["sql"]]


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
    cache_key = auth._token_cache_key(auth.token_digest(key))
    assert key not in cache_key and cache.get(cache_key) is not None
    assert key not in repr(cache.get(cache_key))


def test_a_deleted_token_is_refused_at_once() -> None:
    key = token_for(make_user())
    client = _client(key)
    assert client.get(ME).status_code == 200
    ApiToken.objects.filter(digest=auth.token_digest(key)).get().delete()
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
    key = token_for(user)
    client = _client(key)
    assert client.get(ME).status_code == 200
    user.username = "renamed-player"
    user.save()
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
    assert cache.get(auth._token_cache_key(auth.token_digest(key))) is None


def test_an_unreadable_cache_falls_back_to_the_database(monkeypatch: pytest.MonkeyPatch) -> None:
    user = make_user()
    key = token_for(user)
    client = _client(key)

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    monkeypatch.setattr(cache, "get", broken)
    monkeypatch.setattr(cache, "set", broken)
    assert client.get(ME).status_code == 200
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


# --- Tokens expire, and are revoked on a password change and on logout --------------------------------


def test_a_token_older_than_its_days_is_refused_and_a_login_gives_a_new_one(settings: Settings) -> None:
    import datetime as dt

    import time_machine

    settings.API_TOKEN_DAYS = 30
    user = make_user()
    key = token_for(user)
    client = _client(key)
    assert client.get(ME).status_code == 200  # now cached
    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(days=29)):
        assert client.get(ME).status_code == 200
    with time_machine.travel(dt.datetime.now(dt.UTC) + dt.timedelta(days=31)):
        refused = client.get(ME)
        assert refused.status_code == 401 and "expired" in refused.json()["error"]["message"]
        digest = auth.token_digest(key)
        assert not ApiToken.objects.filter(digest=digest).exists() and cache.get(auth._token_cache_key(digest)) is None
        assert client.get(ME).status_code == 401  # from the database now: no such token
        login = Client().post(
            "/api/v1/auth/token",
            {"username": user.username, "password": "not-a-common-pass-42"},
            content_type="application/json",
        )
        assert login.status_code == 200 and login.json()["token"] != key
        assert _client(login.json()["token"]).get(ME).status_code == 200


def _login(user: Any) -> str:
    login = Client().post(
        "/api/v1/auth/token",
        {"username": user.username, "password": "not-a-common-pass-42"},
        content_type="application/json",
    )
    assert login.status_code == 200
    return str(login.json()["token"])


def test_each_login_gives_a_new_token_and_the_earlier_ones_still_work() -> None:
    user = make_user()
    key = token_for(user)
    again = _login(user)
    assert again != key and len(again) == 40 and int(again, 16) >= 0  # the key format clients know
    assert _client(key).get(ME).status_code == 200 and _client(again).get(ME).status_code == 200


def test_a_player_keeps_at_most_so_many_tokens_the_oldest_going_first() -> None:
    import datetime as dt

    import time_machine

    user = make_user()
    start = dt.datetime.now(dt.UTC)
    keys = []
    for i in range(auth.TOKENS_PER_USER + 2):
        with time_machine.travel(start + dt.timedelta(minutes=i), tick=False):
            keys.append(_login(user))
    assert ApiToken.objects.filter(user=user).count() == auth.TOKENS_PER_USER
    assert [_client(k).get(ME).status_code for k in keys[:3]] == [401, 401, 200]
    assert _client(keys[-1]).get(ME).status_code == 200


def test_a_new_password_revokes_every_token_at_once() -> None:
    user = make_user()
    client = _client(token_for(user))
    assert client.get(ME).status_code == 200  # cached
    user.set_password("another long passphrase 7")
    user.save()
    assert client.get(ME).status_code == 401 and not ApiToken.objects.filter(user=user).exists()
    other = make_user()
    other_client = _client(token_for(other))
    other.email = "x@example.com"
    other.save()  # a save that changes no password keeps the tokens
    assert other_client.get(ME).status_code == 200


def test_logout_revokes_the_token_it_is_sent_with() -> None:
    user = make_user()
    key = token_for(user)
    client = _client(key)
    assert client.get(ME).status_code == 200
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert client.get(ME).status_code == 401 and not ApiToken.objects.filter(digest=auth.token_digest(key)).exists()
    assert client.post("/api/v1/auth/logout").status_code == 401
    assert Client().post("/api/v1/auth/logout").status_code == 401  # nobody to log out


def test_the_html_password_change_revokes_the_api_tokens() -> None:
    from django.contrib.auth.forms import SetPasswordForm

    user = make_user()
    client = _client(token_for(user))
    new = "yet another passphrase 9"
    form = SetPasswordForm(user, {"new_password1": new, "new_password2": new})
    assert form.is_valid()
    form.save()  # what Django's password change and reset views do
    assert client.get(ME).status_code == 401
