"""What each hot request costs the database and Redis, pinned: a regression in statements or round trips
fails here (the CPU figures are bench/endpoints.py's). Through the real stack of one process: PostgreSQL
for the statements, Redis for the cache, the boards and the round trips; throttling off as in the
benchmarks (a throttle adds one Redis round trip per rate).

The figures are those of a warm process: its token and position copies made by an earlier request, as
they are for every request of a player but the first."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import pytest
import redis
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from pytest_django import Settings

from engine import GAME_IDS
from games import days
from games.models import PlayerBan
from games.tests.factories import make_challenge, make_user, token_for
from leaderboard.services import leaderboard_rebuild
from leaderboard.tests.factories import make_result

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis]


@dataclass
class Costs:
    statements: list[str] = field(default_factory=list)
    redis: list[str] = field(default_factory=list)
    sql: list[str] = field(default_factory=list)


@pytest.fixture
def costs(monkeypatch: pytest.MonkeyPatch) -> Callable[[], AbstractContextManager[Costs]]:
    """``with costs() as c:`` records the SQL statements' first words and the Redis round trips."""
    import contextlib

    @contextlib.contextmanager
    def measure() -> Iterator[Costs]:
        found = Costs()
        real_execute: Callable[..., Any] = redis.Redis.execute_command
        real_pipeline = redis.client.Pipeline.execute

        def execute(self: Any, *args: Any, **kwargs: Any) -> Any:
            found.redis.append(str(args[0]).upper())
            return real_execute(self, *args, **kwargs)

        def pipeline(self: Any, *args: Any, **kwargs: Any) -> Any:
            found.redis.append("PIPELINE " + " ".join(str(c[0][0]).upper() for c in self.command_stack))
            return real_pipeline(self, *args, **kwargs)

        with CaptureQueriesContext(connection) as captured, monkeypatch.context() as patch:
            patch.setattr(redis.Redis, "execute_command", execute)
            patch.setattr(redis.client.Pipeline, "execute", pipeline)
            yield found
        found.statements = [q["sql"].split()[0].upper() for q in captured.captured_queries]
        found.sql = [q["sql"][:400] for q in captured.captured_queries]

    return measure


@pytest.fixture(autouse=True)
def _own_prefix(settings: Settings) -> None:
    settings.LEADERBOARD_REDIS_PREFIX = f"test:costs:{uuid.uuid4().hex}"
    settings.CACHES = {
        **settings.CACHES,
        "default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-costs-{uuid.uuid4().hex}"},
    }


def _client(user: Any = None) -> Client:
    if user is None:
        return Client(HTTP_HOST="localhost")
    return Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(user)}")


def _board(players: int) -> tuple[Any, list[Any]]:
    challenge = make_challenge(game="klondike", seed=2026)
    results = [make_result(challenge=challenge, player=make_user(f"ranked{i}"), score=300 + i) for i in range(players)]
    assert leaderboard_rebuild(challenge_id=challenge.pk)
    return challenge, results


