"""Board order, membership, pages, ranks and profiles, on both read paths."""

from __future__ import annotations

import datetime as dt
import random
from typing import Any
from unittest import mock

import pytest
import redis
from pytest_django import Settings

from games.models import Result, Submission
from leaderboard import redis_store
from leaderboard.selectors.boards import _db_page, _db_rank, leaderboard_around, leaderboard_page, leaderboard_rank
from leaderboard.selectors.profiles import player_profile
from leaderboard.tests.factories import BASE_TIME, make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 20)


def t(seconds: float) -> dt.datetime:
    return BASE_TIME + dt.timedelta(seconds=seconds)


def names(page_entries: list) -> list[str]:  # type: ignore[type-arg]
    return [e.player for e in page_entries]


def test_order_follows_every_tie_breaker(backend: str) -> None:
    challenge = make_challenge(date=DAY)
    same_finish = t(100)
    rows = {
        # name: (won, score, moves, play_time_ms, finished_at)
        "lost_high_score": (False, 900, 50, 1000, t(1)),
        "lost_low_score": (False, 100, 50, 1000, t(1)),
        "won_low_score": (True, 300, 200, 9000, t(50)),
        "won_high_score": (True, 800, 300, 9000, t(50)),
        "fewer_moves": (True, 500, 100, 9000, t(50)),
        "more_moves": (True, 500, 101, 9000, t(50)),
        "shorter_time": (True, 400, 100, 5000, t(50)),
        "longer_time": (True, 400, 100, 5001, t(50)),
        "earlier_finish": (True, 350, 100, 5000, t(10)),
        "later_finish": (True, 350, 100, 5000, t(11)),
    }
    # Created in scrambled order; the two full ties get ids in a known order.
    for name in random.Random(4).sample(sorted(rows), len(rows)):
        won, score, moves, ms, finished = rows[name]
        make_result(
            challenge=challenge,
            player=make_user(name),
            won=won,
            score=score,
            moves=moves,
            play_time_ms=ms,
            finished_at=finished,
        )
    make_result(challenge=challenge, player=make_user("tie_lower_id"), score=350, moves=100, finished_at=same_finish)
    make_result(challenge=challenge, player=make_user("tie_higher_id"), score=350, moves=100, finished_at=same_finish)

    page = leaderboard_page(challenge=challenge, offset=0, limit=50)

    assert page.source == backend
    assert names(page.entries) == [
        "won_high_score",
        "fewer_moves",
        "more_moves",
        "shorter_time",
        "longer_time",
        "earlier_finish",
        "later_finish",
        "tie_lower_id",
        "tie_higher_id",
        "won_low_score",
        "lost_high_score",
        "lost_low_score",
    ]
    assert [e.rank for e in page.entries] == list(range(1, 13))
    assert page.total == 12


def test_only_ranked_valid_undisqualified_results_of_the_challenge(backend: str) -> None:
    challenge = make_challenge(date=DAY)
    other_game = make_challenge(date=DAY, game="forty-thieves")
    other_day = make_challenge(date=DAY - dt.timedelta(days=1))
    make_result(challenge=challenge, player=make_user("counted"), score=10)
    practiser = make_user("practiser")
    make_result(challenge=challenge, player=practiser, ranked=False, score=999)
    make_result(challenge=challenge, player=make_user("cheat"), disqualified=True, score=999)
    make_result(challenge=challenge, player=make_user("pending"), status=Submission.Status.PENDING, score=999)
    make_result(challenge=other_game, player=make_user("elsewhere"), score=999)
    make_result(challenge=other_day, player=make_user("yesterday"), score=999)

    page = leaderboard_page(challenge=challenge, offset=0, limit=50)

    assert names(page.entries) == ["counted"]
    assert page.total == 1
    assert leaderboard_rank(challenge=challenge, player=practiser) is None


def test_assisted_results_are_marked_and_left_out_of_the_clean_board(backend: str) -> None:
    challenge = make_challenge(date=DAY)
    make_result(challenge=challenge, player=make_user("helped"), score=900, assisted=True)
    make_result(challenge=challenge, player=make_user("alone"), score=800)
    make_result(challenge=challenge, player=make_user("alone2"), score=700)

    full = leaderboard_page(challenge=challenge, offset=0, limit=50)
    clean = leaderboard_page(challenge=challenge, offset=0, limit=50, clean=True)

    assert [(e.player, e.rank, e.assisted) for e in full.entries] == [
        ("helped", 1, True),
        ("alone", 2, False),
        ("alone2", 3, False),
    ]
    assert [(e.player, e.rank) for e in clean.entries] == [("alone", 1), ("alone2", 2)]
    assert (full.total, clean.total) == (3, 2)
    helped = full.entries[0]
    assert leaderboard_rank(challenge=challenge, player=helped.player_id) == 1
    assert leaderboard_rank(challenge=challenge, player=helped.player_id, clean=True) is None
    assert leaderboard_rank(challenge=challenge, player=full.entries[2].player_id, clean=True) == 2


