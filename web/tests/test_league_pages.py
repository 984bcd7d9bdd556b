"""The league pages: they render for a member, send a visitor to log in, and show a non-member nothing.

The pages carry no league data: the browser fetches it from /api/v1/leagues (members only), so neither
the invite code nor the name of a league is in the HTML of its page.
"""

from __future__ import annotations

from typing import Literal, TypedDict

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games import days
from games.tests.factories import make_challenge, make_user
from leagues.models import League
from leagues.tests.factories import make_league

pytestmark = pytest.mark.django_db


@pytest.fixture
def client() -> Client:
    return Client(HTTP_HOST="localhost")


class World(TypedDict):
    olga: User
    mia: User
    sam: User
    league: League


@pytest.fixture
def world() -> World:
    """Night Owls, owned by olga with member mia; sam is in no league."""
    olga, mia, sam = make_user("olga"), make_user("mia"), make_user("sam")
    league = make_league(owner=olga, members=[mia], name="Night Owls")
    return {"olga": olga, "mia": mia, "sam": sam, "league": league}


@pytest.mark.parametrize("path", ["/leagues", "/leagues/1"])
def test_a_visitor_is_sent_to_log_in_and_back(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 302
    assert response["Location"] == f"/accounts/login/?next={path}"


def test_the_navigation_links_the_leagues_for_players_only(client: Client) -> None:
    assert 'href="/leagues"' not in client.get("/").content.decode()
    client.force_login(make_user("ada"))
    assert 'href="/leagues"' in client.get("/").content.decode()


def test_my_leagues_page(client: Client, world: World) -> None:
    client.force_login(world["mia"])
    response = client.get("/leagues")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="create-league"' in html and 'id="join-league"' in html and 'id="leagues"' in html
    assert 'src="/static/web/js/leagues.js"' in html
    assert "Night Owls" not in html and world["league"].invite_code not in html  # fetched by the page
    assert "csrftoken" in response.cookies


@pytest.mark.parametrize("who", ["olga", "mia"])
def test_the_league_page_renders_for_a_member(client: Client, world: World, who: Literal["olga", "mia"]) -> None:
    make_challenge(game="klondike")
    make_challenge(game="maria")
    league = world["league"]
    client.force_login(world[who])
    response = client.get(f"/leagues/{league.pk}")
    assert response.status_code == 200
    html = response.content.decode()
    today = days.today().isoformat()
    assert f'data-league="{league.pk}"' in html and f'data-date="{today}"' in html
    assert f'data-date="{today}" data-game="maria"' in html  # the first of today's games, in the games' order
    assert f'href="/leagues/{league.pk}?game=klondike"' in html and 'id="alltime-board"' in html
    assert 'src="/static/web/js/league.js"' in html and "csrftoken" in response.cookies
    assert league.invite_code not in html and "Night Owls" not in html  # the page fetches them from the API
    picked = client.get(f"/leagues/{league.pk}", {"game": "klondike"}).content.decode()
    assert f'data-date="{today}" data-game="klondike"' in picked
    unknown = client.get(f"/leagues/{league.pk}", {"game": "lucas"}).content.decode()  # not played today
    assert f'data-date="{today}" data-game="maria"' in unknown


def test_the_league_page_without_todays_challenges(client: Client, world: World) -> None:
    client.force_login(world["mia"])
    response = client.get(f"/leagues/{world['league'].pk}")
    assert response.status_code == 200
    html = response.content.decode()
    assert "still being checked" in html and 'id="daily-board"' not in html and 'id="alltime-board"' in html


def test_a_non_member_and_an_unknown_league_are_not_found(client: Client, world: World) -> None:
    make_challenge(game="klondike")
    league = world["league"]
    client.force_login(world["sam"])
    for path in (f"/leagues/{league.pk}", f"/leagues/{league.pk + 1000}"):
        response = client.get(path)
        assert response.status_code == 404, path
        html = response.content.decode()
        assert "League not found" in html
        assert league.invite_code not in html and "Night Owls" not in html and "olga" not in html
        assert "league.js" not in html
    assert client.get("/leagues/night-owls").status_code == 404
    assert client.get("/leagues/join/").status_code == 404


def test_the_invite_link_offers_a_player_the_join_button(client: Client, world: World) -> None:
    code = world["league"].invite_code
    client.force_login(world["sam"])
    response = client.get(f"/leagues/join/{code}")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-code="{code}"' in html and 'id="join-button"' in html
    assert 'src="/static/web/js/league-join.js"' in html and "csrftoken" in response.cookies
    # The invite names the league and who invites, nothing else of it (no members, no id).
    assert 'Join <span id="league-name">Night Owls</span>' in html and "<b>olga</b> invites you" in html
    assert f'/leagues/{world["league"].pk}"' not in html and "mia" not in html


def test_the_invite_link_sends_a_visitor_to_sign_up_or_log_in_and_back(client: Client, world: World) -> None:
    code = world["league"].invite_code
    html = client.get(f"/leagues/join/{code}").content.decode()
    back = f"/leagues/join/{code}"
    assert f'href="/accounts/signup/?next={back}"' in html and f'href="/accounts/login/?next={back}"' in html
    assert 'id="join-button"' not in html and "Night Owls" in html  # a visitor sees whose league it is
    password = "not-a-common-pass-42"
    response = client.post(
        "/accounts/signup/",
        {"username": "lin", "password1": password, "password2": password, "next": f"/leagues/join/{code}"},
    )
    assert response.status_code == 302 and response["Location"] == f"/leagues/join/{code}"
    assert 'id="join-button"' in client.get(f"/leagues/join/{code}").content.decode()


def test_an_invite_code_with_odd_characters_is_escaped(client: Client) -> None:
    client.force_login(make_user("ada"))
    html = client.get('/leagues/join/"><script>x').content.decode()
    assert "<script>x" not in html and "&quot;&gt;&lt;script&gt;x" in html


def test_an_unknown_invite_code_says_the_link_does_not_work(client: Client, world: World) -> None:
    client.force_login(world["sam"])
    response = client.get("/leagues/join/nosuchcode")
    html = response.content.decode()
    assert response.status_code == 404 and "This invite link does not work" in html
    assert 'id="join-button"' not in html and "league-join.js" not in html and "Night Owls" not in html


def test_the_invite_of_a_guest_s_league_names_no_guest(client: Client) -> None:
    from games import services as game_services

    guest = game_services.guest_create()
    league = make_league(owner=guest, members=[], name="Guest Table")
    html = client.get(f"/leagues/join/{league.invite_code}").content.decode()
    assert "Guest Table" in html and guest.get_username() not in html


def test_league_static_files_are_served(client: Client) -> None:
    for name in ("leagues.js", "league.js", "league-join.js", "boards.js", "board.js"):
        assert client.get(f"/static/web/js/{name}").status_code == 200, name


def test_a_guest_member_is_marked_as_a_guest_for_the_page(client: Client, world: World) -> None:
    """The league's roster says which members are guests: the page shows them as "Guest"."""
    from games import services as game_services
    from leagues.services import league_join

    guest = game_services.guest_create()
    league_join(player=guest, invite_code=world["league"].invite_code)
    client.force_login(world["mia"])
    roster = client.get(f"/api/v1/leagues/{world['league'].pk}").json()["roster"]
    assert [(m["player"], m["guest"]) for m in roster] == [
        ("olga", False),
        ("mia", False),
        (guest.get_username(), True),
    ]
    board = client.get(f"/api/v1/leagues/{world['league'].pk}/boards/all-time").json()["entries"]
    assert {e["player"]: e["guest"] for e in board} == {"olga": False, "mia": False, guest.get_username(): True}
