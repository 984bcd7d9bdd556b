"""League boards: the public order restricted to members, and the all-time table."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from pytest_django import Settings

from games.models import Submission
from leaderboard.errors import BoardNotFound
from leaderboard.selectors.boards import leaderboard_page
from leaderboard.tests.factories import BASE_TIME, make_challenge, make_result, make_user
from leagues.models import League, Membership
from leagues.selectors import (
    league_alltime_board,
    league_daily_board,
    league_members,
    league_start_day,
    leagues_of_player,
)
from leagues.tests.factories import make_league

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 20)


def t(seconds: float) -> dt.datetime:
    return BASE_TIME + dt.timedelta(seconds=seconds)


def test_daily_board_is_the_public_board_restricted_to_members() -> None:
    challenge = make_challenge(date=DAY)
    rng = random.Random(7)
    players = [make_user(f"p{i:02d}") for i in range(30)]
    for player in players:
        # Few distinct values, so that every tie-breaker is used.
        make_result(
            challenge=challenge,
            player=player,
            won=rng.random() < 0.7,
            score=rng.choice([300, 500]),
            moves=rng.choice([100, 120]),
            play_time_ms=rng.choice([60_000, 90_000]),
            finished_at=t(rng.choice([1, 2])),
            assisted=rng.random() < 0.2,
        )
    members = rng.sample(players, 12)
    league = make_league(owner=members[0], members=members[1:])
    # Results that are not on the public board are not on the league's either.
    make_result(challenge=challenge, player=members[0], ranked=False, score=9999)
    outsider = make_user("outsider")
    make_result(challenge=challenge, player=outsider, score=9999)
    make_league(owner=outsider, members=members[:3])  # another league changes nothing
    dq, invalid = make_user("dq"), make_user("invalid")
    make_result(challenge=challenge, player=dq, score=9999, disqualified=True)
    make_result(challenge=challenge, player=invalid, score=9999, status=Submission.Status.INVALID)
    Membership.objects.bulk_create([Membership(league=league, player=dq), Membership(league=league, player=invalid)])
    # A member without a result today is simply absent.
    Membership.objects.create(league=league, player=make_user("idle"))

    public = leaderboard_page(challenge=challenge, offset=0, limit=1000).entries
    member_ids = {m.pk for m in members}
    expected = [e.result_id for e in public if e.player_id in member_ids]

    board = league_daily_board(league=league, day=DAY, game="klondike", offset=0, limit=100, clean=False)
    assert board.total == 12
    assert [e.result_id for e in board.entries] == expected
    assert [e.rank for e in board.entries] == list(range(1, 13))
    # The day's board (the default): the unassisted ones only, as on the public day's board.
    public_day = leaderboard_page(challenge=challenge, offset=0, limit=1000, clean=True).entries
    day = league_daily_board(league=league, day=DAY, game="klondike", offset=0, limit=100)
    assert [e.result_id for e in day.entries] == [e.result_id for e in public_day if e.player_id in member_ids]
    assert {e.assisted for e in day.entries} == {False} and day.total < 12

    page = league_daily_board(league=league, day=DAY, game="klondike", offset=4, limit=5, clean=False)
    assert page.total == 12
    assert [e.result_id for e in page.entries] == expected[4:9]
    assert [e.rank for e in page.entries] == [5, 6, 7, 8, 9]


def test_daily_board_follows_every_tie_breaker() -> None:
    challenge = make_challenge(date=DAY)
    rows = {  # name: (won, score, moves, play_time_ms, finished_at)
        "a_won_high": (True, 800, 300, 9000, t(50)),
        "b_fewer_moves": (True, 500, 100, 9000, t(50)),
        "c_more_moves": (True, 500, 101, 9000, t(50)),
        "d_shorter": (True, 400, 100, 5000, t(50)),
        "e_longer": (True, 400, 100, 5001, t(50)),
        "f_earlier": (True, 350, 100, 5000, t(10)),
        "g_later": (True, 350, 100, 5000, t(11)),
        "h_tie_first_id": (True, 300, 100, 5000, t(5)),
        "i_tie_second_id": (True, 300, 100, 5000, t(5)),
        "j_lost_high": (False, 900, 50, 1000, t(1)),
    }
    users = {name: make_user(name) for name in sorted(rows)}
    # The full tie is created first, in order (its ids decide); the others in a scrambled order.
    scrambled = random.Random(3).sample([*sorted(rows)[:7], "j_lost_high"], 8)
    for name in ["h_tie_first_id", "i_tie_second_id", *scrambled]:
        won, score, moves, ms, finished = rows[name]
        make_result(
            challenge=challenge,
            player=users[name],
            won=won,
            score=score,
            moves=moves,
            play_time_ms=ms,
            finished_at=finished,
        )
    league = make_league(owner=users["j_lost_high"], members=[u for n, u in users.items() if n != "j_lost_high"])
    board = league_daily_board(league=league, day=DAY, game="klondike", offset=0, limit=50)
    assert [e.player for e in board.entries] == sorted(rows)


def test_daily_board_of_a_missing_or_future_challenge_is_not_found() -> None:
    league = make_league(owner=make_user())
    with pytest.raises(BoardNotFound):
        league_daily_board(league=league, day=DAY, game="klondike", offset=0, limit=10)
    make_challenge(date=dt.date(2999, 1, 1))
    with pytest.raises(BoardNotFound):
        league_daily_board(league=league, day=dt.date(2999, 1, 1), game="klondike", offset=0, limit=10)


def test_alltime_board_order_and_totals() -> None:
    created = dt.datetime(2026, 11, 10, 15, 0, tzinfo=dt.UTC)
    before, first, second = dt.date(2026, 11, 9), dt.date(2026, 11, 10), dt.date(2026, 11, 11)
    old, day1, day2 = make_challenge(date=before), make_challenge(date=first), make_challenge(date=second)
    spider = make_challenge(date=second, game="spider")
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus"]
    u = {n: make_user(n) for n in names}
    league = make_league(owner=u["gus"], members=[u[n] for n in names if n != "gus"], created_at=created)
    # ann: 2 wins. bob: 2 wins, less score. cat and dan: 1 win, same score, cat fewer moves.
    # eve and fay: 1 win, same score and moves: by username. gus: nothing counted.
    make_result(challenge=day1, player=u["ann"], score=500, moves=100)
    make_result(challenge=day2, player=u["ann"], score=500, moves=100)
    make_result(challenge=day1, player=u["bob"], score=400, moves=10)
    make_result(challenge=spider, player=u["bob"], score=400, moves=10)
    make_result(challenge=day1, player=u["cat"], score=600, moves=90)
    make_result(challenge=day2, player=u["cat"], won=False, score=100, moves=10)
    make_result(challenge=day1, player=u["dan"], score=700, moves=110)
    make_result(challenge=day1, player=u["eve"], score=300, moves=50)
    make_result(challenge=day2, player=u["fay"], score=300, moves=50)
    # Not counted: before the league's creation day, practice, disqualified, invalid, non-members.
    for player in u.values():
        make_result(challenge=old, player=player, score=5000)
    make_result(challenge=day2, player=u["gus"], ranked=False, score=5000)
    make_result(challenge=day2, player=u["dan"], disqualified=True, score=5000)
    make_result(challenge=day2, player=u["eve"], status=Submission.Status.INVALID, score=5000)
    make_result(challenge=day1, player=make_user("outsider"), score=9000)

    page = league_alltime_board(league=league, offset=0, limit=50)
    assert page.since == first
    assert page.total == 7
    got = [(e.rank, e.player, e.wins, e.played, e.score, e.moves) for e in page.entries]
    assert got == [
        (1, "ann", 2, 2, 1000, 200),
        (2, "bob", 2, 2, 800, 20),
        (3, "cat", 1, 2, 700, 100),
        (4, "dan", 1, 1, 700, 110),
        (5, "eve", 1, 1, 300, 50),
        (6, "fay", 1, 1, 300, 50),
        (7, "gus", 0, 0, 0, 0),
    ]
    page = league_alltime_board(league=league, offset=2, limit=3)
    assert [(e.rank, e.player) for e in page.entries] == [(3, "cat"), (4, "dan"), (5, "eve")]
    assert page.total == 7


def test_the_start_day_follows_the_daily_time_zone(settings: Settings) -> None:
    league = make_league(owner=make_user(), created_at=dt.datetime(2026, 11, 10, 23, 30, tzinfo=dt.UTC))
    assert league_start_day(league=league) == dt.date(2026, 11, 10)
    settings.DAILY_TIMEZONE = "Europe/Paris"
    assert league_start_day(league=league) == dt.date(2026, 11, 11)


def test_leagues_of_player_and_members() -> None:
    ann, bob, cat = make_user("ann"), make_user("bob"), make_user("cat")
    zebra = make_league(owner=ann, name="Zebras", members=[bob, cat])
    apple = make_league(owner=bob, name="Apples", members=[ann])
    make_league(owner=cat, name="Cats only")
    mine = leagues_of_player(player=ann)
    assert mine == [apple, zebra]
    assert [league.member_count for league in mine] == [2, 3]  # type: ignore[attr-defined]  # the annotation (list[League] drops it)
    assert leagues_of_player(player=make_user()) == []
    members = league_members(league=zebra)
    assert [(m.player, m.owner) for m in members] == [("ann", True), ("bob", False), ("cat", False)]
    assert League.objects.count() == 3
