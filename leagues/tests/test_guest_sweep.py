"""Issue 51, "Cleanup deletes other people's leagues": the idle-guest sweep (games.services.guests) keeps a
guest who owns a league that others belong to; a league of the guest alone goes with it."""

from __future__ import annotations

import datetime as dt

import pytest
import time_machine
from django.contrib.auth import get_user_model

from games import services
from games.tests.factories import make_user
from leagues.models import League, Membership
from leagues.tests.factories import make_league

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
OLD = NOW - dt.timedelta(days=40)


def test_an_idle_guest_who_owns_a_league_of_others_is_kept_with_the_league() -> None:
    with time_machine.travel(OLD, tick=False):
        owner, alone, member_only = (services.guest_create() for _ in range(3))
        friends = [make_user(), make_user()]
        shared = make_league(owner=owner, members=friends, name="Guest's club")
        solo = make_league(owner=alone, name="Alone")
        other = make_league(owner=friends[0], members=[member_only], name="Friend's club")
    with time_machine.travel(NOW, tick=False):
        assert services.guests_delete_idle() == 2
    users = get_user_model().objects
    assert users.filter(pk=owner.pk).exists()  # kept: its league has other members
    assert not users.filter(pk__in=[alone.pk, member_only.pk]).exists()
    assert League.objects.filter(pk=shared.pk).exists()
    assert set(Membership.objects.filter(league=shared).values_list("player_id", flat=True)) == {
        owner.pk,
        *(f.pk for f in friends),
    }
    assert not League.objects.filter(pk=solo.pk).exists()  # nobody else's: it goes with its guest
    assert set(Membership.objects.filter(league=other).values_list("player_id", flat=True)) == {friends[0].pk}
    with time_machine.travel(NOW + dt.timedelta(days=1), tick=False):
        assert services.guests_delete_idle() == 0  # the kept guest stays kept, the sweep ends


def test_the_sweep_keeps_every_guest_of_a_batch_when_the_leagues_cannot_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    from leagues import services as league_services

    with time_machine.travel(OLD, tick=False):
        guest = services.guest_create()

    def broken(*args: object, **kwargs: object) -> set[int]:
        raise RuntimeError("leagues down")

    monkeypatch.setattr(league_services, "guests_owning_leagues", broken)
    with time_machine.travel(NOW, tick=False):
        assert services.guests_delete_idle() == 0
    assert get_user_model().objects.filter(pk=guest.pk).exists()
