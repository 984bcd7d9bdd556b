"""Guests lose nothing when they sign up or log in (issue 27, items 4 and 5): games, results, streak,
leagues owned and joined, in one transaction; and the claim holds when logins and validations race
it (barrier tests, on PostgreSQL)."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client, TestCase

from games import days, services
from games.models import Attempt, Guest, Result, Submission
from games.tests.factories import make_challenge, make_user
from leaderboard.tests.factories import make_result
from leagues.models import League, Membership
from leagues.tests.factories import make_league
from tests.concurrency import at_once

PASSWORD = "not-a-common-pass-42"  # the factories' password
SIGNUP_PASSWORD = "a long passphrase 42"


def guest_client(next_path: str = "/") -> tuple[Client, Any]:
    """A visitor who pressed "Play now": its client (session) and its guest player."""
    client = Client()
    assert client.post("/accounts/guest/", {"next": next_path}).status_code == 302
    guest = get_user_model().objects.get(pk=client.session["_auth_user_id"])
    assert Guest.objects.filter(user=guest).exists()
    return client, guest


def played(player: Any, challenge: Any, moves: list[str], *, validate: bool = True) -> Attempt:
    attempt = Attempt.objects.filter(player=player, challenge=challenge, finished_at__isnull=True).first()
    attempt = attempt or services.attempt_start(player=player, challenge=challenge)
    services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=moves)
    with TestCase.captureOnCommitCallbacks(execute=validate):
        services.attempt_submit(attempt_id=attempt.pk, player=player)
    return Attempt.objects.get(pk=attempt.pk)


def signup(client: Client, username: str) -> Any:
    return client.post(
        "/accounts/signup/", {"username": username, "password1": SIGNUP_PASSWORD, "password2": SIGNUP_PASSWORD}
    )


def login(client: Client, username: str) -> Any:
    return client.post("/accounts/login/", {"username": username, "password": PASSWORD})


def profile(username: str) -> dict[str, Any]:
    return dict(Client().get(f"/api/v1/players/{username}").json())


@pytest.mark.django_db
def test_signing_up_keeps_the_guests_leagues_results_and_streak() -> None:
    today = days.today()
    yesterday = make_challenge(day=today - dt.timedelta(days=1), seed=5)
    challenge = make_challenge(seed=6)
    client, guest = guest_client()
    make_result(challenge=yesterday, player=guest, won=True)  # ranked, on its own day
    make_result(challenge=challenge, player=guest, won=True)
    friend, stranger = make_user("friend"), make_user("stranger")
    owned = make_league(owner=guest, members=[friend], name="Guest's club")
    joined = make_league(owner=stranger, members=[guest], name="Stranger's club")
    guest_stats = profile(guest.get_username())

    assert signup(client, "gus").status_code == 302
    gus = get_user_model().objects.get(username="gus")
    assert not get_user_model().objects.filter(pk=guest.pk).exists()
    # Leagues: the owned one passes to the account with its members; the joined one keeps it.
    assert League.objects.get(pk=owned.pk).owner_id == gus.pk
    assert set(Membership.objects.filter(league=owned).values_list("player__username", flat=True)) == {"gus", "friend"}
    assert set(Membership.objects.filter(league=joined).values_list("player__username", flat=True)) == {
        "stranger",
        "gus",
    }
    # Results and the streak: both days stay ranked, the stats are the guest's.
    assert Result.objects.filter(player=gus, ranked=True).count() == 2
    stats = profile("gus")
    assert (stats["played"], stats["current_streak"]) == (guest_stats["played"], guest_stats["current_streak"])
    assert (stats["played"], stats["current_streak"]) == (2, 2)
    assert Client().get(f"/api/v1/leaderboards/{today}/klondike").json()["entries"][0]["player"] == "gus"


@pytest.mark.django_db
def test_logging_in_merges_memberships_without_duplicates() -> None:
    account = make_user("acct")
    client, guest = guest_client()
    other = make_user("other")
    both = make_league(owner=other, members=[account, guest], name="Both in it")
    owned = make_league(owner=guest, members=[account], name="Guest owns, account joined")
    assert login(client, "acct").status_code == 302
    assert Membership.objects.filter(league=both, player=account).count() == 1
    assert Membership.objects.filter(league=owned, player=account).count() == 1
    assert League.objects.get(pk=owned.pk).owner_id == account.pk
    assert not Membership.objects.filter(player_id=guest.pk).exists()
    assert Client().get("/accounts/login/").status_code == 200


@pytest.mark.django_db
def test_a_failing_league_move_undoes_the_whole_claim(monkeypatch: pytest.MonkeyPatch) -> None:
    """One transaction: if the leagues cannot move, neither do the games; the guest stays whole."""
    challenge = make_challenge()
    client, guest = guest_client()
    attempt = played(guest, challenge, ["s"])
    league = make_league(owner=guest, name="Kept")

    def broken(**kwargs: Any) -> None:
        raise RuntimeError("leagues unavailable")

    monkeypatch.setattr("leagues.services.league_guest_merge", broken)
    with pytest.raises(RuntimeError):
        signup(client, "gwen")
    assert not get_user_model().objects.filter(username="gwen").exists()
    assert Attempt.objects.get(pk=attempt.pk).player_id == guest.pk
    assert League.objects.get(pk=league.pk).owner_id == guest.pk and Guest.objects.filter(user=guest).exists()


# --- races, on PostgreSQL ------------------------------------------------------------------------


def _postgresql_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("races need row locks and concurrent connections (PostgreSQL)")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("trial", range(4))
def test_two_guests_logging_in_to_one_account_at_once(trial: int) -> None:
    """The issue's 500: both guests had a ranked attempt of today; both claimed it at once. The
    account's row lock makes the claims take turns: one stays ranked, the other is practice."""
    _postgresql_only()
    challenge = make_challenge()
    account = make_user("twin")
    guests = [guest_client(f"/play/{challenge.date}/klondike") for _ in range(2)]
    for _, guest in guests:
        played(guest, challenge, ["s"])
    answers = at_once(*(lambda c=c: login(c, "twin").status_code for c, _ in guests))
    assert answers == [302, 302]
    attempts = Attempt.objects.filter(challenge=challenge)
    assert set(attempts.values_list("player_id", flat=True)) == {account.pk}  # nothing stranded
    assert Counter(attempts.values_list("ranked", flat=True)) == Counter({True: 1, False: 1})
    assert Result.objects.filter(player=account, ranked=True).count() == 1
    assert Result.objects.filter(player=account).count() == 2
    assert not Guest.objects.exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("trial", range(3))
