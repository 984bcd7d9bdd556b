"""The pages render, 404 where there is nothing to show, and carry no hidden card of a deal."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from pytest_django import Settings

from engine import State, deal, full
from games import days
from games.models import Attempt
from games.tests.factories import make_challenge, make_user

pytestmark = pytest.mark.django_db

PASSWORD = "not-a-common-pass-42"


@pytest.fixture
def client() -> Client:
    return Client(HTTP_HOST="localhost")


@pytest.fixture
def logged_in(client: Client) -> Client:
    user = make_user("ada")
    client.force_login(user)
    return client


def hidden_cards(game: str, seed: int) -> set[str]:
    """The stock and the face-down cards of a deal: what no page may show."""
    everything: dict[str, Any] = full(State(deal(game, seed)))  # the JSON view
    cards = set(everything["stock"])
    cards |= {c["card"] for col in everything["tableau"] for c in col if not c["up"]}
    return cards


def shown_cards(html: str) -> set[str]:
    return set(re.findall(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])", html))


def test_home_lists_todays_challenges(client: Client) -> None:
    make_challenge(game="klondike", seed=2026, difficulty=3)
    make_challenge(game="josephine", seed=1)
    response = client.get("/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Josephine" in html and "Klondike" in html
    assert f"/play/{days.today()}/klondike" in html and f"/board/{days.today()}/josephine" in html
    assert "Difficulty" in html and "0 played" in html
    assert html.index("Josephine") < html.index("Klondike")  # the games' own order


def test_home_without_challenges(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert "still being checked" in response.content.decode()


@pytest.mark.parametrize("game", ["klondike", "josephine", "lucas"])
@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_pages_carry_no_hidden_card(client: Client, game: str, who: str) -> None:
    seed = 2026
    make_challenge(game=game, seed=seed)
    paths = ["/", f"/play/{days.today()}/{game}", f"/board/{days.today()}/{game}", "/archive"]
    if who == "player":
        client.force_login(make_user("ada"))
        paths.append("/players/ada")
    else:
        paths += ["/accounts/login/", "/accounts/signup/"]
    hidden = hidden_cards(game, seed)
    assert hidden
    for path in paths:
        response = client.get(path)
        assert response.status_code == 200, path
        assert not shown_cards(response.content.decode()) & hidden, path


def test_play_page_names_the_attempt_in_play(logged_in: Client) -> None:
    challenge = make_challenge(game="klondike")
    user = get_user_model().objects.get(username="ada")
    first = Attempt.objects.create(player=user, challenge=challenge, ranked=True)
    html = logged_in.get(f"/play/{days.today()}/klondike").content.decode()
    assert f'data-attempt="{first.pk}"' in html
    assert "Start practice" in html and "Start (ranked)" not in html


def test_play_page_offers_the_ranked_attempt_first(logged_in: Client) -> None:
    make_challenge(game="klondike")
    html = logged_in.get(f"/play/{days.today()}/klondike").content.decode()
    assert 'data-attempt=""' in html and "Start (ranked)" in html
    assert 'src="/static/web/js/play.js"' in html


def test_play_page_of_a_past_day_has_the_solution_panel(client: Client) -> None:
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="klondike", day=yesterday, solution=["s"])
    html = client.get(f"/play/{yesterday}/klondike").content.decode()
    assert 'id="solution"' in html and 'data-over="true"' in html
    assert "ranked" not in html.split('id="start"')[1].split("</div>")[0]  # practice only: no ranked go


@pytest.mark.parametrize("kind", ["play", "board"])
def test_future_unknown_and_missing_days_are_404(client: Client, kind: str) -> None:
    tomorrow = days.today() + dt.timedelta(days=1)
    make_challenge(game="klondike", day=tomorrow)
    make_challenge(game="maria", status="verifying")
    assert client.get(f"/{kind}/{tomorrow}/klondike").status_code == 404
    assert client.get(f"/{kind}/{days.today()}/solitaire").status_code == 404
    assert client.get(f"/{kind}/yesterday/klondike").status_code == 404
    assert client.get(f"/{kind}/2020-01-01/klondike").status_code == 404
    assert client.get(f"/{kind}/{days.today()}/maria").status_code == 404  # not ready


def test_archive_lists_past_days_only(client: Client) -> None:
    today = days.today()
    yesterday = today - dt.timedelta(days=1)
    make_challenge(game="klondike", day=yesterday)
    make_challenge(game="josephine", day=yesterday)
    make_challenge(game="maria", day=today)
    make_challenge(game="lucas", day=today + dt.timedelta(days=1))
    html = client.get("/archive").content.decode()
    assert f"/play/{yesterday}/klondike" in html and f"/play/{yesterday}/josephine" in html
    assert f"/play/{today}/maria" not in html and "Lucas" not in html


def test_board_page_links_the_days_games(client: Client) -> None:
    make_challenge(game="klondike")
    make_challenge(game="maria")
    html = client.get(f"/board/{days.today()}/klondike").content.decode()
    assert 'data-game="klondike"' in html and f"/board/{days.today()}/maria" in html


def test_player_page(client: Client) -> None:
    make_user("grace")
    assert client.get("/players/grace").status_code == 200
    assert 'data-username="grace"' in client.get("/players/grace").content.decode()
    assert client.get("/players/nobody").status_code == 404


def test_signup_logs_in_and_returns_to_next(client: Client) -> None:
    assert client.get("/accounts/signup/").status_code == 200
    response = client.post(
        "/accounts/signup/",
        {"username": "lin", "password1": PASSWORD, "password2": PASSWORD, "next": "/archive"},
    )
    assert response.status_code == 302 and response["Location"] == "/archive"
    assert get_user_model().objects.filter(username="lin").exists()
    assert "lin" in client.get("/").content.decode()  # the header names the player


def test_signup_refuses_a_weak_password_and_an_external_next(client: Client) -> None:
    response = client.post("/accounts/signup/", {"username": "lin", "password1": "123", "password2": "123"})
    assert response.status_code == 200 and not get_user_model().objects.filter(username="lin").exists()
    assert "errorlist" in response.content.decode()
    response = client.post(
        "/accounts/signup/",
        {"username": "lin", "password1": PASSWORD, "password2": PASSWORD, "next": "https://evil.example/"},
    )
    assert response.status_code == 302 and response["Location"] == "/"


def test_login_and_logout(client: Client) -> None:
    make_user("ada")
    assert client.get("/accounts/login/").status_code == 200
    response = client.post("/accounts/login/", {"username": "ada", "password": "wrong"})
    assert response.status_code == 200 and "errorlist" in response.content.decode()
    response = client.post("/accounts/login/", {"username": "ada", "password": PASSWORD, "next": "/archive"})
    assert response.status_code == 302 and response["Location"] == "/archive"
    assert client.get("/api/v1/attempts/999").status_code == 404  # the API knows the session: not 401/403
    response = client.post("/accounts/logout/")
    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/api/v1/attempts/999").status_code in (401, 403)


def test_session_posts_to_the_api_need_the_csrf_token() -> None:
    make_challenge(game="klondike")
    client = Client(HTTP_HOST="localhost", enforce_csrf_checks=True)
    client.force_login(make_user())
    client.get(f"/play/{days.today()}/klondike")  # sets the csrftoken cookie
    path = f"/api/v1/daily/{days.today()}/klondike/attempts"
    assert client.post(path, content_type="application/json").status_code == 403
    token = client.cookies["csrftoken"].value
    assert client.post(path, content_type="application/json", HTTP_X_CSRFTOKEN=token).status_code == 201


def test_static_files_are_served(client: Client) -> None:
    for name in ("web/js/play.js", "web/js/rules.js", "web/js/api.js", "web/css/site.css"):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name


@pytest.mark.parametrize("debug", [True, False])
def test_a_missing_page_is_our_own_404_page_even_in_debug(client: Client, settings: Settings, debug: bool) -> None:
    settings.DEBUG = debug
    for path in (f"/play/{days.today()}/klondike", "/board/2020-01-01/klondike", "/players/nobody"):
        response = client.get(path)
        assert response.status_code == 404
        text = response.content.decode()
        assert "Nothing here" in text and "today's deals" in text.lower(), text[:300]
        assert "Django" not in text and "URLconf" not in text


def test_the_favicon_is_served(client: Client) -> None:
    page = client.get("/").content.decode()
    assert 'rel="icon"' in page
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("favicon.svg")
    assert client.get("/static/web/favicon.svg").status_code == 200


def test_the_500_page_is_friendly(client: Client) -> None:
    from django.template.loader import render_to_string

    text = render_to_string("500.html")
    assert "Something went wrong" in text and "nothing of a game" in text
