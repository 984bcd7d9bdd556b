"""Redis flushed (FLUSHDB of REDIS_URL's database) with boards present: every board is rebuilt from
PostgreSQL on its next read, equal to the database's own ranking, pages, ranks and all.

Needs REDIS_URL. Only REDIS_URL's own database is flushed, never the server.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
import redis
from django.test import Client
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from games import days
from games.tests.factories import token_for
from leaderboard import redis_store
from leaderboard.selectors.boards import leaderboard_page
from leaderboard.services import leaderboard_record_result
from leaderboard.tests.factories import make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db


def board_bodies(client: Client, challenge: Any, token: str) -> list[Any]:
    """Everything a reader sees of a board: all its pages, both boards, and a player's rank around them."""
    base = f"/api/v1/leaderboards/{challenge.date}/{challenge.game}"
    bodies = []
    for query in ("limit=100", "limit=7&offset=7", "limit=7&offset=35", "board=all&limit=100", "around=me"):
        response = client.get(f"{base}?{query}", HTTP_AUTHORIZATION=f"Token {token}")
        assert response.status_code == 200, response.content
        bodies.append(response.json())
    return bodies


def test_boards_are_rebuilt_from_postgresql_after_a_flush(
    redis_client: redis.Redis, settings: Settings, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    rng = random.Random(20261201)
    today = days.today()
    challenges = [make_challenge(date=today, game="klondike"), make_challenge(date=today, game="josephine")]
    watched = make_user("watched")
    for challenge in challenges:
        for i in range(40):
            make_result(
                challenge=challenge,
                player=watched if i == 17 else make_user(),
                won=rng.random() < 0.6,
                score=rng.randint(0, 5) * 10,
                moves=rng.randint(90, 95),
                play_time_ms=rng.randint(1000, 1003),
                assisted=rng.random() < 0.2,
            )
    client, token = Client(HTTP_HOST="localhost"), token_for(watched)

    for challenge in challenges:
        board_bodies(client, challenge, token)  # read through Redis: the boards are built there
        assert redis_client.exists(redis_store.board_keys(challenge=challenge).members)
    late = make_result(challenge=challenges[0], player=make_user("late"), score=999)  # written into Redis too
    with django_capture_on_commit_callbacks(execute=True):
        leaderboard_record_result(result_id=late.pk)
    assert leaderboard_page(challenge=challenges[0], offset=0, limit=1, clean=False).entries[0].result_id == late.pk

    redis_client.flushdb()  # the fault: everything in this Redis database is gone

    after = [board_bodies(client, challenge, token) for challenge in challenges]
    for challenge in challenges:
        assert redis_client.exists(redis_store.board_keys(challenge=challenge).members)  # rebuilt
        assert leaderboard_page(challenge=challenge, offset=0, limit=100, clean=False).source == "redis"
    settings.REDIS_URL = ""  # the database's own ranking, Redis out of the way
    from leaderboard.selectors.boards import challenge_cache_clear

    challenge_cache_clear()
    from_database = [board_bodies(client, challenge, token) for challenge in challenges]
    assert after == from_database
    assert after[0][0]["entries"][0]["player"] == "late"
    assert len(after[0][3]["entries"]) == 41 and len(after[1][3]["entries"]) == 40  # board=all
    for bodies in after:  # the day's board: the same results less the assisted ones, ranked 1, 2, 3...
        day, everyone = bodies[0]["entries"], bodies[3]["entries"]
        assert [e["player"] for e in day] == [e["player"] for e in everyone if not e["assisted"]]
        assert [e["rank"] for e in day] == list(range(1, len(day) + 1)) and len(day) < len(everyone)
