"""Guests: play before signing up, keep the games when signing up or logging in, and no second ranked go."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.test import Client, TestCase

from games import days, services
from games.models import Attempt, Guest, Result
from games.tests.factories import make_challenge, make_user

pytestmark = pytest.mark.django_db


def board_players(challenge: object) -> list[str]:
    """The board's players, as the public API answers (games itself does not import the leaderboard)."""
    body = Client().get(f"/api/v1/leaderboards/{challenge.date}/{challenge.game}").json()  # type: ignore[attr-defined]
    return [entry["player"] for entry in body["entries"]]


def _played(player: object, challenge: object, moves: list[str]) -> Attempt:
    attempt = services.attempt_start(player=player, challenge=challenge)  # type: ignore[arg-type]
    services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=moves)  # type: ignore[arg-type]
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.attempt_submit(attempt_id=attempt.pk, player=player)  # type: ignore[arg-type]
    return Attempt.objects.get(pk=attempt.pk)


def test_a_guest_is_a_passwordless_player_whose_first_attempt_is_ranked() -> None:
    guest = services.guest_create()
    assert guest.get_username().startswith("guest-") and not guest.has_usable_password()
    assert services.player_is_guest(player=guest) and not services.player_is_guest(player=make_user())
    assert _played(guest, make_challenge(), ["s"]).ranked


def test_signing_up_keeps_the_guests_ranked_result_and_board_entry() -> None:
    challenge = make_challenge()
    guest = services.guest_create()
    attempt = _played(guest, challenge, ["s", "s"])
    account = make_user("newcomer")
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert services.guest_claim(guest=guest, account=account) == 1
    attempt.refresh_from_db()
    assert attempt.player_id == account.pk and attempt.ranked
    result = Result.objects.get(submission__attempt=attempt)
    assert result.player_id == account.pk and result.ranked
    assert board_players(challenge) == ["newcomer"]
    assert not get_user_model().objects.filter(pk=guest.pk).exists() and not Guest.objects.exists()


def test_a_guest_cannot_get_a_second_ranked_go_through_an_account_that_played() -> None:
    challenge = make_challenge()
    account = make_user("veteran")
    first = _played(account, challenge, ["s"])
    guest = services.guest_create()  # "cleared the cookies" and played again as a guest
    again = _played(guest, challenge, ["s", "s", "s"])
    assert again.ranked  # as a guest it was ranked...
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.guest_claim(guest=guest, account=account)
    again.refresh_from_db()
    assert not again.ranked and again.player_id == account.pk  # ...in the account it is practice
    assert Result.objects.get(submission__attempt=again).ranked is False
    ranked = Attempt.objects.filter(player=account, challenge=challenge, ranked=True)
    assert list(ranked.values_list("id", flat=True)) == [first.pk]
    assert board_players(challenge) == ["veteran"]


def test_a_guests_past_day_becomes_practice_and_a_clashing_open_attempt_is_dropped() -> None:
    yesterday = make_challenge(day=days.today() - dt.timedelta(days=1), seed=5)
    today = make_challenge(seed=6)
    guest = services.guest_create()
    Attempt.objects.create(player=guest, challenge=yesterday, ranked=True, moves=["s"])
    open_guest = services.attempt_start(player=guest, challenge=today)
    account = make_user()
    open_mine = services.attempt_start(player=account, challenge=today)
    services.guest_claim(guest=guest, account=account)
    assert not Attempt.objects.filter(pk=open_guest.pk).exists()
    assert Attempt.objects.get(pk=open_mine.pk).ranked
    assert Attempt.objects.get(player=account, challenge=yesterday).ranked is False


def test_play_now_signs_up_later_over_the_pages() -> None:
    make_challenge()
    client = Client()
    response = client.post("/accounts/guest/", {"next": f"/play/{days.today()}/klondike"})
    # The press (a POST with its CSRF token) started the ranked attempt; the page opens on it.
    assert response.status_code == 302 and response["Location"] == f"/play/{days.today()}/klondike"
    started = Attempt.objects.get()
    assert started.ranked and services.player_is_guest(player=started.player)
    page = client.get(f"/play/{days.today()}/klondike").content.decode()
    assert "Guest" in page and "Sign up to keep your results" in page and f'data-attempt="{started.pk}"' in page
    signed = client.post(
        "/accounts/signup/",
        {"username": "maya", "password1": "a long passphrase 42", "password2": "a long passphrase 42"},
    )
    assert signed.status_code == 302
    attempt = Attempt.objects.get(pk=started.pk)
    assert attempt.player.get_username() == "maya" and attempt.ranked
    assert not Guest.objects.exists()


def test_the_guest_form_needs_its_csrf_token() -> None:
    client = Client(enforce_csrf_checks=True)
    assert client.post("/accounts/guest/", {"next": "/"}).status_code == 403
    assert client.get("/accounts/guest/").status_code == 405


def test_a_link_starts_no_attempt_whatever_its_query() -> None:
    """GET never changes state: ?start=1 (which the page once obeyed) opens the table and no more."""
    make_challenge()
    client = Client()
    client.force_login(make_user("lena"))
    for query in ("?start=1", "?start=true", ""):
        assert client.get(f"/play/{days.today()}/klondike{query}").status_code == 200
    assert not Attempt.objects.exists()
    assert client.get("/accounts/guest/?next=/play/" + str(days.today()) + "/klondike").status_code == 405
    assert not Attempt.objects.exists()


def test_play_now_starts_only_on_the_table_it_came_from() -> None:
    make_challenge()
    client = Client()
    for target in ("/", "https://evil.example/play/x/klondike", f"/board/{days.today()}/klondike", "/play/x/y"):
        assert client.post("/accounts/guest/", {"next": target}).status_code == 302
    assert not Attempt.objects.exists()
    client.post("/accounts/guest/", {"next": f"/play/{days.today()}/klondike"})
    client.post("/accounts/guest/", {"next": f"/play/{days.today()}/klondike"})  # pressed twice: one attempt
    assert Attempt.objects.count() == 1