def test_one_guest_logging_in_twice_at_once_moves_once(trial: int) -> None:
    _postgresql_only()
    challenge = make_challenge()
    account = make_user("tabs")
    client, guest = guest_client(f"/play/{challenge.date}/klondike")
    league = make_league(owner=guest, name="Two tabs")
    session = client.cookies["sessionid"].value
    second = Client()
    second.cookies["sessionid"] = session
    answers = at_once(lambda: login(client, "tabs").status_code, lambda: login(second, "tabs").status_code)
    assert answers == [302, 302]
    assert Attempt.objects.get(challenge=challenge).player_id == account.pk
    assert Membership.objects.filter(league=league, player=account).count() == 1
    assert League.objects.get(pk=league.pk).owner_id == account.pk


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("trial", range(4))
def test_a_validation_landing_during_the_sign_up_keeps_its_result(trial: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guest's game is submitted; its validation runs at the moment the guest signs up. Whichever
    commits first, the result is stored once, for the account, and ranked."""
    _postgresql_only()
    monkeypatch.setattr("games.services.attempts.enqueue_validation", lambda *, submission_id: None)  # held back
    challenge = make_challenge()
    client, guest = guest_client(f"/play/{challenge.date}/klondike")
    attempt = played(guest, challenge, ["s", "s"], validate=False)
    submission = Submission.objects.get(attempt=attempt)
    assert submission.status == Submission.Status.PENDING

    def validate() -> str:
        return str(services.submission_validate(submission_id=submission.pk).status)

    answers = at_once(lambda: signup(client, "vera").status_code, validate)
    assert answers == [302, "valid"]
    vera = get_user_model().objects.get(username="vera")
    result = Result.objects.get(submission=submission)
    assert (result.player_id, result.ranked) == (vera.pk, True)
    assert Attempt.objects.get(pk=attempt.pk).player_id == vera.pk
    assert not get_user_model().objects.filter(pk=guest.pk).exists()
    assert profile("vera")["played"] == 1
