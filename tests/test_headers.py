"""config.headers: no cache keeps a player's API answers; every HTML page carries a Content-Security-Policy."""

from __future__ import annotations

import base64
import hashlib
import re

import pytest
from django.test import Client
from pytest_django import Settings

from config.headers import CONTENT_SECURITY_POLICY
from games import days
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def token() -> str:
    return token_for(make_user())


def test_authenticated_api_answers_are_private_and_not_stored(token: str) -> None:
    make_challenge(game="klondike")
    client = Client(HTTP_AUTHORIZATION=f"Token {token}")
    for answer in (
        client.get("/api/v1/daily"),
        client.get("/api/v1/leagues"),
        client.post(f"/api/v1/daily/{days.today()}/klondike/attempts", "{}", content_type="application/json"),
        client.get("/api/v1/attempts/999999/replay"),  # a 404 too
        Client(HTTP_AUTHORIZATION="Token not-a-token").get("/api/v1/daily"),  # refused: still private
    ):
        assert answer["Cache-Control"] == "private, no-store", answer


def test_a_session_s_api_answers_are_private_too() -> None:
    client = Client()
    client.force_login(make_user())
    assert client.get("/api/v1/games")["Cache-Control"] == "private, no-store"


def test_anonymous_api_answers_are_left_as_they_are() -> None:
    assert "private" not in Client().get("/api/v1/games").get("Cache-Control", "")


@pytest.mark.parametrize("path", ["/", "/archive", "/accounts/login/", "/no-such-page", "/admin/login/", "/api/docs/"])
def test_every_html_page_has_a_content_security_policy(path: str) -> None:
    answer = Client().get(path)
    assert answer["Content-Type"].startswith("text/html")
    policy = answer["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "object-src 'none'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-eval" not in policy
    assert ("'unsafe-inline'" in policy) == path.startswith(("/admin/", "/api/docs/")), policy


def test_json_and_static_answers_carry_no_policy(token: str) -> None:
    assert "Content-Security-Policy" not in Client().get("/api/v1/games")
    assert "Content-Security-Policy" not in Client().get("/healthz")


def test_the_500_page_s_inline_style_is_the_one_the_policy_allows(settings: Settings) -> None:
    from django.template.loader import render_to_string

    html = render_to_string("500.html")
    style = re.search(r"<style>(.*?)</style>", html, re.S)
    assert style
    digest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"'sha256-{digest}'" in CONTENT_SECURITY_POLICY
