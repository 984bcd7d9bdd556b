"""The player admin, through Django's admin views, as staff with and without each permission: results,
fair-play cases (holds and flags) on a player's page, the guest and ban filters, the ban actions (``games.ban_player``)
logged with their actor, and deletion through the erasure service (``auth.delete_user``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.contrib.admin.models import CHANGE, DELETION, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse
from pytest_django import DjangoCaptureOnCommitCallbacks

from games import services as games_services
from games.models import FairPlayCase, PlayerBan, Result
from leaderboard.selectors.boards import leaderboard_page
from leaderboard.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:auth_user_changelist")


def staff_with(*perms: str) -> tuple[Client, Any]:
    """A logged-in staff client holding only these permissions (``app_label.codename``)."""
    user = make_user()
    user.is_staff = True
    user.save()
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(Permission.objects.get(codename=codename, content_type__app_label=app_label))
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    return client, user


def act(client: Client, action: str, players: list[Any], **extra: str) -> Any:
    return client.post(
        CHANGELIST, {"action": action, "_selected_action": [p.pk for p in players], "index": "0", **extra}
    )


def board() -> tuple[Any, list[Any]]:
    challenge = make_challenge(date=dt.date(2026, 11, 21))
    players = [make_user(f"a{i}") for i in range(4)]
    for i, player in enumerate(players):
        make_result(challenge=challenge, player=player, score=800 - i)
    return challenge, players


def names_on(challenge: Any) -> list[str]:
    return [e.player for e in leaderboard_page(challenge=challenge, offset=0, limit=50).entries]


def test_staff_without_the_ban_permission_cannot_ban(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    challenge, players = board()
    client, _ = staff_with("auth.view_user", "auth.change_user")
    page = client.get(CHANGELIST)
    assert page.status_code == 200
    assert "ban_players" not in page.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        act(client, "ban_players", [players[0]], reason="x")
    assert not PlayerBan.objects.exists()
    assert names_on(challenge)[0] == players[0].username


def test_staff_with_the_ban_permission_bans_and_lifts_logged_with_the_actor(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    challenge, players = board()
    client, moderator = staff_with("auth.view_user", "games.ban_player")
    assert "ban_players" in client.get(CHANGELIST).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = act(client, "ban_players", [players[0]], reason="shared account")
    assert response.status_code == 302
    ban = PlayerBan.objects.get(player=players[0])
    assert ban.banned_by == moderator and ban.reason == "shared account"
    assert players[0].username not in names_on(challenge)
    entry = LogEntry.objects.get(object_id=str(players[0].pk), action_flag=CHANGE)
    assert entry.user_id == moderator.pk and "shared account" in entry.get_change_message()
    assert client.get(CHANGELIST + "?banned=yes").context["cl"].result_count == 1
    with django_capture_on_commit_callbacks(execute=True):
        act(client, "unban_players", [players[0]])
    assert not PlayerBan.objects.exists()
    assert names_on(challenge)[0] == players[0].username
    assert LogEntry.objects.filter(object_id=str(players[0].pk), change_message__contains="Ban lifted").exists()


def test_a_ban_of_staff_through_the_admin_is_refused_with_a_message() -> None:
    client, _ = staff_with("auth.view_user", "games.ban_player")
    other_staff = make_user("other-staff")
    other_staff.is_staff = True
    other_staff.save()
    response = act(client, "ban_players", [other_staff])
    assert response.status_code == 302
    assert not PlayerBan.objects.exists()


def test_the_player_page_shows_results_fair_play_cases_and_the_guest_filter_works() -> None:
    challenge, players = board()
    result = Result.objects.get(player=players[0])
    FairPlayCase.objects.create(
        result=result, kind=FairPlayCase.Kind.PACE, holds=True, reason="Held: 200 moves in 3 seconds."
    )
    other = Result.objects.get(player=players[1])
    FairPlayCase.objects.create(
        result=other,
        kind=FairPlayCase.Kind.ADDRESS,
        holds=False,
        others=[players[0].username],
        reason=f"Flagged: {players[0].username} also ranked on this challenge from the same client address.",
    )
    guest = games_services.guest_create()
    client, _ = staff_with("auth.view_user")
    page = client.get(reverse("admin:auth_user_change", args=[players[0].pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert "Held: 200 moves in 3 seconds." in text  # their result's fair-play case
    assert "also ranked on this challenge from the same client address" in text  # a flag naming them
    assert str(challenge) in text  # the results inline
    guests = client.get(CHANGELIST + "?guest=yes").context["cl"].result_list
    assert [u.pk for u in guests] == [guest.pk]
    accounts = client.get(CHANGELIST + "?guest=no").context["cl"].result_list
    assert guest.pk not in [u.pk for u in accounts]


def test_deleting_in_the_admin_goes_through_the_erasure_service(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    challenge, players = board()
    doomed = players[1]
    victim = Result.objects.get(player=players[0])
    case = FairPlayCase.objects.create(
        result=victim,
        kind=FairPlayCase.Kind.ADDRESS,
        holds=False,
        others=[doomed.username],
        reason=f"Flagged: {doomed.username} also ranked on this challenge from the same client address.",
    )
    viewer, _ = staff_with("auth.view_user")
    url = reverse("admin:auth_user_delete", args=[doomed.pk])
    assert viewer.post(url, {"post": "yes"}).status_code == 403
    assert get_user_model().objects.filter(pk=doomed.pk).exists()

    deleter, moderator = staff_with("auth.view_user", "auth.delete_user")
    with django_capture_on_commit_callbacks(execute=True):
        assert deleter.post(url, {"post": "yes"}).status_code == 302
    assert not get_user_model().objects.filter(pk=doomed.pk).exists()
    case.refresh_from_db()
    assert doomed.username not in case.reason
    assert [e.rank for e in leaderboard_page(challenge=challenge, offset=0, limit=50).entries] == [1, 2, 3]
    assert LogEntry.objects.filter(object_id=str(doomed.pk), action_flag=DELETION, user=moderator).exists()

    # The list's bulk delete too.
    with django_capture_on_commit_callbacks(execute=True):
        act(deleter, "delete_selected", [players[2]], post="yes")
    assert not get_user_model().objects.filter(pk=players[2].pk).exists()
    assert names_on(challenge) == [players[0].username, players[3].username]
