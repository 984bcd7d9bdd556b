"""End to end with a real Celery worker process, PostgreSQL and Redis, as in production.

Register, start today's attempt, play the solver's winning log through the moves
endpoint in batches, submit, poll until the worker has validated it, and find rank 1
on the leaderboard.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.db import connection
from django.test import Client

from games import days
from games.tests.factories import make_challenge
from tests.processes import celery_worker

ROOT = Path(__file__).resolve().parent.parent
WINS = ROOT / "games" / "tests" / "data" / "winning_logs.json"

pytestmark = [
    pytest.mark.broker,
    pytest.mark.slow,
    pytest.mark.redis(reason="a real broker for the worker"),
    pytest.mark.postgres(reason="the worker process needs a database it can share"),
]


def winning_log() -> tuple[str, int, list[str]]:
    """A deal and a log the engine replays to a win, kept as test data (made by the solver)."""
    data = json.loads(WINS.read_text())
    game = "josephine" if "josephine" in data else next(iter(data))
    return game, int(data[game]["seed"]), list(data[game]["moves"])


def database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}:{s['PASSWORD'] or ''}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[Path]:
    """A `celery worker` process reading the test database."""
    from config.celery import app

    app.control.purge()  # nothing left over from an earlier run reaches this worker
    log = tmp_path / "worker.log"
    with celery_worker(log, env={"DATABASE_URL": database_url()}):
        yield log


def api(client: Client, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    if method == "get":
        return client.get(f"/api/v1/{path}", **headers)
    return client.post(f"/api/v1/{path}", json.dumps(body or {}), content_type="application/json", **headers)


@pytest.mark.django_db(transaction=True)
def test_play_submit_validate_rank_through_a_real_worker(worker: Path) -> None:
    game, seed, log = winning_log()
    make_challenge(game=game, seed=seed, solution=log)
    client = Client(HTTP_HOST="localhost")
    registered = api(client, "post", "auth/register", body={"username": "e2e-player", "password": "a long pass 1234"})
    assert registered.status_code == 201, registered.content
    token = registered.json()["token"]

    # At a person's pace by the server's clock (moved: 10 moves every 8 s), or the win is held for review.
    with time_machine.travel(dt.datetime.now(dt.UTC), tick=True) as clock:
        attempt = api(client, "post", f"daily/{days.today()}/{game}/attempts", token)
        assert attempt.status_code == 201 and attempt.json()["ranked"] is True
        attempt_id = attempt.json()["id"]
        for start in range(0, len(log), 10):
            clock.shift(dt.timedelta(seconds=8))
            batch = {"from": start, "moves": log[start : start + 10]}
            response = api(client, "post", f"attempts/{attempt_id}/moves", token, batch)
            assert response.status_code == 200, response.content
        assert response.json()["state"]["won"] is True

        submitted = api(client, "post", f"attempts/{attempt_id}/submit", token)
    assert submitted.status_code == 202, submitted.content
    submission_id = submitted.json()["id"]
    deadline = time.monotonic() + 90
    while True:
        body = api(client, "get", f"submissions/{submission_id}", token).json()
        if body["status"] != "pending" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert body["status"] == "valid", f"{body}\nworker log:\n{worker.read_text()[-3000:]}"
    assert body["result"]["won"] is True and body["result"]["moves"] == len(log)
    assert body["result"]["rank"] == 1

    board = api(client, "get", f"leaderboards/{days.today()}/{game}").json()
    assert board["entries"][0]["rank"] == 1 and board["entries"][0]["player"] == "e2e-player"
    assert board["entries"][0]["won"] is True
