"""Writes: player statistics and the Redis mirror of the boards.

The games app calls :func:`leaderboard_record_result` once the transaction that
validated a submission has committed, and :func:`leaderboard_remove_result`
after a disqualification. Both are idempotent: they recompute from the current
rows rather than apply a delta, so a redelivered task or a second call is
harmless. Redis is only written after the surrounding transaction (if any)
commits, and a Redis failure is logged, never raised: the next read rebuilds
the board from PostgreSQL.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
from collections.abc import Iterable

import redis
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import days as dates
from games.models import Challenge, Result
from leaderboard import redis_store
from leaderboard.models import BoardRepair, PlayerStats
from leaderboard.selectors.boards import leaderboard_board_rows
from leaderboard.selectors.profiles import player_stats_compute

logger = logging.getLogger(__name__)


def player_stats_recompute(*, player_id: int, today: dt.date | None = None) -> PlayerStats | None:
    """Recompute the player's PlayerStats row from their results (creating it if needed).

    ``today`` (default: :func:`games.days.today`) decides whether the
    latest winning run is still current. Idempotent: the row only depends on
    the results and ``today``. None for a player that is gone: a guest whose games an account
    claimed while its result was being recorded (the claim holds the guest's row until it is
    deleted; the account's statistics are recomputed after the claim).
    """
    today = today or dates.today()
    with transaction.atomic():
        players = get_user_model()._default_manager.select_for_update(no_key=True)
        if players.filter(pk=player_id).values_list("pk", flat=True).first() is None:
            return None
        PlayerStats.objects.get_or_create(player_id=player_id)
        # Serialise recomputes of one player: the second one reads after the first commits.
        stats = PlayerStats.objects.select_for_update().get(player_id=player_id)
        data = player_stats_compute(player=player_id, today=today)
        stats.played = data.played
        stats.won = data.won
        stats.current_streak = data.current_streak
        stats.best_streak = data.best_streak
        stats.last_played_date = data.last_played_date
        stats.last_won_date = data.last_won_date
        stats.save()
    return stats


def _board_sync(result_id: int) -> None:
    """Make the Redis board agree with the database about this (ranked) result."""
    client = redis_store.get_client()
    if client is None:
        return
    result = Result.objects.select_related("challenge").filter(pk=result_id).first()
    if result is None or not result.ranked:
        return  # practice results are never on a board
    keys = redis_store.board_keys(challenge=result.challenge)
    try:
        rows = leaderboard_board_rows(challenge=result.challenge_id, result_id=result_id)
        if rows:
            redis_store.board_put(client, keys, rows[0])
        else:
            redis_store.board_drop(client, keys, player_id=result.player_id)
    except redis.RedisError:
        logger.exception("leaderboard: could not update %s for result %s", keys.all, result_id)
        try:
            redis_store.board_invalidate(client, keys)
        except redis.RedisError:
            logger.warning("leaderboard: could not invalidate %s either", keys.all)


def _sync_result(*, result_id: int, today: dt.date | None) -> None:
    player_id = Result.objects.filter(pk=result_id).values_list("player_id", flat=True).first()
    if player_id is None:
        logger.warning("leaderboard: result %s does not exist", result_id)
        return
    player_stats_recompute(player_id=player_id, today=today)
    transaction.on_commit(lambda: _board_sync(result_id))


def leaderboard_record_result(*, result_id: int, today: dt.date | None = None) -> None:
    """A result was validated (call after that commit): update its board and the player's stats."""
    _sync_result(result_id=result_id, today=today)


def leaderboard_remove_result(*, result_id: int, today: dt.date | None = None) -> None:
    """A result was disqualified (call after that commit): take it off its board, recompute stats."""
    _sync_result(result_id=result_id, today=today)


def leaderboard_rebuild(*, challenge_id: int) -> bool:
    """Rebuild the Redis board of a challenge from PostgreSQL. False if Redis is absent or failed."""
    client = redis_store.get_client()
    if client is None:
        return False
    challenge = Challenge.objects.get(pk=challenge_id)
    keys = redis_store.board_keys(challenge=challenge)
    try:
        return redis_store.board_rebuild(client, keys, lambda: leaderboard_board_rows(challenge=challenge_id))
    except redis.RedisError:
        logger.exception("leaderboard: could not rebuild %s", keys.all)
        return False


def leaderboard_boards_mark(*, challenge_ids: Iterable[int]) -> None:
    """Inside the transaction that changes these challenges' boards behind the mirror's back (a player
    banned, unbanned or deleted): record that their Redis boards are to be rebuilt (``BoardRepair``, in
    PostgreSQL with the change), and rebuild them once it commits. What is not rebuilt then (Redis down,
    the process gone) beat's ``leaderboard.repair_boards`` rebuilds within a minute of Redis being back."""
    ids = sorted(set(challenge_ids))
    if not ids:
        return
    now = timezone.now()
    BoardRepair.objects.bulk_create(
        [BoardRepair(challenge_id=pk, marked_at=now) for pk in ids],
        update_conflicts=True,
        unique_fields=["challenge"],
        update_fields=["marked_at"],
    )
    transaction.on_commit(lambda: leaderboard_boards_repair(challenge_ids=ids))


def leaderboard_boards_repair_pending() -> list[int]:
    """Rebuild every board still marked (``BoardRepair``); the ids still not repaired (Redis down)."""
    return leaderboard_boards_repair(challenge_ids=BoardRepair.objects.values_list("challenge_id", flat=True))


def leaderboard_boards_repair(*, challenge_ids: Iterable[int]) -> list[int]:
    """Rebuild the Redis boards of these challenges from PostgreSQL (call after the commit that changed
    them). A board that cannot be rebuilt is dropped, so that the next read rebuilds it; either way its
    ``BoardRepair`` mark (if any, and not renewed meanwhile) is deleted. If Redis is down even for the
    drop, the mark stays for beat (:func:`leaderboard_boards_mark`); meanwhile a page naming a result
    that no longer counts is noticed and read from PostgreSQL (``selectors._StaleBoard``), and the
    board's max age (``redis_store``) bounds the rest. Returns the ids not repaired (none without Redis:
    there is no mirror to repair)."""
    ids = sorted(set(challenge_ids))
    client = redis_store.get_client()
    if client is None:
        BoardRepair.objects.filter(challenge_id__in=ids).delete()
        return []
    failed: list[int] = []
    for challenge in Challenge.objects.filter(pk__in=ids).order_by("pk"):
        started = timezone.now()
        keys = redis_store.board_keys(challenge=challenge)
        try:
            rebuilt = redis_store.board_rebuild(
                client, keys, functools.partial(leaderboard_board_rows, challenge=challenge.pk)
            )
            if not rebuilt:
                redis_store.board_invalidate(client, keys)
        except redis.RedisError:
            logger.warning("leaderboard: could not repair %s after a player left or joined it", keys.all)
            try:
                redis_store.board_invalidate(client, keys)
            except redis.RedisError:
                failed.append(challenge.pk)
                continue
        BoardRepair.objects.filter(challenge_id=challenge.pk, marked_at__lte=started).delete()
    if failed:
        logger.error("leaderboard: Redis boards of challenges %s not repaired yet (Redis down?)", failed)
    return failed


def leaderboard_player_boards_mark(*, player_id: int) -> None:
    """Inside the transaction of a ban or an unban: the player's results leave or join their boards. Their
    boards are marked for repair (:func:`leaderboard_boards_mark`) and their statistics recomputed after
    the commit."""
    challenge_ids = Result.objects.filter(player_id=player_id, ranked=True).values_list("challenge_id", flat=True)
    leaderboard_boards_mark(challenge_ids=list(challenge_ids))
    transaction.on_commit(lambda: player_stats_recompute(player_id=player_id))