def test_pages(backend: str) -> None:
    challenge = make_challenge(date=DAY)
    for i in range(23):
        make_result(challenge=challenge, player=make_user(f"p{i:02d}"), score=1000 - i)

    first = leaderboard_page(challenge=challenge, offset=0, limit=10)
    third = leaderboard_page(challenge=challenge, offset=20, limit=10)
    beyond = leaderboard_page(challenge=challenge, offset=40, limit=10)

    assert names(first.entries) == [f"p{i:02d}" for i in range(10)]
    assert [e.rank for e in third.entries] == [21, 22, 23]
    assert names(third.entries) == ["p20", "p21", "p22"]
    assert beyond.entries == [] and beyond.total == 23
    assert {first.total, third.total} == {23}
    entry = first.entries[0]
    assert (entry.won, entry.score, entry.moves, entry.play_time_ms, entry.seconds) == (True, 1000, 120, 300000, 300.0)


def test_rank_and_around(backend: str) -> None:
    challenge = make_challenge(date=DAY)
    players = [make_user(f"p{i:02d}") for i in range(20)]
    for i, player in enumerate(players):
        make_result(challenge=challenge, player=player, score=1000 - i)
    nobody = make_user("nobody")

    assert leaderboard_rank(challenge=challenge, player=players[9]) == 10
    middle = leaderboard_around(challenge=challenge, player=players[9], radius=3)
    top = leaderboard_around(challenge=challenge, player=players[1], radius=3)
    bottom = leaderboard_around(challenge=challenge, player=players[19], radius=3)
    absent = leaderboard_around(challenge=challenge, player=nobody, radius=3)

    assert middle.rank == 10 and [e.rank for e in middle.entries] == list(range(7, 14))
    assert names(middle.entries)[3] == "p09"
    assert top.rank == 2 and [e.rank for e in top.entries] == [1, 2, 3, 4, 5]
    assert bottom.rank == 20 and [e.rank for e in bottom.entries] == [17, 18, 19, 20]
    assert (absent.rank, absent.entries, absent.total) == (None, [], 20)


def test_profile_has_stats_and_recent_results_with_ranks(no_redis: None) -> None:
    me = make_user("me")
    today = dt.date(2026, 11, 20)
    for back in range(35):
        day = today - dt.timedelta(days=back)
        challenge = make_challenge(date=day)
        make_result(challenge=challenge, score=900)  # somebody better every day
        make_result(challenge=challenge, player=me, score=500, won=back % 2 == 0)
    make_result(challenge=make_challenge(date=today, game="lucas"), player=me, ranked=False)  # practice: not listed

    profile = player_profile(username="me", today=today)

    assert (profile.username, profile.played, profile.won) == ("me", 35, 18)
    assert profile.win_rate == round(18 / 35, 4)
    assert (profile.current_streak, profile.best_streak) == (1, 1)
    assert len(profile.recent) == 30
    assert [r.date for r in profile.recent] == [today - dt.timedelta(days=b) for b in range(30)]
    assert {r.rank for r in profile.recent} == {2}
    assert {r.game for r in profile.recent} == {"klondike"}


def test_profile_of_unknown_player_is_an_error() -> None:
    from leaderboard.errors import PlayerNotFound

    with pytest.raises(PlayerNotFound):
        player_profile(username="ghost")


# --- Redis ------------------------------------------------------------------------------


def test_sort_key_fits_53_bits_and_orders_like_the_ranking() -> None:
    worst = redis_store.sort_key(won=False, score=0, moves=10**6, play_time_ms=10**12)
    assert worst < 2**53 and float(worst) == worst
    best = redis_store.sort_key(won=True, score=10**6, moves=0, play_time_ms=0)
    assert best == 0
    assert redis_store.sort_key(won=True, score=0, moves=8191, play_time_ms=2**27) < redis_store.sort_key(
        won=False, score=4095, moves=0, play_time_ms=0
    )


