"""API requests with a token skip the session, the session's user and messages (config/lean.py);
every other request keeps them all: a browser's session still needs its CSRF token, on the API and on
the pages, whatever headers come with it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from games import days
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = [pytest.mark.django_db]

BATCH = json.dumps({"from": 0, "moves": ["s"]})


@pytest.fixture
def attempt() -> tuple[Any, int]:
    make_challenge()
    user = make_user()
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    response = client.post(f"/api/v1/daily/{days.today()}/klondike/attempts")
    assert response.status_code == 201
    return user, response.json()["id"]


def _browser(user: Any) -> Client:
    browser = Client(HTTP_HOST="localhost", enforce_csrf_checks=True)
    browser.force_login(user)
    return browser


def test_a_session_on_the_api_still_needs_its_csrf_token(attempt: tuple[Any, int]) -> None:
    user, attempt_id = attempt
    browser = _browser(user)
    url = f"/api/v1/attempts/{attempt_id}/moves"
    refused = browser.post(url, BATCH, content_type="application/json")
    assert refused.status_code == 403 and "CSRF" in refused.json()["error"]["message"]
    browser.get("/")  # the page sets the CSRF cookie, as the table reads it
    token = browser.cookies["csrftoken"].value
    accepted = browser.post(url, BATCH, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 200, accepted.content


def test_a_token_header_does_not_lift_a_pages_csrf_check(attempt: tuple[Any, int]) -> None:
    user, _ = attempt
    browser = _browser(user)
    response = browser.post("/accounts/logout/", HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    assert response.status_code == 403  # CSRF: the form's token is missing
    assert browser.get("/accounts/account/").status_code == 200  # still signed in


def test_a_session_cookie_does_not_stand_in_for_a_bad_token(attempt: tuple[Any, int]) -> None:
    user, attempt_id = attempt
    browser = _browser(user)
    response = browser.post(
        f"/api/v1/attempts/{attempt_id}/moves", BATCH, content_type="application/json", HTTP_AUTHORIZATION="Token bad"
    )
    assert response.status_code == 401


def test_a_token_request_sets_no_cookie_and_reads_no_session(attempt: tuple[Any, int]) -> None:
    user, attempt_id = attempt
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(user)}", enforce_csrf_checks=True)
    response = client.post(f"/api/v1/attempts/{attempt_id}/moves", BATCH, content_type="application/json")
    assert response.status_code == 200, response.content
    assert not response.cookies and "Cookie" not in response.get("Vary", "")
    assert not hasattr(response.wsgi_request, "session")
    response = client.get("/api/v1/daily")
    assert response.status_code == 200 and not hasattr(response.wsgi_request, "session")


def test_a_page_with_a_token_header_keeps_its_session(attempt: tuple[Any, int]) -> None:
    user, _ = attempt
    browser = _browser(user)
    response = browser.get("/accounts/account/", HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    assert response.status_code == 200 and response.wsgi_request.user == user
