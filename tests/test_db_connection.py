"""A kept database connection the server closed between two requests: the next request still succeeds.

The health check looks at the idle socket instead of sending ``SELECT 1`` (config/postgres/base.py);
a connection that dies after it passed fails the request's first statement, which is sent again on a
new connection only when repeating it is harmless (core.db). Through the real stack of one process,
on PostgreSQL, with connections kept between requests as in production.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from django.db import close_old_connections, connection, connections, utils
from django.test import Client
from pytest_django import Settings

from config.postgres.base import DatabaseWrapper
from core.db import is_retry_safe, retry_safe
from games import days
from games.models import Attempt
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres(reason="the backend is PostgreSQL's"),
]


@pytest.fixture
def kept(settings: Settings) -> Iterator[None]:
    """Connections kept between requests (the tests' default closes them) and checked before each."""
    # django-stubs lacks BaseDatabaseWrapper.health_check_enabled, which Django sets in __init__ (5.1+)
    was = connection.settings_dict["CONN_MAX_AGE"], connection.health_check_enabled  # type: ignore[attr-defined]
    connection.settings_dict["CONN_MAX_AGE"] = 60
    connection.health_check_enabled = True  # type: ignore[attr-defined]
    connection.close()
    yield
    connection.settings_dict["CONN_MAX_AGE"], connection.health_check_enabled = was  # type: ignore[attr-defined]


def _terminate(pid: int) -> None:
    """The server ends backend ``pid`` (as a restart or an idle timeout would), and it is gone; then what
    Django does between two requests (the test client leaves it out: its requests share the test's
    connection)."""
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as admin:
        assert admin.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)
        for _ in range(500):  # bounded: the backend leaves within milliseconds
            if admin.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", [pid]).fetchone() == (0,):
                close_old_connections()
                return
            admin.execute("SELECT pg_sleep(0.01)")
    raise AssertionError(f"backend {pid} still there")


def _backend_pid() -> int:
    assert connection.connection is not None
    return int(connection.connection.info.backend_pid)


@pytest.fixture
def player(kept: None) -> tuple[Client, int]:
    make_challenge()
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(make_user())}")
    response = client.post(f"/api/v1/daily/{days.today()}/klondike/attempts")
    assert response.status_code == 201
    return client, response.json()["id"]


def _batch(client: Client, attempt: int, start: int) -> Any:
    body = json.dumps({"from": start, "moves": ["s"]})
    return client.post(f"/api/v1/attempts/{attempt}/moves", body, content_type="application/json")


def test_the_check_sees_a_connection_the_server_closed(kept: None) -> None:
    assert isinstance(connections["default"], DatabaseWrapper)
    connection.ensure_connection()
    assert connection.is_usable()
    pid = _backend_pid()
    _terminate(pid)
    assert not connection.is_usable()
    connection.close()


def test_the_check_sends_nothing(kept: None, monkeypatch: pytest.MonkeyPatch) -> None:
    connection.ensure_connection()
    sent: list[str] = []
    assert connection.connection is not None
    monkeypatch.setattr(type(connection.connection), "cursor", lambda *a, **k: sent.append("cursor"))
    assert connection.is_usable()
    assert sent == []


@pytest.mark.parametrize("request_kind", ["batch", "daily", "read"])
def test_the_next_request_succeeds_after_the_server_closed_the_connection(
    player: tuple[Client, int], request_kind: str
) -> None:
    client, attempt = player
    assert _batch(client, attempt, 0).status_code == 200
    pid = _backend_pid()
    _terminate(pid)
    if request_kind == "batch":
        response = _batch(client, attempt, 1)
    elif request_kind == "daily":
        response = client.get("/api/v1/daily")
    else:
        response = client.get(f"/api/v1/attempts/{attempt}")
    assert response.status_code == 200, response.content
    assert _backend_pid() != pid


def test_a_connection_lost_after_the_check_is_retried_once_for_the_batch(
    player: tuple[Client, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check passes (as it would in the instant before the server closes the connection), the batch's
    append fails on the dead connection, and is sent once more: stored once."""
    client, attempt = player
    assert _batch(client, attempt, 0).status_code == 200
    _terminate(_backend_pid())
    monkeypatch.setattr(DatabaseWrapper, "is_usable", lambda self: True)
    response = _batch(client, attempt, 1)
    assert response.status_code == 200, response.content
    assert response.json()["log_length"] == 2
    assert Attempt.objects.get(pk=attempt).moves == ["s", "s"]


def test_a_statement_not_safe_to_repeat_is_not_sent_again(kept: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """An INSERT that failed on a dead connection may have been applied: it fails, and is not repeated."""
    make_user("someone")
    _terminate(_backend_pid())
    monkeypatch.setattr(DatabaseWrapper, "is_usable", lambda self: True)
    connection.close_if_health_check_failed()  # a request's first use of the connection
    with pytest.raises((utils.OperationalError, utils.InterfaceError)), connection.cursor() as cursor:
        cursor.execute("INSERT INTO auth_group (name) VALUES ('lost')")
    connection.close()
    from django.contrib.auth.models import Group

    assert not Group.objects.filter(name="lost").exists()


def test_what_may_be_repeated() -> None:
    assert is_retry_safe("SELECT 1") and is_retry_safe("  select id FROM x")
    assert not is_retry_safe("INSERT INTO x VALUES (1)") and not is_retry_safe("UPDATE x SET a = 1")
    assert not is_retry_safe("SELECTED")
    sql = "UPDATE x SET a = 1 WHERE b = 2 /* test */"
    assert retry_safe(sql) == sql and is_retry_safe(sql)