def _redis_position(won: bool, score: int, moves: int, ms: int, finished: float, result_id: int) -> tuple[int, str]:
    """Where Redis puts an entry: by score, then by member bytes (ASCII, so like str order)."""
    key = redis_store.sort_key(won=won, score=score, moves=moves, play_time_ms=ms)
    at = t(finished)
    return key, redis_store.member(score=score, moves=moves, play_time_ms=ms, finished_at=at, result_id=result_id)


def test_members_keep_the_order_exact_beyond_the_caps() -> None:
    expected = [
        _redis_position(True, 5000, 9000, 2**28, 9, 1),  # capped score: the higher one first, whatever follows
        _redis_position(True, 4095, 10, 10, 1, 2),
        _redis_position(True, 4094, 8191, 10, 5, 3),  # capped moves: the fewer first
        _redis_position(True, 4094, 9000, 10, 1, 4),
        _redis_position(True, 4094, 9000, 2**27 - 1, 0, 5),
        _redis_position(True, 100, 9000, 2**28, 0, 6),
        _redis_position(True, 100, 9000, 2**28, 1, 7),  # then the finish
        _redis_position(True, 100, 9000, 2**28, 1, 8),  # then the id
        _redis_position(False, 10**6, 0, 0, 0, 9),  # a loss after every win
    ]
    assert sorted(expected) == expected
    assert redis_store.member_result_id(expected[-1][1]) == 9


def test_redis_position_equals_the_ranking_around_every_cap() -> None:
    rng = random.Random(53)
    scores = [0, 1, 4094, 4095, 4096, 10**6]
    moves = [0, 1, 8190, 8191, 8192, 10**5]
    times = [0, 1, 2**27 - 2, 2**27 - 1, 2**27, 2**40]
    rows = [
        (rng.random() < 0.5, rng.choice(scores), rng.choice(moves), rng.choice(times), rng.randint(0, 3), i)
        for i in range(3000)
    ]
    by_ranking = sorted(rows, key=lambda r: (not r[0], -r[1], r[2], r[3], r[4], r[5]))
    by_redis = sorted(rows, key=lambda r: _redis_position(*r))
    assert by_redis == by_ranking


def test_redis_order_equals_the_database_order_on_a_random_board(redis_client: redis.Redis) -> None:
    rng = random.Random(20261130)
    challenge = make_challenge(date=DAY)
    for i in range(200):
        # Narrow ranges so that every tie-breaker is needed somewhere.
        make_result(
            challenge=challenge,
            player=make_user(f"r{i:03d}"),
            won=rng.random() < 0.6,
            score=rng.choice([0, 5, 10, 4095, 5000]) if i % 50 == 0 else rng.randint(0, 6) * 10,
            moves=rng.choice([9000, 8191, 10000]) if i % 40 == 0 else rng.randint(90, 93),
            play_time_ms=rng.randint(1000, 1003) if i % 30 else 2**27 + rng.randint(0, 2),
            finished_at=t(rng.randint(0, 20) + rng.choice([0, 0.000001])),
            assisted=rng.random() < 0.2,
        )

    for clean in (False, True):
        via_db = _db_page(challenge=challenge, offset=0, limit=500, clean=clean)
        via_redis = leaderboard_page(challenge=challenge, offset=0, limit=500, clean=clean)
        assert via_redis.source == "redis"
        assert [e.result_id for e in via_redis.entries] == [e.result_id for e in via_db.entries]
        assert via_redis.total == via_db.total == len(via_db.entries)
        assert via_redis.entries == via_db.entries
        pages = [leaderboard_page(challenge=challenge, offset=o, limit=17, clean=clean) for o in range(0, 200, 17)]
        assert [e for p in pages for e in p.entries] == via_db.entries
        for entry in via_db.entries[::7]:
            assert leaderboard_rank(challenge=challenge, player=entry.player_id, clean=clean) == entry.rank
            assert _db_rank(challenge=challenge, player_id=entry.player_id, clean=clean) == entry.rank


