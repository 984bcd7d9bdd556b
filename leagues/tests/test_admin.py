"""The admin lists leagues with their member counts and shows memberships inline."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from leaderboard.tests.factories import make_user
from leagues.tests.factories import make_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff() -> Client:
    admin = get_user_model().objects.create_superuser(username="root", password="x", email="root@example.com")
    client = Client()
    client.force_login(admin)
    return client


def test_changelist_shows_member_counts(staff: Client) -> None:
    make_league(owner=make_user(), name="Three of us", members=[make_user(), make_user()])
    make_league(owner=make_user(), name="Alone here")
    response = staff.get("/admin/leagues/league/", {"o": "3"})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Three of us" in html and "Alone here" in html
    assert '<td class="field-members">3</td>' in html
    assert '<td class="field-members">1</td>' in html


def test_change_page_has_the_memberships_inline(staff: Client) -> None:
    member = make_user("inline_member")
    league = make_league(owner=make_user(), members=[member])
    response = staff.get(f"/admin/leagues/league/{league.pk}/change/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "memberships-TOTAL_FORMS" in html and 'value="2"' in html
    assert league.invite_code in html
