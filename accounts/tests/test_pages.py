"""The account pages: the data download and the ban message on the account page, and deleting one's own
account (the password, a confirmation; a guest with the confirmation alone)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from accounts import services
from games import services as games_services
from games.tests.factories import make_user

pytestmark = pytest.mark.django_db

PASSWORD = "not-a-common-pass-42"


def signed_in(user: Any, *, csrf: bool = False) -> Client:
    client = Client(HTTP_HOST="localhost", enforce_csrf_checks=csrf)
    client.force_login(user)
    return client


def exists(user: Any) -> bool:
    return get_user_model().objects.filter(pk=user.pk).exists()


def test_the_account_page_offers_the_download_and_the_deletion_and_says_so_when_banned() -> None:
    player = make_user()
    client = signed_in(player)
    text = client.get("/accounts/account/").content.decode()
    assert 'href="/api/v1/me/export"' in text and 'href="/accounts/delete/"' in text
    assert 'id="banned"' not in text
    services.player_ban(player=player, by=None, reason="one player, three accounts")
    text = client.get("/accounts/account/").content.decode()
    assert 'id="banned"' in text and "one player, three accounts" in text
    assert client.get("/api/v1/me/export").status_code == 200  # a banned player still has their data


def test_the_delete_page_needs_a_login() -> None:
    response = Client(HTTP_HOST="localhost").get("/accounts/delete/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize(
    "form",
    [
        {"password": "wrong", "confirm": "on"},
        {"password": "", "confirm": "on"},
        {"password": PASSWORD},  # not confirmed
        {},
    ],
)
def test_the_delete_page_deletes_nothing_without_the_password_and_the_confirmation(form: dict[str, str]) -> None:
    player = make_user()
    response = signed_in(player).post("/accounts/delete/", form)
    assert response.status_code == 200
    assert "Error:" in response.content.decode()
    assert exists(player)


def test_the_delete_page_deletes_the_account_and_signs_out() -> None:
    player = make_user()
    client = signed_in(player)
    response = client.post("/accounts/delete/", {"password": PASSWORD, "confirm": "on"})
    assert response.status_code == 200 and 'id="deleted"' in response.content.decode()
    assert not exists(player)
    assert client.get("/accounts/account/").status_code == 302  # signed out


def test_the_delete_page_needs_the_csrf_token() -> None:
    player = make_user()
    response = signed_in(player, csrf=True).post("/accounts/delete/", {"password": PASSWORD, "confirm": "on"})
    assert response.status_code == 403
    assert exists(player)


def test_a_guest_deletes_itself_on_the_page_with_the_confirmation() -> None:
    guest = games_services.guest_create()
    client = signed_in(guest)
    page = client.get("/accounts/delete/").content.decode()
    assert 'name="password"' not in page
    assert client.post("/accounts/delete/", {}).status_code == 200 and exists(guest)
    assert client.post("/accounts/delete/", {"confirm": "on"}).status_code == 200
    assert not exists(guest)