@pytest.fixture
def day(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Today's klondike with 60 ranked results on its board, and clients; the submit's validation task is
    recorded instead of sent (its one publish is the broker's, not this request's work)."""
    from games.services import attempts

    sent: list[int] = []
    monkeypatch.setattr(attempts, "enqueue_validation", lambda *, submission_id: sent.append(submission_id))
    challenge, results = _board(60)
    for game in GAME_IDS:  # the whole day: /daily is held once every deal of the day is ready
        if game != "klondike":
            make_challenge(game=game, seed=1)
    board = f"/api/v1/leaderboards/{days.today()}/klondike"
    return {"challenge": challenge, "results": results, "board": board, "sent": sent}


def _warm(client: Client, method: str, path: str) -> None:
    assert getattr(client, method)(path).status_code == 200


@pytest.mark.parametrize(
    ("path", "statements", "round_trips"),
    [
        ("/api/v1/health", [], []),
        ("/api/v1/daily", [], []),  # the same answer for every caller, held by the process
        ("{board}?limit=50", [], []),  # the top page: held by the process (LEADERBOARD_PAGE_HOLD_SECONDS)
        ("{board}?offset=50&limit=50", ["SELECT"], ["PIPELINE HMGET ZCARD ZCARD ZRANGE"]),
    ],
)
@pytest.mark.held_counts
def test_public_reads(
    costs: Any, day: dict[str, Any], path: str, statements: list[str], round_trips: list[str]
) -> None:
    client = _client()
    path = path.format(board=day["board"])
    _warm(client, "get", path)
    with costs() as c:
        assert client.get(path).status_code == 200
    assert (c.statements, c.redis) == (statements, round_trips)


def test_the_top_page_after_a_write_is_read_once_and_kept(costs: Any, day: dict[str, Any]) -> None:
    """The first read of the top page after the board changed: the cache script, the page's ids, its rows in
    one statement, the page kept; the next read, the script alone (a process not holding the page: the
    tests' default, ``LEADERBOARD_PAGE_HOLD_SECONDS`` 0)."""
    from leaderboard.services import leaderboard_record_result

    client = _client()
    path = f"{day['board']}?limit=50"
    _warm(client, "get", path)
    result = make_result(challenge=day["challenge"], player=make_user("newcomer"), score=9999)
    leaderboard_record_result(result_id=result.pk)
    with costs() as c:
        response = client.get(path)
    assert response.status_code == 200 and response.json()["entries"][0]["player"] == "newcomer"
    assert (c.statements, c.redis) == (
        ["SELECT"],
        ["EVALSHA", "PIPELINE HMGET ZCARD ZCARD ZRANGE", "PIPELINE HSET EXPIRE"],
    )
    with costs() as c:
        assert client.get(path).content == response.content
    assert (c.statements, c.redis) == ([], ["EVALSHA"])


def test_a_players_page_is_one_statement_and_two_reads(costs: Any, day: dict[str, Any]) -> None:
    """A logged-in caller's page carries their place: the page's rows and their neighbourhood."""
    client = _client(day["results"][10].player)
    path = f"{day['board']}?offset=50&limit=50"
    _warm(client, "get", path)
    with costs() as c:
        response = client.get(path)
    assert response.status_code == 200 and response.json()["me"]["rank"] == 50
    assert (c.statements, c.redis) == (["SELECT", "SELECT"], ["PIPELINE HMGET ZCARD ZCARD ZRANGE", "EVALSHA"])


def test_around_me_is_one_statement_and_one_script(costs: Any, day: dict[str, Any]) -> None:
    client = _client(day["results"][10].player)
    path = f"{day['board']}?around=me"
    _warm(client, "get", path)
    with costs() as c:
        response = client.get(path)
    assert response.status_code == 200 and response.json()["me"]["rank"] == 50
    assert (c.statements, c.redis) == (["SELECT"], ["EVALSHA"])


def test_a_moves_batch_is_one_update_and_one_cache_write(costs: Any, day: dict[str, Any]) -> None:
    """The token's user and the position come from the process's own copies: no Redis read, no lock, no
    replay; the snapshot after the batch is written for the other processes."""
    client = _client(make_user())
    response = client.post(f"/api/v1/daily/{days.today()}/klondike/attempts")
    assert response.status_code == 201
    attempt = response.json()["id"]
    for start in range(3):
        with costs() as c:
            response = client.post(
                f"/api/v1/attempts/{attempt}/moves",
                json.dumps({"from": start, "moves": ["s"]}),
                content_type="application/json",
            )
        assert response.status_code == 200, response.content
        assert (c.statements, c.redis) == (["UPDATE"], ["SET"])


def test_start_is_three_statements_and_submit_one_transaction(costs: Any, day: dict[str, Any]) -> None:
    """Start: the challenge, one read from the player's row of their attempts on it (open, ranked) and
    their ban (accounts.services.player_ban), the INSERT, and the deal's position cached.
    Submit: the attempt locked, its end and last moves stored, the submission made, and its status read
    again (a validation run in process may have decided it)."""
    client = _client(make_user())
    _warm(client, "get", "/api/v1/daily")
    with costs() as c:
        response = client.post(f"/api/v1/daily/{days.today()}/klondike/attempts")
    assert response.status_code == 201, response.content
    assert (c.statements, c.redis) == (["SELECT", "SELECT", "INSERT"], ["SET"]), c.sql
    attempt = response.json()["id"]
    with costs() as c:
        response = client.post(f"/api/v1/attempts/{attempt}/submit", "{}", content_type="application/json")
    assert response.status_code == 202, response.content
    assert (c.statements, c.redis) == (["BEGIN", "SELECT", "UPDATE", "INSERT", "COMMIT", "SELECT"], []), c.sql
    assert day["sent"] == [response.json()["id"]]


def test_a_banned_player_is_refused_a_ranked_start_by_the_same_read(costs: Any, day: dict[str, Any]) -> None:
    """The ban comes with the read of the player's attempts: a banned player's ranked start is two statements
    and a 403 that gives the ban's reason; a practice start (a past day) is not refused."""
    player = make_user()
    PlayerBan.objects.create(player=player, reason="two accounts on one board")  # accounts.services.player_ban
    client = _client(player)
    _warm(client, "get", "/api/v1/daily")
    with costs() as c:
        response = client.post(f"/api/v1/daily/{days.today()}/klondike/attempts")
    assert response.status_code == 403, response.content
    error = response.json()["error"]
    assert error["code"] == "player_banned" and "Reason: two accounts on one board" in error["message"]
    assert (c.statements, c.redis) == (["SELECT", "SELECT"], []), c.sql
    yesterday = make_challenge(game="klondike", seed=7, day=days.today() - dt.timedelta(days=1))
    practice = client.post(f"/api/v1/daily/{yesterday.date}/klondike/attempts")
    assert practice.status_code == 201 and practice.json()["ranked"] is False, practice.content
