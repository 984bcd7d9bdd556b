"""Reads: leaderboards (ranked in PostgreSQL, mirrored in Redis) and player profiles.

The ranking of a board: won first, then higher score, then fewer moves, then
shorter play time, then earlier finish (then the lower result id, so that the
order is total). Each day has two boards (SPEC section 7), over the ranked
results of valid submissions that are not disqualified: the day's board
(``clean=True``, the API's default ``board=day``) ranks only the unassisted
ones; the other (``clean=False``, ``board=all``) ranks them all, the assisted
ones marked. A result's own rank (:func:`result_rank`) is on the day's board
when it is unassisted, on the other one when it is assisted.

PostgreSQL is the source of truth and ranks with ``ROW_NUMBER() OVER (...)``.
When REDIS_URL is set, pages and ranks are read from the Redis mirror
(``leaderboard.redis_store``), rebuilt from PostgreSQL when it is missing; any
Redis error falls back to the database.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import redis
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import Count, F, Max, OrderBy, Q, QuerySet
from django.db.models.expressions import Window
from django.db.models.functions import RowNumber

from games import days as dates
from games.models import Attempt, Challenge, Result, Submission
from games.selectors import board_results, challenges_shown, counted_results, result_share_text
from leaderboard import redis_store
from leaderboard.errors import BoardNotFound, PlayerNotFound
from leaderboard.models import PlayerStats

logger = logging.getLogger(__name__)

T = TypeVar("T")

RECENT_RESULTS = 30
DEFAULT_CHALLENGE_CACHE_SECONDS = 5.0


def board_order() -> list[OrderBy]:
    """The ranking, as an ORDER BY (also the window's order)."""
    return [
        F("won").desc(),
        F("score").desc(),
        F("moves").asc(),
        F("play_time_ms").asc(),
        F("finished_at").asc(),
        F("id").asc(),
    ]


@dataclass(frozen=True)
class LeaderboardEntry:
    rank: int
    result_id: int
    player_id: int
    player: str
    won: bool
    score: int
    moves: int
    play_time_ms: int
    finished_at: dt.datetime
    assisted: bool

    @property
    def seconds(self) -> float:
        return self.play_time_ms / 1000


@dataclass(frozen=True)
class LeaderboardPage:
    total: int
    entries: list[LeaderboardEntry]
    source: str  # "redis" or "database": how it was read


@dataclass(frozen=True)
class LeaderboardAround:
    rank: int | None
    total: int
    entries: list[LeaderboardEntry]
    source: str


@dataclass(frozen=True)
class PlayerStatsData:
    played: int
    won: int
    current_streak: int
    best_streak: int
    last_played_date: dt.date | None
    last_won_date: dt.date | None


@dataclass(frozen=True)
class RecentResult:
    date: dt.date
    game: str
    won: bool
    score: int
    moves: int
    play_time_ms: int
    assisted: bool
    finished_at: dt.datetime
    rank: int | None
    attempt: int | None = None  # once the day is over (its game is public then), else None

    @property
    def seconds(self) -> float:
        return self.play_time_ms / 1000

    @property
    def replay(self) -> str | None:
        return None if self.attempt is None else f"/api/v1/attempts/{self.attempt}/replay"

    @property
    def review(self) -> str | None:
        return None if self.attempt is None else f"/api/v1/attempts/{self.attempt}/review"


@dataclass(frozen=True)
class PlayerProfile:
    username: str
    played: int
    won: int
    current_streak: int
    best_streak: int
    last_played_date: dt.date | None
    last_won_date: dt.date | None
    recent: list[RecentResult]

    @property
    def win_rate(self) -> float:
        return round(self.won / self.played, 4) if self.played else 0.0


# --- Challenges -------------------------------------------------------------------


# Shown challenges by (key prefix, date, game): (expires at, id). See leaderboard_challenge_get.
_shown_challenges: dict[tuple[str, dt.date, str], tuple[float, int]] = {}
MAX_CACHED_CHALLENGES = 1024


def challenge_cache_seconds() -> float:
    return float(getattr(settings, "LEADERBOARD_CHALLENGE_CACHE_SECONDS", DEFAULT_CHALLENGE_CACHE_SECONDS))


def challenge_cache_clear() -> None:
    """Forget the cached challenge lookups of this process (a Challenge was saved or deleted)."""
    _shown_challenges.clear()


def leaderboard_challenge_get(
    *, date: dt.date, game: str, today: dt.date | None = None, cached: bool = False
) -> Challenge:
    """The published, ready challenge whose board can be shown; BoardNotFound otherwise.

    ``cached=True`` (the board endpoint) may answer from this process's memory
    of the lookups it made in the last ``LEADERBOARD_CHALLENGE_CACHE_SECONDS``
    (default 5): then only ``id``, ``date`` and ``game`` are loaded (the other
    fields load on access). Only found challenges are remembered. Saving or
    deleting a Challenge clears this process's memory (``leaderboard.signals``);
    other processes, and changes made with ``QuerySet.update()`` (e.g. the
    admin's "unpublish" action), show within those seconds.
    """
    today = today or dates.today()
    if date > today:
        raise BoardNotFound(f"No leaderboard for {date.isoformat()} yet: that day has not come (today is {today}).")
    seconds = challenge_cache_seconds() if cached else 0.0
    key = (redis_store.prefix(), date, game) if seconds > 0 else None
    if key is not None:
        hit = _shown_challenges.get(key)
        if hit is not None and hit[0] > time.monotonic():
            return Challenge.from_db(DEFAULT_DB_ALIAS, ["id", "date", "game"], [hit[1], date, game])
    challenge = challenges_shown(today=today).filter(date=date, game=game).first()
    if challenge is None:
        raise BoardNotFound(f"There is no {game} challenge on {date.isoformat()}.")
    if key is not None:
        if len(_shown_challenges) >= MAX_CACHED_CHALLENGES:
            _shown_challenges.clear()
        _shown_challenges[key] = (time.monotonic() + seconds, challenge.pk)
    return challenge


# --- Boards in the database ---------------------------------------------------------


def leaderboard_results(*, challenge: Challenge | int, clean: bool = False) -> QuerySet[Result]:
    """The rows of a board, unordered."""
    challenge_id = challenge if isinstance(challenge, int) else challenge.pk
    qs = board_results().filter(challenge_id=challenge_id)
    if clean:
        qs = qs.filter(assisted=False)
    return qs


def leaderboard_board_rows(*, challenge: Challenge | int, result_id: int | None = None) -> list[redis_store.BoardRow]:
    """Every ranked row of the (full) board, for building the Redis mirror; or only that result's
    row, when it is on the board (an empty list when it is not)."""
    fields = ("id", "player_id", "won", "score", "moves", "play_time_ms", "finished_at", "assisted")  # BoardRow's order
    qs = leaderboard_results(challenge=challenge).order_by()
    if result_id is not None:
        qs = qs.filter(pk=result_id)
    return [redis_store.BoardRow(*r) for r in qs.values_list(*fields).iterator(chunk_size=5000)]


def _entry(result: Result, rank: int) -> LeaderboardEntry:
    return LeaderboardEntry(
        rank=rank,
        result_id=result.pk,
        player_id=result.player_id,
        player=result.player.get_username(),
        won=result.won,
        score=result.score,
        moves=result.moves,
        play_time_ms=result.play_time_ms,
        finished_at=result.finished_at,
        assisted=result.assisted,
    )


def _ranks(qs: QuerySet[Result], *, where: str, params: list[Any], partition: bool = False) -> list[tuple[int, int]]:
    """(result id, rank) of the rows of ``qs`` ranked by ROW_NUMBER() that match ``where``.

    The window runs over all of ``qs`` in a subquery; ``where`` filters the
    outer query (on the subquery's ``id``, ``player_id`` and ``rank``).
    """
    window = Window(RowNumber(), partition_by=[F("challenge_id")] if partition else None, order_by=board_order())
    inner = qs.order_by().annotate(board_rank=window).values("id", "player_id", "board_rank")
    sql, inner_params = inner.query.sql_with_params()
    query = f'SELECT board."id", board."board_rank" FROM ({sql}) board WHERE {where}'
    with connection.cursor() as cursor:
        cursor.execute(query, [*inner_params, *params])
        return [(int(row[0]), int(row[1])) for row in cursor.fetchall()]


def _db_rank(*, challenge: Challenge, player_id: int, clean: bool) -> int | None:
    rows = _ranks(
        leaderboard_results(challenge=challenge, clean=clean), where='board."player_id" = %s', params=[player_id]
    )
    return rows[0][1] if rows else None


def board_page_of(results: QuerySet[Result], *, offset: int, limit: int) -> LeaderboardPage:
    """Entries ranked ``offset + 1`` .. ``offset + limit`` of any set of a board's rows (the board's
    own, or a league's members' part of it), ranked 1, 2, 3... within that set, read from the database.
    The one definition of a board page: the public boards and the league boards use it."""
    if offset < 0 or limit < 0:
        raise ValueError("offset and limit must not be negative")
    total = results.count()
    ranked = (
        results.select_related("player")
        .annotate(board_rank=Window(RowNumber(), order_by=board_order()))
        .order_by(*board_order())[offset : offset + limit]
    )
    return LeaderboardPage(total=total, entries=[_entry(r, r.board_rank) for r in ranked], source="database")


def _db_page(*, challenge: Challenge, offset: int, limit: int, clean: bool) -> LeaderboardPage:
    return board_page_of(leaderboard_results(challenge=challenge, clean=clean), offset=offset, limit=limit)


# --- Boards through Redis -----------------------------------------------------------


class _StaleBoard(Exception):
    """Redis named a result that is no longer on the board in the database."""


def _via_redis(challenge: Challenge, read: Callable[[redis.Redis, redis_store.BoardKeys, bool], T]) -> T | None:
    """``read`` against a valid Redis board (rebuilt first if needed); None = use the database.

    ``read(client, keys, accept_aged)`` raises BoardNotBuilt when the board is
    missing or inconsistent, BoardAged when it is merely old.
    """
    client = redis_store.read_client()
    if client is None:
        return None
    keys = redis_store.board_keys(challenge=challenge)
    try:
        try:
            return read(client, keys, False)
        except redis_store.BoardNotBuilt as exc:
            logger.info("leaderboard: rebuilding %s (%s)", keys.all, exc)
            rebuilt = redis_store.board_rebuild(client, keys, lambda: leaderboard_board_rows(challenge=challenge))
            if not rebuilt and not isinstance(exc, redis_store.BoardAged):
                return None
            return read(client, keys, True)
    except redis_store.BoardNotBuilt:
        logger.warning("leaderboard: %s still not valid after a rebuild; reading the database", keys.all)
    except _StaleBoard as exc:
        logger.warning("leaderboard: %s is stale (%s); dropping it and reading the database", keys.all, exc)
        try:
            redis_store.board_invalidate(client, keys)
        except redis.RedisError:
            logger.exception("leaderboard: could not invalidate %s", keys.all)
    except redis.RedisError as exc:
        logger.warning("leaderboard: Redis failed on %s (%s); reading the database", keys.all, exc)
        redis_store.read_failed(exc)
    return None


_ENTRY_FIELDS = (
    "id",
    "player_id",
    "player__username",
    "won",
    "score",
    "moves",
    "play_time_ms",
    "finished_at",
    "assisted",
)


def _entry_rows_query(challenge_id: int, result_ids: list[int], clean: bool) -> QuerySet[Result, tuple[Any, ...]]:
    return (
        leaderboard_results(challenge=challenge_id, clean=clean)
        .filter(pk__in=result_ids)
        .order_by()  # (the model's default order would only sort rows put in order by the caller)
        .values_list(*_ENTRY_FIELDS)
    )


@lru_cache(maxsize=64)
def _entry_rows_sql(n: int, clean: bool) -> tuple[str, tuple[Any, ...]]:
    """The SQL of :func:`_entry_rows_query` for ``n`` ids, compiled once by the ORM itself (with stand-in
    values: the challenge -1, the ids -2 .. -n-1, none of which a row can have), and its parameters
    with those stand-ins in place: building and compiling the query cost more than running it."""
    stand_ins = list(range(-2, -2 - n, -1))
    sql, params = _entry_rows_query(-1, stand_ins, clean).query.sql_with_params()
    return sql, tuple(params)


def _entry_rows(challenge_id: int, result_ids: list[int], clean: bool) -> list[tuple[Any, ...]]:
    """The counted rows among ``result_ids`` (``_ENTRY_FIELDS``, any order). On PostgreSQL from the
    compiled query (its rows are values_list's: no field there needs a converter), else the ORM."""
    ids = list(dict.fromkeys(result_ids))  # the ORM's IN removes repeats too
    if connection.vendor != "postgresql" or not ids:
        return list(_entry_rows_query(challenge_id, ids, clean))
    sql, template = _entry_rows_sql(len(ids), clean)
    value = {-1: challenge_id, **{-2 - i: rid for i, rid in enumerate(ids)}}
    params = [value.get(p, p) if isinstance(p, int) and not isinstance(p, bool) else p for p in template]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _entries_for(challenge: Challenge, result_ids: list[int], first_rank: int, clean: bool) -> list[LeaderboardEntry]:
    """The board's entries for result ids read off Redis: still counted (else the board is stale), in
    that order. Plain rows, no model instances: a page is 50 of them."""
    rows = {row[0]: row for row in _entry_rows(challenge.pk, result_ids, clean)}
    missing = [rid for rid in result_ids if rid not in rows]
    if missing:
        raise _StaleBoard(f"results {missing} are not on the board")
    entries = []
    for i, rid in enumerate(result_ids):
        _, player_id, player, won, score, moves, play_time_ms, finished_at, assisted = rows[rid]
        entries.append(
            LeaderboardEntry(
                rank=first_rank + i,
                result_id=rid,
                player_id=player_id,
                player=player,
                won=won,
                score=score,
                moves=moves,
                play_time_ms=play_time_ms,
                finished_at=finished_at,
                assisted=assisted,
            )
        )
    return entries


def _redis_page(challenge: Challenge, *, offset: int, limit: int, clean: bool) -> LeaderboardPage | None:
    def read(client: redis.Redis, keys: redis_store.BoardKeys, aged: bool) -> LeaderboardPage:
        stop = offset + limit - 1
        total, ids = redis_store.board_page(client, keys, clean=clean, start=offset, stop=stop, accept_aged=aged)
        return LeaderboardPage(total=total, entries=_entries_for(challenge, ids, offset + 1, clean), source="redis")

    return _via_redis(challenge, read)


def _redis_around(challenge: Challenge, *, player_id: int, radius: int, clean: bool) -> LeaderboardAround | None:
    def read(client: redis.Redis, keys: redis_store.BoardKeys, aged: bool) -> LeaderboardAround:
        total, position, start, ids = redis_store.board_around(
            client, keys, clean=clean, player_id=player_id, radius=radius, accept_aged=aged
        )
        if position is None:
            return LeaderboardAround(rank=None, total=total, entries=[], source="redis")
        entries = _entries_for(challenge, ids, start + 1, clean)
        return LeaderboardAround(rank=position + 1, total=total, entries=entries, source="redis")

    return _via_redis(challenge, read)


def _redis_rank(challenge: Challenge, *, player_id: int, clean: bool) -> tuple[int | None] | None:
    def read(client: redis.Redis, keys: redis_store.BoardKeys, aged: bool) -> tuple[int | None]:
        position = redis_store.board_rank(client, keys, clean=clean, player_id=player_id, accept_aged=aged)
        return (None if position is None else position + 1,)

    return _via_redis(challenge, read)


# --- Public board selectors ------------------------------------------------------------


def leaderboard_page(*, challenge: Challenge, offset: int, limit: int, clean: bool = False) -> LeaderboardPage:
    """Entries ranked ``offset + 1`` .. ``offset + limit`` and the board's size."""
    if offset < 0 or limit < 0:
        raise ValueError("offset and limit must not be negative")
    if limit == 0:
        total = leaderboard_results(challenge=challenge, clean=clean).count()
        return LeaderboardPage(total=total, entries=[], source="database")
    page = _redis_page(challenge, offset=offset, limit=limit, clean=clean)
    return page if page is not None else _db_page(challenge=challenge, offset=offset, limit=limit, clean=clean)


def leaderboard_top_rendered(
    *, challenge: Challenge, limit: int, clean: bool, render: Callable[[LeaderboardPage], str], variant: str = ""
) -> str:
    """``render(leaderboard_page(offset=0, ...))``, from the Redis page cache while it is current.

    For the public top page: the rendering must depend on the page and the
    arguments only (nothing about the caller). See ``redis_store``, "Page cache":
    the first read after any write to the board renders the page again. ``variant`` names a
    rendering of its own (a day's board once the day is over links its games: not the same page).
    """
    client = redis_store.read_client()
    token: str | None = None
    if client is not None:
        keys = redis_store.board_keys(challenge=challenge)
        field = redis_store.page_field(clean=clean, limit=limit) + variant
        try:
            body, token = redis_store.board_cached_page(client, keys, field=field)
        except redis.RedisError as exc:
            logger.warning("leaderboard: Redis failed reading the page cache of %s", keys.all)
            redis_store.read_failed(exc)
            body, token = None, None
        if body is not None:
            return body
    body = render(leaderboard_page(challenge=challenge, offset=0, limit=limit, clean=clean))
    if client is not None and token is not None:
        try:
            redis_store.board_store_page(client, keys, field=field, token=token, body=body)
        except redis.RedisError:
            logger.warning("leaderboard: Redis failed writing the page cache of %s", keys.all)
    return body


def result_attempts(*, result_ids: list[int]) -> dict[int, int]:
    """The attempt of each result (for the links of a day's board once the day is over)."""
    if not result_ids:
        return {}
    return dict(Result.objects.filter(pk__in=result_ids).values_list("pk", "submission__attempt_id"))


def leaderboard_rank(*, challenge: Challenge, player: User | int, clean: bool = False) -> int | None:
    """The player's 1-based rank on the board, or None without a ranked result there."""
    player_id = player if isinstance(player, int) else player.pk
    found = _redis_rank(challenge, player_id=player_id, clean=clean)
    if found is not None:
        return found[0]
    return _db_rank(challenge=challenge, player_id=player_id, clean=clean)


def leaderboard_around(
    *, challenge: Challenge, player: User | int, radius: int = 5, clean: bool = False
) -> LeaderboardAround:
    """The player's rank and the entries ranked within ``radius`` of it (empty without a rank)."""
    if radius < 0:
        raise ValueError("radius must not be negative")
    player_id = player if isinstance(player, int) else player.pk
    around = _redis_around(challenge, player_id=player_id, radius=radius, clean=clean)
    if around is not None:
        return around
    rank = leaderboard_rank(challenge=challenge, player=player, clean=clean)
    if rank is None:
        total = leaderboard_page(challenge=challenge, offset=0, limit=0, clean=clean).total
        return LeaderboardAround(rank=None, total=total, entries=[], source="database")
    offset = max(0, rank - 1 - radius)
    page = leaderboard_page(challenge=challenge, offset=offset, limit=rank + radius - offset, clean=clean)
    return LeaderboardAround(rank=rank, total=page.total, entries=page.entries, source=page.source)


# --- Players ------------------------------------------------------------------------------


def _streaks(win_dates: Iterable[dt.date], *, today: dt.date) -> tuple[int, int]:
    """(current, best) runs of consecutive dates; current is 0 if the last is before yesterday."""
    best = run = 0
    previous: dt.date | None = None
    for day in sorted(set(win_dates)):
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    current = run if previous is not None and previous >= today - dt.timedelta(days=1) else 0
    return current, best


def player_stats_compute(*, player: User | int, today: dt.date) -> PlayerStatsData:
    """The statistics defined on PlayerStats, computed from Result rows."""
    player_id = player if isinstance(player, int) else player.pk
    counted = counted_results().filter(player_id=player_id)
    totals = counted.aggregate(
        played=Count("id"),
        won=Count("id", filter=Q(won=True)),
        last_played=Max("challenge__date"),
    )
    win_dates = list(counted.filter(won=True).order_by().values_list("challenge__date", flat=True).distinct())
    current, best = _streaks(win_dates, today=today)
    return PlayerStatsData(
        played=totals["played"],
        won=totals["won"],
        current_streak=current,
        best_streak=best,
        last_played_date=totals["last_played"],
        last_won_date=max(win_dates) if win_dates else None,
    )


def player_recent_results(*, player: User | int, limit: int = RECENT_RESULTS) -> list[RecentResult]:
    """The player's latest counted results (by challenge date), each with its rank on its board."""
    player_id = player if isinstance(player, int) else player.pk
    recent = list(
        counted_results()
        .filter(player_id=player_id)
        .select_related("challenge", "submission")
        .order_by("-challenge__date", "-finished_at", "-id")[:limit]
    )
    ranks: dict[int, int] = {}
    for assisted in (False, True):  # each result's rank on its own board (result_rank)
        mine = [r.pk for r in recent if r.assisted is assisted]
        if not mine:
            continue
        boards = board_results().filter(challenge_id__in={r.challenge_id for r in recent})
        if not assisted:
            boards = boards.filter(assisted=False)
        placeholders = ", ".join(["%s"] * len(mine))
        ranks.update(_ranks(boards, where=f'board."id" IN ({placeholders})', params=mine, partition=True))
    return [
        RecentResult(
            date=r.challenge.date,
            game=r.challenge.game,
            won=r.won,
            score=r.score,
            moves=r.moves,
            play_time_ms=r.play_time_ms,
            assisted=r.assisted,
            finished_at=r.finished_at,
            rank=ranks.get(r.pk),
            attempt=r.submission.attempt_id if dates.is_over(r.challenge.date) else None,
        )
        for r in recent
    ]


def player_profile(*, username: str, today: dt.date | None = None) -> PlayerProfile:
    """Statistics and recent results of a player; PlayerNotFound for an unknown username."""
    today = today or dates.today()
    user_model = get_user_model()
    player = user_model._default_manager.filter(**{user_model.USERNAME_FIELD: username}).first()
    if player is None:
        raise PlayerNotFound(f"There is no player named {username!r}.")
    stored = PlayerStats.objects.filter(player=player).first()
    if stored is not None:
        stats = PlayerStatsData(
            played=stored.played,
            won=stored.won,
            current_streak=stored.current_streak_on(today),
            best_streak=stored.best_streak,
            last_played_date=stored.last_played_date,
            last_won_date=stored.last_won_date,
        )
    else:  # never recomputed (e.g. results older than the stats): derive, do not write
        stats = player_stats_compute(player=player, today=today)
    return PlayerProfile(
        username=player.get_username(),
        played=stats.played,
        won=stats.won,
        current_streak=stats.current_streak,
        best_streak=stats.best_streak,
        last_played_date=stats.last_played_date,
        last_won_date=stats.last_won_date,
        recent=player_recent_results(player=player),
    )


@dataclass(frozen=True)
class DayStatus:
    """Where a player stands on one challenge of a day."""

    status: str  # "won", "lost", "review" (held for review), "checking", "playing" or "new"
    result: Result | None = None
    rank: int | None = None


def player_day_status(*, player: User | int, challenges: list[Challenge]) -> dict[int, DayStatus]:
    """Per challenge: won or lost (the counted ranked result, with its rank), checking (submitted,
    not validated yet), playing (the ranked attempt is open) or new."""
    player_id = player if isinstance(player, int) else player.pk
    ids = [c.pk for c in challenges]
    results = {
        r.challenge_id: r
        for r in counted_results().filter(player_id=player_id, challenge_id__in=ids).select_related("challenge")
    }
    ranked = {
        a.challenge_id: a
        for a in Attempt.objects.filter(player_id=player_id, challenge_id__in=ids, ranked=True).only(
            "id", "challenge_id", "finished_at"
        )
    }
    statuses: dict[int, DayStatus] = {}
    held = set(
        Result.objects.filter(
            player_id=player_id, challenge_id__in=ids, ranked=True, held=True, disqualified=False
        ).values_list("challenge_id", flat=True)
    )
    for challenge in challenges:
        result = results.get(challenge.pk)
        attempt = ranked.get(challenge.pk)
        if result is not None:
            statuses[challenge.pk] = DayStatus("won" if result.won else "lost", result, result_rank(result))
        elif challenge.pk in held:
            statuses[challenge.pk] = DayStatus("review")
        elif attempt is not None and attempt.finished_at is None:
            statuses[challenge.pk] = DayStatus("playing")
        elif attempt is not None:
            statuses[challenge.pk] = DayStatus("checking")
        else:
            statuses[challenge.pk] = DayStatus("new")
    return statuses


def result_rank(result: Result) -> int | None:
    """The rank of a result on its board: only a ranked result that counts has one. An unassisted result
    ranks on the day's board, an assisted one on the board of all results (the only one it is on). A
    guest's result is on no public board (games.selectors.board_results): its rank is the one it would
    have there."""
    if not result.ranked or result.disqualified or result.held:
        return None
    clean = not result.assisted
    if result_on_board(result):
        return leaderboard_rank(challenge=result.challenge, player=result.player_id, clean=clean)
    ahead = (
        Q(won__gt=result.won)
        | Q(won=result.won, score__gt=result.score)
        | Q(won=result.won, score=result.score, moves__lt=result.moves)
        | Q(won=result.won, score=result.score, moves=result.moves, play_time_ms__lt=result.play_time_ms)
        | Q(
            won=result.won,
            score=result.score,
            moves=result.moves,
            play_time_ms=result.play_time_ms,
            finished_at__lt=result.finished_at,
        )
    )  # (the board's order, board_order(); a tie to the microsecond ranks the guest after)
    return leaderboard_results(challenge=result.challenge_id, clean=clean).filter(ahead).count() + 1


def result_board(result: Result) -> str:
    """The board :func:`result_rank` is on: ``day``, or ``all`` for an assisted result."""
    return "all" if result.assisted else "day"


def result_on_board(result: Result) -> bool:
    """Whether the result is on the public boards: counted and not a guest's."""
    return board_results().filter(pk=result.pk).exists()


def result_review(result: Result) -> dict[str, str] | None:
    """Why the result is on no board while staff look at it ({status, reason}), or None."""
    if not result.held or result.disqualified:
        return None
    review = result.reviews.filter(holds=True, status="open").order_by("-created_at").first()
    reason = review.reason if review is not None else "Held for review."
    return {"status": "under review", "reason": reason}


def submission_result(submission: Submission) -> dict[str, object] | None:
    """A validated submission's result as the API shows it: the numbers, the rank on the board
    (this app's) and the share text; None until it is valid."""
    if submission.status != Submission.Status.VALID:
        return None
    result = submission.result
    rank = result_rank(result)
    on_board = result_on_board(result)
    return {
        "won": result.won,
        "score": result.score,
        "moves": result.moves,
        "foundation_cards": result.foundation_cards,
        "redeals": result.redeals,
        "play_time_ms": result.play_time_ms,
        "ranked": result.ranked,
        "assisted": result.assisted,
        "disqualified": result.disqualified,
        "review": result_review(result),
        "on_board": on_board,
        "rank": rank,
        "board": result_board(result),
        "share": result_share_text(result, rank if on_board else None),
    }
