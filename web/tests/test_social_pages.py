"""The friends' parts of the pages (web.friends): the home block, the friends board, the follow button.
What a page shows of a friend is what the public board shows, and no more."""

from __future__ import annotations

import pytest
from django.test import Client

from follows.models import Follow
from games import days
from games.models import Attempt, Guest
from leaderboard.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db


def signed_in(user: object) -> Client:
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_the_home_page_shows_friends_finished_games_of_today_and_nothing_in_play() -> None:
    ann, bob, cy = make_user("ann"), make_user("bob"), make_user("cy")
    Follow.objects.create(follower=ann, followed=bob)
    Follow.objects.create(follower=ann, followed=cy)
    today = make_challenge(date=days.today(), game="klondike")
    make_result(challenge=today, player=bob, score=612, play_time_ms=97_720)
    Attempt.objects.create(player=cy, challenge=make_challenge(date=days.today(), game="maria"), ranked=True)
    page = signed_in(ann).get("/").content.decode()
    assert 'id="friends-today"' in page and 'data-player="bob"' in page and "score 612 · 1:37.72" in page
    assert f'href="/friends/{days.today().isoformat()}/klondike"' in page
    assert 'data-player="cy"' not in page  # cy is playing: nothing of it shows


def test_the_home_page_says_how_to_follow_and_shows_no_block_to_visitors_and_guests() -> None:
    ann = make_user("ann")
    assert "Follow players from their profile" in signed_in(ann).get("/").content.decode()
    assert 'id="friends-today"' not in Client(HTTP_HOST="localhost").get("/").content.decode()
    guest = make_user("guest-1a2b3c")
    Guest.objects.create(user=guest)
    assert 'id="friends-today"' not in signed_in(guest).get("/").content.decode()


def test_the_friends_board_ranks_whom_you_follow_and_you() -> None:
    ann, bob, dan = make_user("ann"), make_user("bob"), make_user("dan")
    Follow.objects.create(follower=ann, followed=bob)
    today = make_challenge(date=days.today(), game="klondike")
    make_result(challenge=today, player=dan, score=900)
    make_result(challenge=today, player=ann, score=700)
    make_result(challenge=today, player=bob, won=False, score=100)
    page = signed_in(ann).get(f"/friends/{days.today().isoformat()}/klondike").content.decode()
    assert 'data-player="ann"' in page and 'data-player="bob"' in page and 'data-player="dan"' not in page
    assert page.index('data-player="ann"') < page.index('data-player="bob"')
    assert "#1" in page and "#2" not in page  # a loss never reads as a place number


@pytest.mark.parametrize(
    "path", ["/friends/2026-13-01/klondike", "/friends/2026-11-01/chess", "/friends/2999-01-01/klondike"]
)
def test_the_friends_board_of_no_such_day_is_the_sites_404(path: str) -> None:
    response = signed_in(make_user("ann")).get(path)
    assert response.status_code == 404 and "Daily Patience" in response.content.decode()


def test_the_friends_board_needs_a_login() -> None:
    path = f"/friends/{days.today().isoformat()}/klondike"
    response = Client(HTTP_HOST="localhost").get(path)
    assert response.status_code == 302 and response["Location"] == f"/accounts/login/?next={path}"


def test_the_follow_button_is_on_other_players_profiles_for_signed_up_players_only() -> None:
    ann, bob = make_user("ann"), make_user("bob")
    guest = make_user("guest-9z9z9z")
    Guest.objects.create(user=guest)
    page = signed_in(ann).get("/players/bob").content.decode()
    assert 'id="follow"' in page and 'aria-pressed="false"' in page and ">Follow<" in page
    Follow.objects.create(follower=ann, followed=bob)
    assert ">Following<" in signed_in(ann).get("/players/bob").content.decode()
    assert 'id="follow"' not in signed_in(ann).get("/players/ann").content.decode()  # oneself
    assert 'id="follow"' not in signed_in(ann).get("/players/guest-9z9z9z").content.decode()  # a guest
    assert 'id="follow"' not in signed_in(guest).get("/players/bob").content.decode()  # as a guest
    assert 'id="follow"' not in Client(HTTP_HOST="localhost").get("/players/bob").content.decode()
    assert 'id="ratings"' in page
