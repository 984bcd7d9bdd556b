"""Issue 53's papercuts that a page or the API says without a browser: the game's words refused as
passwords (pages and API alike, with the name's error in the same round), a board's previous and next day,
and a game closed by midnight reviewed as unfinished (the browser tests look at each too)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client

from games import days, services
from games.models import Attempt
from games.tests.factories import make_challenge, make_user
from reviews.selectors import CLOSED_AT_DAY_END_CLAIM, closed_at_day_end_words
from solver.review import GAVE_UP_WINNABLE_CLAIM

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "password", ["solitaire", "Solitaire", "SOLITAIRE1", "klondike2026", "patience!", " 42fortythieves ", "freecell"]
)
def test_the_game_s_words_are_refused_as_passwords(password: str) -> None:
    with pytest.raises(ValidationError) as caught:
        validate_password(password)
    assert "word of the game" in " ".join(caught.value.messages)


@pytest.mark.parametrize("password", ["a long passphrase 42", "solitaire moonlight harbour", "klondikeish-rover-77"])
def test_a_password_that_only_holds_a_game_word_passes(password: str) -> None:
    validate_password(password)


def test_the_api_refuses_them_too() -> None:
    response = Client().post(
        "/api/v1/auth/register", {"username": "zed", "password": "solitaire"}, content_type="application/json"
    )
    assert response.status_code == 400 and "word of the game" in response.json()["error"]["message"]


def test_sign_up_says_a_taken_name_and_a_weak_password_in_one_round() -> None:
    services.player_create(username="Taken", password="a long passphrase 42")  # with its name keys
    form = {"username": "taken", "password1": "solitaire", "password2": "solitaire", "next": ""}
    page = Client().post("/accounts/signup/", form).content.decode()
    assert "is taken" in page and "word of the game" in page
    look_alike = Client().post("/accounts/signup/", {**form, "username": "Tak\u0435n"}).content.decode()  # a Cyrillic e
    assert "looks too much like" in look_alike or "is taken" in look_alike
    assert get_user_model().objects.count() == 1


def test_a_board_links_the_nearest_days_of_its_game() -> None:
    today = days.today()
    for back in (0, 2, 5):
        make_challenge(game="klondike", seed=back + 1, day=today - dt.timedelta(days=back))
    make_challenge(game="josephine", seed=9, day=today - dt.timedelta(days=1))  # another game: not a step
    page = Client().get(f"/board/{today - dt.timedelta(days=2)}/klondike").content.decode()
    assert f'href="/board/{today - dt.timedelta(days=5)}/klondike"' in page
    assert f'href="/board/{today}/klondike"' in page
    first = Client().get(f"/board/{today - dt.timedelta(days=5)}/klondike").content.decode()
    assert "No earlier day" in first


def test_the_board_page_knows_where_the_viewer_s_game_is() -> None:
    player = make_user()
    challenge = make_challenge(game="klondike", seed=3, day=days.today() - dt.timedelta(days=1))
    client = Client()
    client.force_login(player)
    assert 'data-mine=""' in client.get(f"/board/{challenge.date}/klondike").content.decode()
    Attempt.objects.create(player=player, challenge=challenge, ranked=False)
    assert 'data-mine="practice"' in client.get(f"/board/{challenge.date}/klondike").content.decode()


def test_a_game_closed_by_midnight_is_worded_as_unfinished_in_its_review() -> None:
    player = make_user()
    day = days.today() - dt.timedelta(days=1)
    challenge = make_challenge(game="klondike", seed=3, day=day)
    midnight = days.next_day_starts_at(day)
    data = {"claims": [GAVE_UP_WINNABLE_CLAIM, "After move 3 a win was still possible."]}
    closed = Attempt.objects.create(player=player, challenge=challenge, ranked=True, finished_at=midnight)
    worded = closed_at_day_end_words(attempt=closed, data=data)
    assert worded["claims"][0] == CLOSED_AT_DAY_END_CLAIM and worded["closed_at_day_end"] is True
    given_up = Attempt.objects.create(
        player=make_user(), challenge=challenge, ranked=True, finished_at=midnight - dt.timedelta(minutes=1)
    )
    assert closed_at_day_end_words(attempt=given_up, data=data) == data  # the player's own give-up stays "given up"
    practice = Attempt.objects.create(player=player, challenge=challenge, ranked=False, finished_at=midnight)
    assert closed_at_day_end_words(attempt=practice, data=data) == data
