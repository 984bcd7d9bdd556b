"""API tokens as an attacker sees them: stored as digests only, compared in constant time, and a revoked
token refused at once (the process that revoked it and the shared cache) or within
``auth.TOKEN_LOCAL_SECONDS`` (another process's own copy)."""

from __future__ import annotations

import hmac
import time

import pytest
from django.apps import apps
from django.core.cache import cache
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from games import auth
from games.models import ApiToken
from games.tests.factories import make_user, token_for

pytestmark = pytest.mark.django_db

ME = "/api/v1/leagues"  # any endpoint that needs a logged-in player


def _client(key: str) -> Client:
    return Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {key}")


def _register(name: str) -> str:
    response = Client().post(
        "/api/v1/auth/register",
        {"username": name, "password": "not-a-common-pass-42"},
        content_type="application/json",
    )
    assert response.status_code == 201
    return str(response.json()["token"])


def _every_stored_text() -> str:
    """Every row of every table of the service's apps, as text: what a dump of the database holds."""
    texts: list[str] = []
    with connection.cursor() as cursor:
        for model in apps.get_models(include_auto_created=True):
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(model._meta.db_table)}")
            texts.extend(repr(row) for row in cursor.fetchall())
    return "\n".join(texts)


def test_a_stolen_database_dump_holds_no_key_and_what_it_holds_does_not_authenticate() -> None:
    key = _register("dumped")
    assert _client(key).get(ME).status_code == 200  # the cache holds it now too
    dump = _every_stored_text()
    assert key not in dump and key.upper() not in dump
    stored = ApiToken.objects.get(user__username="dumped")
    assert stored.digest == auth.token_digest(key) and len(stored.digest) == 64
    for stolen in (stored.digest, stored.digest[:40], auth._token_cache_key(stored.digest)):
        assert _client(stolen).get(ME).status_code == 401
    cached = cache.get(auth._token_cache_key(stored.digest))
    assert cached is not None and key not in repr(cached)


def test_the_admin_never_shows_a_key(admin_client: Client) -> None:
    key = _register("shown")
    stored = ApiToken.objects.get(user__username="shown")
    listing = admin_client.get("/admin/games/apitoken/")
    page = admin_client.get(f"/admin/games/apitoken/{stored.pk}/change/")
    assert listing.status_code == 200 and page.status_code == 200 and "shown" in listing.content.decode()
    for response in (listing, page):
        assert key not in response.content.decode()
    assert admin_client.get("/admin/games/apitoken/add/").status_code == 403
    assert admin_client.get("/admin/authtoken/tokenproxy/").status_code == 404  # DRF's plain-key admin: gone


def test_deleting_a_token_in_the_admin_revokes_it_at_once(admin_client: Client) -> None:
    key = _register("revoked-by-staff")
    assert _client(key).get(ME).status_code == 200  # cached in this process and the shared cache
    digest = auth.token_digest(key)
    response = admin_client.post(f"/admin/games/apitoken/{digest}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not ApiToken.objects.filter(digest=digest).exists()
    assert _client(key).get(ME).status_code == 401


def test_digests_are_compared_in_constant_time_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    key = token_for(make_user())
    digest = auth.token_digest(key)
    compared: list[tuple[str, str]] = []
    real = hmac.compare_digest

    def compare(a: str, b: str) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", compare)  # the module games.auth compares with
    assert _client(key).get(ME).status_code == 200  # the database's row
    assert _client(key).get(ME).status_code == 200  # this process's copy
    auth.forget_local_tokens()
    assert _client(key).get(ME).status_code == 200  # the shared cache's entry
    assert compared == [(digest, digest)] * 3


def test_a_cache_entry_under_another_digest_is_refused() -> None:
    """The cache key is a part of the digest; the entry holds the whole digest, compared before it is
    trusted (a planted or colliding entry names nobody)."""
    victim = make_user()
    victim_key = token_for(victim)
    assert _client(victim_key).get(ME).status_code == 200
    entry = cache.get(auth._token_cache_key(auth.token_digest(victim_key)))
    forged_key = "f" * 40
    forged = (*entry[:-1], "0" * 64)
    cache.set(auth._token_cache_key(auth.token_digest(forged_key)), forged, 60)
    assert _client(forged_key).get(ME).status_code == 401


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_revoked_token_fails_at_once_here_and_within_the_local_seconds_in_another_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = _Clock()
    monkeypatch.setattr(time, "monotonic", clock)  # the clock games.auth reads
    key = token_for(make_user())
    client = _client(key)
    assert client.get(ME).status_code == 200
    other_process = dict(auth._local)  # what another worker holds after the same request
    assert client.post("/api/v1/auth/logout").status_code == 204
    assert client.get(ME).status_code == 401  # this process and the shared cache: at once
    auth._local.update(other_process)  # now this process is the other one, with its copy
    clock.now += auth.TOKEN_LOCAL_SECONDS - 0.5
    assert client.get(ME).status_code == 200  # the documented window: that process's copy
    clock.now += 1
    assert client.get(ME).status_code == 401  # past it: the shared cache and the database say no


@pytest.mark.django_db(transaction=True)
def test_the_migration_hashes_every_plain_token_in_place_and_their_clients_keep_working() -> None:
    executor = MigrationExecutor(connection)
    before = [("games", "0013_api_tokens_hashed"), ("authtoken", "0004_alter_tokenproxy_options")]
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    user = old_apps.get_model("auth", "User").objects.create(username="old-client", password="!")
    plain = old_apps.get_model("authtoken", "Token")
    old_key = "0123456789abcdef0123456789abcdef01234567"
    plain.objects.create(key=old_key, user_id=user.pk)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    from rest_framework.authtoken.models import Token

    assert not Token.objects.exists()  # no key left in plain text
    assert ApiToken.objects.get(user_id=user.pk).digest == auth.token_digest(old_key)
    auth.forget_local_tokens()
    assert _client(old_key).get(ME).status_code == 200


def test_a_token_an_old_process_stored_in_plain_text_is_moved_by_the_command() -> None:
    """A login on a process of the previous release during an upgrade stores its key in plain text: the new
    processes refuse it until hash_plain_tokens has run, then it works and no plain key is left."""
    from io import StringIO

    from django.core.management import call_command
    from rest_framework.authtoken.models import Token

    user = make_user()
    key = Token.objects.create(user=user).key  # what the old release's login did
    assert _client(key).get(ME).status_code == 401
    out = StringIO()
    call_command("hash_plain_tokens", stdout=out)
    assert out.getvalue().startswith("1 plain token(s)") and not Token.objects.exists()
    assert _client(key).get(ME).status_code == 200
