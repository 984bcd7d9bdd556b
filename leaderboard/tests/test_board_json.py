"""The board endpoint builds its JSON by hand (``leaderboard.serializers.entry_data`` and ``board_data``: DRF's
field machinery cost more than the rest of a page). Here the hand-built answer is held to what the
endpoint's own serializer (``LeaderboardApi.OutputSerializer``, the schema's) makes of the same board:
for many generated boards (unicode names, ties, links or none, a caller with or without a place), and
through the endpoint on a real board with guests, ties and held results."""

from __future__ import annotations

import datetime as dt
import json
import random
from types import SimpleNamespace
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.models import Guest, Result
from leaderboard.apis import LeaderboardApi, render_board
from leaderboard.selectors.boards import BoardMe, BoardView, LeaderboardEntry, leaderboard_view
from leaderboard.serializers import board_data
from leaderboard.tests.factories import BASE_TIME, make_challenge, make_result, make_user

NAMES = ["ada", "Zoë", "山田太郎", "مريم", "o'brien", 'quote"d', "back\\slash", "line\u2028sep", "😀👍🏽", "x" * 150]


def _links(attempt: int | None) -> dict[str, Any]:
    """The links as the URL configuration spells them (reverse per entry, as a serializer would)."""
    if attempt is None:
        return {"attempt": None, "replay": None, "review": None}
    kwargs = {"attempt_id": attempt}
    return {
        "attempt": attempt,
        "replay": reverse("attempt-replay", kwargs=kwargs),
        "review": reverse("attempt-review", kwargs=kwargs),
    }


def _instance(entry: LeaderboardEntry, attempts: dict[int, int] | None) -> SimpleNamespace:
    links = _links(None if attempts is None else attempts.get(entry.result_id))
    return SimpleNamespace(**{f: getattr(entry, f) for f in entry.__dataclass_fields__}, seconds=entry.seconds, **links)


def serialized(view: BoardView) -> dict[str, Any]:
    """The serializer's answer for the view, as JSON gives it back."""
    data: dict[str, Any] = {
        "date": view.date,
        "game": view.game,
        "board": "day" if view.clean else "all",
        "total": view.total,
        "offset": view.offset,
        "limit": view.limit,
        "entries": [_instance(e, view.attempts) for e in view.entries],
    }
    if view.me is not None:
        entry = None if view.me.entry is None else _instance(view.me.entry, view.attempts)
        data["me"] = {"rank": view.me.rank, "entry": entry}
    rendered: dict[str, Any] = json.loads(json.dumps(LeaderboardApi.OutputSerializer(data).data))
    return rendered


def _entry(rng: random.Random, rank: int, result_id: int) -> LeaderboardEntry:
    seconds, micro = rng.choice([0, 1, 59, 86_399]), rng.choice([0, 1, 999_999])
    finished = BASE_TIME + dt.timedelta(seconds=seconds, microseconds=micro)
    return LeaderboardEntry(
        rank=rank,
        result_id=result_id,
        player_id=rng.randrange(1, 10**6),
        player=rng.choice(NAMES) + str(rng.randrange(3)),
        won=rng.random() < 0.7,
        score=rng.choice([0, 1, 500, 712, 4095, 10_000]),  # ties: few values
        moves=rng.choice([0, 1, 144, 8191, 9000]),
        play_time_ms=rng.choice([0, 1, 999, 1000, 67_410, 2**27]),
        finished_at=finished,
        assisted=rng.random() < 0.3,
    )


def _view(rng: random.Random) -> BoardView:
    offset = rng.choice([0, 0, 1, 50, 10**9])
    entries = [_entry(rng, offset + i + 1, rng.randrange(1, 10**9)) for i in range(rng.randrange(0, 60))]
    attempts = None
    if rng.random() < 0.5:  # the day is over: most results link, an unknown one does not
        attempts = {e.result_id: rng.randrange(1, 10**9) for e in entries if rng.random() < 0.9}
    me = None
    if rng.random() < 0.6:
        mine = rng.choice(entries) if entries and rng.random() < 0.7 else None
        me = BoardMe(rank=None if mine is None else mine.rank, entry=mine)
    total = offset + len(entries) + rng.randrange(0, 1000)
    day = dt.date(2026, 1, 1) + dt.timedelta(days=rng.randrange(0, 2000))
    game, clean = rng.choice(["klondike", "spider"]), rng.random() < 0.5
    return BoardView(day, game, clean, total, offset, 50, entries, me, attempts)


