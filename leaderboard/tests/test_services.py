"""Player statistics (streaks, idempotence) and the Redis board kept in step with the database."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
import redis
from django.db import transaction

from games.models import Result
from leaderboard import redis_store
from leaderboard.models import PlayerStats
from leaderboard.selectors.boards import _db_page, leaderboard_page, leaderboard_rank
from leaderboard.selectors.profiles import player_profile
from leaderboard.services import (
    leaderboard_rebuild,
    leaderboard_record_result,
    leaderboard_remove_result,
    player_stats_recompute,
)
from leaderboard.tests.factories import BASE_TIME, make_challenge, make_result, make_user

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 11, 30)


def day(back: int) -> dt.date:
    return TODAY - dt.timedelta(days=back)


def play(player: Any, back: int, *, won: bool = True, game: str = "klondike", **fields: Any) -> Result:
    challenge = make_challenge(date=day(back), game=game)
    return make_result(challenge=challenge, player=player, won=won, **fields)


def stats_of(player: Any, today: dt.date = TODAY) -> tuple[int, int, int, int]:
    s = player_stats_recompute(player_id=player.pk, today=today)
    assert s is not None
    return s.played, s.won, s.current_streak, s.best_streak


# --- Statistics -----------------------------------------------------------------


def test_a_new_player_has_empty_stats() -> None:
    player = make_user()
    assert stats_of(player) == (0, 0, 0, 0)
    stats = PlayerStats.objects.get(player=player)
    assert stats.last_played_date is None and stats.last_won_date is None


def test_a_missed_day_breaks_the_current_streak_and_best_stays() -> None:
    player = make_user()
    for back in (9, 8, 7, 6):  # a run of 4
        play(player, back)
    for back in (4, 3):  # day 5 missed: a new run of 2
        play(player, back)
    assert stats_of(player, today=day(2)) == (6, 6, 2, 4)  # last win yesterday: still current
    assert stats_of(player, today=day(3)) == (6, 6, 2, 4)  # last win today
    assert stats_of(player, today=day(1)) == (6, 6, 0, 4)  # last win the day before yesterday: broken
    stats = PlayerStats.objects.get(player=player)
    assert (stats.last_played_date, stats.last_won_date) == (day(3), day(3))


def test_a_lost_day_breaks_the_run_and_counts_as_played() -> None:
    player = make_user()
    play(player, 3)
    play(player, 2, won=False)
    play(player, 1)
    play(player, 0)
    assert stats_of(player) == (4, 3, 2, 2)
    assert PlayerStats.objects.get(player=player).last_played_date == TODAY


def test_several_games_on_one_day_count_once_in_a_streak() -> None:
    player = make_user()
    play(player, 1, game="klondike")
    play(player, 1, game="lucas")
    play(player, 0, game="maria", won=False)
    play(player, 0, game="josephine")
    assert stats_of(player) == (4, 3, 2, 2)


def test_streaks_follow_the_challenge_date_not_the_finish_time() -> None:
    player = make_user()
    # Both finished on the same instant, but they are the challenges of two consecutive days.
    finish = dt.datetime.combine(TODAY, dt.time(0, 30), tzinfo=dt.UTC)
    play(player, 1, finished_at=finish)
    play(player, 0, finished_at=finish, game="lucas")
    assert stats_of(player) == (2, 2, 2, 2)


def test_only_ranked_valid_undisqualified_results_count() -> None:
    player = make_user()
    play(player, 2)
    play(player, 1, ranked=False)  # practice
    play(player, 1, game="lucas", disqualified=True)
    play(player, 1, game="maria", status="invalid")
    play(player, 0, assisted=True)  # assisted still counts
    assert stats_of(player) == (2, 2, 1, 1)


def test_recompute_is_idempotent() -> None:
    player = make_user()
    for back in (5, 4, 2, 1):
        play(player, back)
    first = stats_of(player)
    second = stats_of(player)
    assert first == second == (4, 4, 2, 2)
    assert PlayerStats.objects.filter(player=player).count() == 1


def test_profile_reads_the_current_streak_as_of_today() -> None:
    player = make_user("streaker")
    play(player, 2)
    play(player, 1)
    player_stats_recompute(player_id=player.pk, today=TODAY)
    assert player_profile(username="streaker", today=TODAY).current_streak == 2
    # Two days later without playing: the stored row is not rewritten, the read decays it.
    assert player_profile(username="streaker", today=TODAY + dt.timedelta(days=2)).current_streak == 0
    assert player_profile(username="streaker", today=TODAY + dt.timedelta(days=2)).best_streak == 2


# --- Record / remove ---------------------------------------------------------------


def test_record_result_recomputes_the_stats(
    django_capture_on_commit_callbacks: Callable[..., Any], backend: str
) -> None:
    challenge = make_challenge(date=day(0))
    result = make_result(challenge=challenge, score=300)
    with django_capture_on_commit_callbacks(execute=True):
        leaderboard_record_result(result_id=result.pk, today=TODAY)
        leaderboard_record_result(result_id=result.pk, today=TODAY)  # twice: harmless
    assert stats_of(result.player) == (1, 1, 1, 1)
    assert leaderboard_rank(challenge=challenge, player=result.player) == 1


def test_record_and_remove_keep_the_redis_board_in_step(
    redis_client: redis.Redis, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    challenge = make_challenge(date=day(0))
    early = [make_result(challenge=challenge, score=100 * i) for i in range(1, 4)]
    assert leaderboard_page(challenge=challenge, offset=0, limit=10).source == "redis"  # built

    late = make_result(challenge=challenge, score=250)
    assisted = make_result(challenge=challenge, score=1000, assisted=True)
    practice = make_result(challenge=challenge, score=2000, ranked=False, player=early[0].player)
    with django_capture_on_commit_callbacks(execute=True):
        for result in (late, assisted, practice):
            leaderboard_record_result(result_id=result.pk, today=TODAY)

    keys = redis_store.board_keys(challenge=challenge)
    with mock.patch.object(redis_store, "board_rebuild") as rebuild:
        page = leaderboard_page(challenge=challenge, offset=0, limit=10)
        clean = leaderboard_page(challenge=challenge, offset=0, limit=10, clean=True)
    rebuild.assert_not_called()  # served by the incremental writes, not a rebuild
    assert page.source == "redis"
    assert [e.score for e in page.entries] == [1000, 300, 250, 200, 100]
    assert [e.score for e in clean.entries] == [300, 250, 200, 100]
    assert redis_client.zcard(keys.all) == 5

    Result.objects.filter(pk=early[2].pk).update(disqualified=True)
    with django_capture_on_commit_callbacks(execute=True):
        leaderboard_remove_result(result_id=early[2].pk, today=TODAY)
        leaderboard_remove_result(result_id=early[2].pk, today=TODAY)
    with mock.patch.object(redis_store, "board_rebuild") as rebuild:
        page = leaderboard_page(challenge=challenge, offset=0, limit=10)
    rebuild.assert_not_called()
    assert [e.score for e in page.entries] == [1000, 250, 200, 100]
    assert page.entries == _db_page(challenge=challenge, offset=0, limit=10, clean=False).entries
    assert leaderboard_rank(challenge=challenge, player=early[2].player) is None
    assert stats_of(early[2].player) == (0, 0, 0, 0)


def test_redis_is_written_only_after_commit(
    redis_client: redis.Redis, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    challenge = make_challenge(date=day(0))
    make_result(challenge=challenge, score=100)
    leaderboard_page(challenge=challenge, offset=0, limit=10)  # built
    keys = redis_store.board_keys(challenge=challenge)
    result = make_result(challenge=challenge, score=500)

    with django_capture_on_commit_callbacks(execute=False) as callbacks, transaction.atomic():
        leaderboard_record_result(result_id=result.pk, today=TODAY)
        assert redis_client.zcard(keys.all) == 1
    assert redis_client.zcard(keys.all) == 1
    assert len(callbacks) == 1
    callbacks[0]()
    assert redis_client.zcard(keys.all) == 2


def test_a_redis_failure_while_recording_is_not_an_error(
    redis_client: redis.Redis, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    challenge = make_challenge(date=day(0))
    first = make_result(challenge=challenge, score=100)
    leaderboard_page(challenge=challenge, offset=0, limit=10)  # built
    second = make_result(challenge=challenge, score=500)
    with (
        mock.patch.object(redis_store, "board_put", side_effect=redis.ConnectionError("down")),
        django_capture_on_commit_callbacks(execute=True),
    ):
        leaderboard_record_result(result_id=second.pk, today=TODAY)
    assert stats_of(second.player) == (1, 1, 1, 1)
    # The board was dropped, so the next read rebuilds it with the new result.
    page = leaderboard_page(challenge=challenge, offset=0, limit=10)
    assert page.source == "redis"
    assert [e.result_id for e in page.entries] == [second.pk, first.pk]


def test_a_write_during_a_rebuild_is_not_lost(redis_client: redis.Redis) -> None:
    challenge = make_challenge(date=day(0))
    make_result(challenge=challenge, score=100)
    keys = redis_store.board_keys(challenge=challenge)
    late = make_result(challenge=challenge, score=900)
    late_row = redis_store.BoardRow(
        result_id=late.pk,
        player_id=late.player_id,
        won=True,
        score=900,
        moves=late.moves,
        play_time_ms=late.play_time_ms,
        finished_at=late.finished_at,
        assisted=False,
    )
    calls = 0

    def rows_without_the_late_result() -> list[redis_store.BoardRow]:
        nonlocal calls
        calls += 1
        from leaderboard.selectors.boards import leaderboard_board_rows

        rows = [r for r in leaderboard_board_rows(challenge=challenge) if calls > 1 or r.result_id != late.pk]
        if calls == 1:  # the late result's writer runs between the read and the EXEC
            redis_store.board_put(redis_client, keys, late_row)
        return rows

    assert redis_store.board_rebuild(redis_client, keys, rows_without_the_late_result)
    assert calls == 2  # the first EXEC was aborted by the version bump
    assert redis_store.board_page(redis_client, keys, clean=False, start=0, stop=-1)[1][0] == late.pk


def test_rebuild_service() -> None:
    challenge = make_challenge(date=day(0))
    for i in range(5):
        make_result(challenge=challenge, score=i)
    if redis_store.get_client() is None:
        assert leaderboard_rebuild(challenge_id=challenge.pk) is False
        return
    assert leaderboard_rebuild(challenge_id=challenge.pk) is True
    with mock.patch.object(redis_store, "board_rebuild") as rebuild:
        page = leaderboard_page(challenge=challenge, offset=0, limit=10)
    rebuild.assert_not_called()
    assert [e.score for e in page.entries] == [4, 3, 2, 1, 0]


def test_finish_time_is_encoded_to_the_microsecond() -> None:
    at = BASE_TIME + dt.timedelta(microseconds=7)
    assert redis_store.finished_us(at) == int(BASE_TIME.timestamp()) * 10**6 + 7