@pytest.mark.parametrize("lost", ["everything", "members", "all", "clean"])
def test_a_flushed_board_is_rebuilt_on_the_next_read(redis_client: redis.Redis, lost: str) -> None:
    challenge = make_challenge(date=DAY)
    for i in range(30):
        make_result(challenge=challenge, player=make_user(f"f{i:02d}"), score=i * 7 % 11, assisted=i % 4 == 0)
    before = leaderboard_page(challenge=challenge, offset=0, limit=100)
    before_clean = leaderboard_page(challenge=challenge, offset=0, limit=100, clean=True)
    keys = redis_store.board_keys(challenge=challenge)
    assert before.source == "redis" and redis_client.exists(keys.members)

    if lost == "everything":
        redis_client.delete(keys.all, keys.clean, keys.members, keys.version)
    else:
        redis_client.delete(getattr(keys, lost))

    with mock.patch.object(redis_store, "board_rebuild", wraps=redis_store.board_rebuild) as rebuild:
        after = leaderboard_page(challenge=challenge, offset=0, limit=100)
    assert rebuild.call_count == 1
    assert after.source == "redis"
    assert after.entries == before.entries == _db_page(challenge=challenge, offset=0, limit=100, clean=False).entries
    assert leaderboard_page(challenge=challenge, offset=0, limit=100, clean=True).entries == before_clean.entries
    for entry in before.entries:
        assert leaderboard_rank(challenge=challenge, player=entry.player_id) == entry.rank


def test_redis_errors_fall_back_to_the_database(redis_client: redis.Redis) -> None:
    challenge = make_challenge(date=DAY)
    for i in range(3):
        make_result(challenge=challenge, player=make_user(f"e{i}"), score=i)
    broken = mock.Mock(side_effect=redis.ConnectionError("down"))
    with mock.patch.object(redis.Redis, "pipeline", broken):  # the client leaderboard.redis_store uses
        page = leaderboard_page(challenge=challenge, offset=0, limit=10)
        rank = leaderboard_rank(challenge=challenge, player=page.entries[0].player_id)
    assert page.source == "database"
    assert names(page.entries) == ["e2", "e1", "e0"]
    assert rank == 1


def test_a_stale_board_is_dropped_and_the_database_answers(redis_client: redis.Redis) -> None:
    challenge = make_challenge(date=DAY)
    results = [make_result(challenge=challenge, player=make_user(f"s{i}"), score=10 - i) for i in range(3)]
    assert leaderboard_page(challenge=challenge, offset=0, limit=10).source == "redis"
    # Disqualified behind the leaderboard's back (no leaderboard_remove_result call).
    Result.objects.filter(pk=results[0].pk).update(disqualified=True)

    page = leaderboard_page(challenge=challenge, offset=0, limit=10)
    assert page.source == "database"
    assert names(page.entries) == ["s1", "s2"]
    again = leaderboard_page(challenge=challenge, offset=0, limit=10)
    assert again.source == "redis" and again.entries == page.entries


def test_an_old_board_is_rebuilt_so_a_lost_write_shows_up(redis_client: redis.Redis, settings: Settings) -> None:
    challenge = make_challenge(date=DAY)
    make_result(challenge=challenge, player=make_user("first"), score=10)
    assert leaderboard_page(challenge=challenge, offset=0, limit=10).source == "redis"
    # Committed, but its leaderboard_record_result never ran (say, the process died).
    make_result(challenge=challenge, player=make_user("lost"), score=20)
    assert names(leaderboard_page(challenge=challenge, offset=0, limit=10).entries) == ["first"]

    settings.LEADERBOARD_REDIS_MAX_AGE = 0
    page = leaderboard_page(challenge=challenge, offset=0, limit=10)
    assert page.source == "redis"
    assert names(page.entries) == ["lost", "first"]


def test_an_old_board_is_still_served_if_the_rebuild_keeps_losing(
    redis_client: redis.Redis, settings: Settings
) -> None:
    challenge = make_challenge(date=DAY)
    make_result(challenge=challenge, player=make_user("only"), score=10)
    assert leaderboard_page(challenge=challenge, offset=0, limit=10).source == "redis"
    settings.LEADERBOARD_REDIS_MAX_AGE = 0
    with mock.patch.object(redis_store, "board_rebuild", return_value=False) as rebuild:
        page = leaderboard_page(challenge=challenge, offset=0, limit=10)
    assert rebuild.call_count == 1
    assert page.source == "redis" and names(page.entries) == ["only"]


def test_default_prefix_names_the_database(settings: Settings) -> None:
    from django.db import connection

    settings.LEADERBOARD_REDIS_PREFIX = None
    name = str(connection.settings_dict["NAME"])
    assert redis_store.prefix().startswith("dp:lb:")
    if connection.vendor == "postgresql":
        assert redis_store.prefix().startswith(f"dp:lb:{name}.")
    challenge = make_challenge(date=DAY)
    keys = redis_store.board_keys(challenge=challenge)
    assert keys.all == f"{redis_store.prefix()}:{{{DAY.isoformat()}:klondike:{challenge.pk}}}:all"