@pytest.mark.parametrize("zone", ["UTC", "Europe/Paris", "America/St_Johns"])
def test_the_hand_built_board_is_the_serializers_for_generated_boards(zone: str) -> None:
    rng = random.Random(49)
    with timezone.override(zone):  # times are written in the current time zone
        for _ in range(400):
            view = _view(rng)
            expected = serialized(view)
            assert board_data(view) == expected
            assert json.loads(render_board(view)) == expected  # the cached top page's text too


def test_the_comparison_can_fail() -> None:
    """A hand-built answer that drifted from the serializer is caught (a changed time, a lost link)."""
    rng = random.Random(50)
    entry = _entry(rng, 1, 7)
    view = BoardView(dt.date(2026, 5, 1), "klondike", True, 1, 0, 50, [entry], None, {7: 70})
    drifted = board_data(view)
    drifted["entries"][0]["time"] = entry.play_time_ms  # milliseconds, not seconds
    assert drifted != serialized(view)
    unlinked = board_data(BoardView(dt.date(2026, 5, 1), "klondike", True, 1, 0, 50, [entry], None, {}))
    assert unlinked != serialized(view)


DAY = dt.date(2026, 11, 20)


@pytest.mark.django_db
@pytest.mark.parametrize("over", [False, True], ids=["the day", "after the day"])
def test_the_endpoint_answers_what_the_serializer_makes_of_its_board(backend: str, over: bool) -> None:
    """Through the endpoint, for anonymous callers, players on the board, a guest and a held player:
    ties, unicode names, pages, neighbourhoods and both boards."""
    challenge = make_challenge(date=DAY)
    rng = random.Random(7)
    players = []
    for i in range(40):
        player = make_user(f"{NAMES[i % len(NAMES)][:140]}{i}")
        players.append(player)
        make_result(
            challenge=challenge,
            player=player,
            won=i % 3 != 0,
            score=rng.choice([500, 712]),  # ties on every field but the finish
            moves=rng.choice([120, 144]),
            play_time_ms=rng.choice([60_000, 67_410]),
            finished_at=BASE_TIME + dt.timedelta(seconds=i // 4),  # four results a second: ties to the second
            assisted=i % 5 == 0,
        )
    guest = make_user("guest-player")
    Guest.objects.create(user=guest)
    make_result(challenge=challenge, player=guest, score=9000)  # counted, on no public board
    held = make_user("held-player")
    result = make_result(challenge=challenge, player=held, score=9000)
    Result.objects.filter(pk=result.pk).update(held=True)

    now = dt.datetime.combine(DAY + dt.timedelta(days=1 if over else 0), dt.time(12), tzinfo=dt.UTC)
    path = f"/api/v1/leaderboards/{DAY}/klondike"
    callers: list[Any] = [None, players[0], players[7], players[39], guest, held]
    queries = [
        {},
        {"limit": "7"},
        {"offset": "5", "limit": "10"},
        {"board": "all"},
        {"board": "all", "offset": "30"},
        {"around": "me"},
        {"around": "me", "board": "all"},
        {"offset": "1000"},
    ]
    with time_machine.travel(now, tick=False):
        for caller in callers:
            client = Client()
            if caller is not None:
                client.force_login(caller)
            for query in queries:
                if caller is None and "around" in query:
                    continue
                response = client.get(path, query)
                assert response.status_code == 200, (caller, query, response.content[:300])
                clean = query.get("board", "day") == "day"
                view = leaderboard_view(
                    date=DAY,
                    game="klondike",
                    clean=clean,
                    offset=int(query.get("offset", 0)),
                    limit=int(query.get("limit", 50)),
                    player=caller,
                    around="around" in query,
                )
                assert response.json() == serialized(view), (caller, query)
                names = [e["player"] for e in response.json()["entries"]]
                assert "guest-player" not in names and "held-player" not in names
                if caller in (guest, held):
                    assert response.json()["me"] == {"rank": None, "entry": None}
