"""Ratings through the API: in the profile, the history per game, and bad input of every kind."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client

from games import days
from games.models import Guest
from ratings.services import rating_day_rate
from ratings.standing import ahead_of_percent
from ratings.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db


def rated_days(count: int) -> tuple[object, object]:
    """ann wins and bob loses on each of ``count`` past klondike days, each rated."""
    ann, bob = make_user("ann"), make_user("bob")
    for n in range(count, 0, -1):
        day = make_challenge(day=days.today() - dt.timedelta(days=n), seed=100 + n)
        make_result(challenge=day, player=ann, score=600)
        make_result(challenge=day, player=bob, won=False, score=90)
        rating_day_rate(game="klondike", day=day.date)
    return ann, bob


def test_the_profile_carries_the_rating_of_each_game_rated() -> None:
    rated_days(3)
    body = Client().get("/api/v1/players/ann").json()
    (rating,) = body["ratings"]
    assert rating["game"] == "klondike" and rating["days"] == 3 and rating["rating"] > 1000
    assert Client().get("/api/v1/players/bob").json()["ratings"][0]["rating"] < rating["rating"]
    make_user("new")
    assert Client().get("/api/v1/players/new").json()["ratings"] == []
    assert Client().get("/api/v1/players/ann/ratings").json() == body["ratings"]


def test_the_history_has_a_point_per_rated_day_oldest_first() -> None:
    rated_days(4)
    body = Client().get("/api/v1/players/ann/ratings/klondike").json()
    assert body["username"] == "ann" and body["game"] == "klondike"
    points = body["history"]
    assert [p["date"] for p in points] == sorted(p["date"] for p in points) and len(points) == 4
    assert all(p["rank"] == 1 and p["players"] == 2 and p["change"] > 0 for p in points)
    assert points[0]["rating"] - points[0]["change"] == 1000
    last = Client().get("/api/v1/players/ann/ratings/klondike", {"limit": 2}).json()["history"]
    assert last == points[-2:]
    assert Client().get("/api/v1/players/ann/ratings/maria").json()["history"] == []


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("players/nobody/ratings/klondike", 404),
        ("players/nobody/ratings", 404),
        ("players/ann/ratings/chess", 400),
        ("players/ann/ratings/klondike?limit=0", 400),
        ("players/ann/ratings/klondike?limit=366", 400),
        ("players/ann/ratings/klondike?limit=x", 400),
        ("players/" + "a" * 151 + "/ratings", 404),
        ("players/a%00b/ratings/klondike", 404),
    ],
)
def test_bad_paths_are_clear_errors(path: str, status: int) -> None:
    make_user("ann")
    response = Client().get(f"/api/v1/{path}")
    assert response.status_code == status, response.content
    assert set(response.json()) == {"error"}


def test_a_guest_has_no_history_to_read() -> None:
    guest = make_user("guest-abc123")
    Guest.objects.create(user=guest)
    assert Client().get("/api/v1/players/guest-abc123/ratings/klondike").json()["history"] == []


def test_ahead_of_is_a_share_of_the_other_players_ranked() -> None:
    assert ahead_of_percent(rank=1, total=1) is None  # alone: nobody to be ahead of
    assert ahead_of_percent(rank=1, total=2) == 100
    assert ahead_of_percent(rank=2, total=2) == 0
    assert ahead_of_percent(rank=4, total=12) == 72  # 8 of the 11 others, rounded down
    assert ahead_of_percent(rank=0, total=5) is None and ahead_of_percent(rank=6, total=5) is None