@pytest.mark.parametrize("clean", [False, True])
def test_the_compiled_entries_query_reads_what_the_orm_reads(clean: bool) -> None:
    """Board entries read by the ORM's query compiled once (stand-in values replaced): the same rows
    as the ORM's own, whatever the ids (counted or not, repeated, another board's, unknown)."""
    from leaderboard.selectors.boards import _entry_rows, _entry_rows_query

    challenge, other = make_challenge(date=DAY), make_challenge(date=DAY, game="klondike-3")
    kinds: list[dict[str, Any]] = [  # make_result's keywords
        {},
        {"assisted": True},
        {"disqualified": True},
        {"ranked": False},
        {"status": Submission.Status.INVALID},
        {"status": Submission.Status.PENDING},
    ]
    results = [
        make_result(challenge=challenge, player=make_user(f"c{i}"), score=i, **kinds[i % len(kinds)]) for i in range(18)
    ]
    results.append(make_result(challenge=other, player=make_user("elsewhere")))
    ids = [r.pk for r in results]
    rng = random.Random(7)
    for n in (1, 2, 5, 11, 19):
        for _ in range(3):
            picked = [*rng.sample(ids, n), max(ids) + 1000]
            picked += picked[:2]  # repeats
            got = sorted(_entry_rows(challenge.pk, picked, clean))
            assert got == sorted(_entry_rows_query(challenge.pk, list(dict.fromkeys(picked)), clean))
    assert {row[0] for row in _entry_rows(challenge.pk, ids, clean)} == {
        r.pk
        for r in results[:18]
        if r.ranked and not r.disqualified and r.submission.status == "valid" and not (clean and r.assisted)
    }


@pytest.mark.parametrize("clean", [False, True])
def test_the_one_round_trip_neighbourhood_is_the_databases(
    clean: bool, redis_client: redis.Redis, settings: Settings
) -> None:
    """Every player and radius: the neighbourhood read from Redis in one script equals the one the
    database computes (rank, total, the entries and their ranks), ties and assisted results included."""
    challenge = make_challenge(date=DAY)
    rng = random.Random(11)
    players = [make_user(f"n{i:02d}") for i in range(14)]
    for player in players[:12]:
        make_result(
            challenge=challenge,
            player=player,
            score=rng.choice([500, 600, 700]),
            moves=rng.choice([100, 120]),
            assisted=rng.random() < 0.3,
        )
    make_result(challenge=challenge, player=players[12], ranked=False)
    via_redis = {}
    for player in players:
        for radius in range(5):
            found = leaderboard_around(challenge=challenge, player=player, radius=radius, clean=clean)
            assert found.source == "redis"
            via_redis[player.pk, radius] = found
    settings.REDIS_URL = ""
    for (player_id, radius), found in via_redis.items():
        expected = leaderboard_around(challenge=challenge, player=player_id, radius=radius, clean=clean)
        assert (found.rank, found.total, found.entries) == (expected.rank, expected.total, expected.entries)


def test_a_stale_neighbourhood_is_dropped_and_the_database_answers(redis_client: redis.Redis) -> None:
    challenge = make_challenge(date=DAY)
    players = [make_user(f"t{i}") for i in range(5)]
    results = [make_result(challenge=challenge, player=p, score=10 - i) for i, p in enumerate(players)]
    assert leaderboard_around(challenge=challenge, player=players[2], radius=1).source == "redis"
    Result.objects.filter(pk=results[1].pk).update(disqualified=True)  # behind the board's back
    around = leaderboard_around(challenge=challenge, player=players[2], radius=1)
    # The stale board was dropped; the answer comes from the board built again from the database.
    assert (around.rank, around.total, names(around.entries)) == (2, 4, ["t0", "t2", "t3"])


def test_read_scripts_are_sent_whole_when_redis_has_forgotten_them(redis_client: redis.Redis) -> None:
    """After SCRIPT FLUSH (a restarted or failed-over Redis) the first call by digest fails with
    NOSCRIPT; the read then sends the script itself and answers as before."""
    challenge = make_challenge(date=DAY)
    players = [make_user(f"f{i}") for i in range(3)]
    for i, player in enumerate(players):
        make_result(challenge=challenge, player=player, score=10 - i)
    first = leaderboard_around(challenge=challenge, player=players[1], radius=1)
    redis_client.script_flush()
    again = leaderboard_around(challenge=challenge, player=players[1], radius=1)
    assert first.rank == 2 and again.source == "redis"
    assert (again.rank, again.entries) == (first.rank, first.entries)
    assert redis_client.script_exists(redis_store._AROUND_SHA) == [True]
