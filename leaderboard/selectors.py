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
import itertools
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

from engine import GAME_IDS, GAMES
from games import days as dates
from games.models import Attempt, Challenge, Result, Submission
from games.selectors import board_results, challenges_shown, counted_results, result_share_text
from leaderboard import redis_store
from leaderboard.errors import BoardNotFound, PlayerNotFound
from leaderboard.models import PlayerStats
from ratings.standing import ahead_of_percent

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
        rows: list[tuple[Any, ...]] = cursor.fetchall()
        return rows


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


def best_streak(win_dates: Iterable[dt.date]) -> int:
    """The longest run of consecutive dates."""
    best = run = 0
    previous: dt.date | None = None
    for day in sorted(set(win_dates)):
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    return best


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
    return PlayerStatsData(
        played=totals["played"],
        won=totals["won"],
        # Stored at validation: the run up to today, or up to yesterday whatever today's game became.
        current_streak=current_streak(win_dates, today=today, today_open=True),
        best_streak=best_streak(win_dates),
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


# --- The day as one share (the home page): eight squares in a fixed game order ---------------------------

DAY_SQUARES = {"won": "🟩", "lost": "🟥"}  # anything else (not played, open, checking, held): ⬜
DAY_WORDS = {
    "won": "won",
    "lost": "not won",
    "review": "under review",
    "checking": "checking",
    "playing": "in progress",
    "new": "not played",
    "absent": "not out yet",
}


@dataclass(frozen=True)
class DayGame:
    game: str
    name: str
    status: str  # a DayStatus status, or "absent": no deal of that game out that day (yet)
    words: str
    square: str


@dataclass(frozen=True)
class DaySummary:
    day: dt.date
    games: list[DayGame]  # every game, in GAME_IDS order
    won: int
    lost: int
    not_played: int  # neither won nor lost yet (not started, open, being checked, held, not out)
    streak: int
    share: str


def player_day_summary(*, player: User | int, day: dt.date, challenges: list[Challenge], streak: int) -> DaySummary:
    """The player's day over every game, in the fixed order of GAME_IDS, and its share text: no card,
    no score, no rank (nothing another player of the day could use), a square per game and the streak."""
    statuses = player_day_status(player=player, challenges=challenges)
    by_game = {c.game: statuses[c.pk].status for c in challenges}
    games = []
    for game in GAME_IDS:
        status = by_game.get(game, "absent")
        games.append(DayGame(game, GAMES[game].name, status, DAY_WORDS[status], DAY_SQUARES.get(status, "⬜")))
    won = sum(g.status == "won" for g in games)
    lost = sum(g.status == "lost" for g in games)
    share = "\n".join(
        [
            f"Daily Patience, {day:%d %b %Y}: {won} of {len(games)} won",
            "".join(g.square for g in games),
            f"Streak: {streak} day{'s' if streak != 1 else ''} won in a row",
        ]
    )
    return DaySummary(day, games, won, lost, len(games) - won - lost, streak, share)


def player_today_summary(*, player: User) -> DaySummary:
    """The caller's day as of now: today's challenges out so far, the streak as the profile counts it."""
    from games.selectors import challenges_of_day

    today = dates.today()
    streak = player_game_stats(username=player.get_username(), viewer=player, today=today).overall.current_streak
    return player_day_summary(player=player, day=today, challenges=challenges_of_day(day=today), streak=streak)


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
    (this app's), the size of that board when the result is on the day's board, and the share text;
    None until it is valid."""
    if submission.status != Submission.Status.VALID:
        return None
    result = submission.result
    on_board = result_on_board(result)
    day_board = day_board_place(result, on_board=on_board)
    rank = day_board[0] if day_board is not None else result_rank(result)
    total = day_board[1] if day_board is not None else None
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
        "board_total": total,
        # Of the other players ranked on the day's board at this moment (the board grows through the day).
        "ahead_of_percent": None if day_board is None else ahead_of_percent(rank=day_board[0], total=day_board[1]),
        "share": result_share_text(result, rank if day_board is not None else None, total),
    }


def day_board_place(result: Result, *, on_board: bool | None = None) -> tuple[int, int] | None:
    """(rank, entries) of the result on its day's board, read together (Redis or the database); None when
    it is not there: assisted (on the board of all results only), or on no public board (a guest's,
    held, disqualified, practice)."""
    if result.assisted or not (result_on_board(result) if on_board is None else on_board):
        return None
    around = leaderboard_around(challenge=result.challenge, player=result.player_id, radius=0, clean=True)
    return None if around.rank is None else (around.rank, around.total)


def result_share(result: Result) -> str:
    """The result's share text, with its rank of N on the day's board when it is there (an unassisted
    ranked result that counts, not a guest's); otherwise the text says what the result is instead."""
    place = day_board_place(result)
    return result_share_text(result, *(place or (None, None)))


# --- Statistics per game (the profile page, the end of a game) ---------------------------------------

# The distribution's bars: a won game by its play time, [low, high) seconds (the last one open-ended),
# then one bar for every game not won, as Wordle's guesses and its "X". Fixed edges, the same in every
# game: a bar means the same on every profile and every day.
TIME_EDGES_S = (60, 120, 180, 300, 600)
NOT_WON = "not won"


@dataclass(frozen=True)
class StatsBucket:
    label: str
    won: bool  # a bar of won games (by time) or the bar of games not won
    low_ms: int | None
    high_ms: int | None  # exclusive; None: no upper bound
    count: int
    today: int  # how many of today's results fall in it (the bar the page marks)


@dataclass(frozen=True)
class StatsToday:
    """The player's own counted result of today in that game (nothing else of today's deal)."""

    won: bool
    score: int
    moves: int
    play_time_ms: int
    assisted: bool
    bucket: int


@dataclass(frozen=True)
class GameStats:
    game: str | None  # None: every game together
    played: int
    won: int
    current_streak: int
    best_streak: int
    best_time_ms: int | None
    best_score: int | None
    last_played_date: dt.date | None
    distribution: list[StatsBucket]
    today: StatsToday | None

    @property
    def win_rate(self) -> float:
        return round(self.won / self.played, 4) if self.played else 0.0


@dataclass(frozen=True)
class PlayerGameStats:
    username: str
    today: dt.date
    own: bool  # the viewer's own statistics (counted results) or another player's (the public boards' part)
    overall: GameStats
    games: list[GameStats]


def _bucket_labels() -> list[tuple[str, int | None, int | None]]:
    """(label, low ms, high ms) of each bar: ``under 1 min``, ``1-2 min``, ... ``10+ min``, ``not won``."""
    edges = [s // 60 for s in TIME_EDGES_S]
    bars: list[tuple[str, int | None, int | None]] = [(f"under {edges[0]} min", None, TIME_EDGES_S[0] * 1000)]
    for (low, high), (low_s, high_s) in zip(itertools.pairwise(edges), itertools.pairwise(TIME_EDGES_S), strict=True):
        bars.append((f"{low}-{high} min", low_s * 1000, high_s * 1000))
    bars.append((f"{edges[-1]}+ min", TIME_EDGES_S[-1] * 1000, None))
    bars.append((NOT_WON, None, None))
    return bars


BUCKETS = _bucket_labels()  # the bars, the same for every game and player


def stats_bucket(*, won: bool, play_time_ms: int) -> int:
    """The index of a result's bar: its time's bar when won, else the last bar ("not won")."""
    if not won:
        return len(TIME_EDGES_S) + 1
    return sum(1 for edge in TIME_EDGES_S if play_time_ms >= edge * 1000)


def current_streak(win_dates: Iterable[dt.date], *, today: dt.date, today_open: bool) -> int:
    """The run of consecutive winning dates that ends today, or yesterday while today can still be won.

    ``today_open``: today's game (or, over every game, one of today's games) is not yet lost: unplayed,
    in play, being checked or under review. A missed day breaks the run; today's unplayed game does not
    yet, a lost ranked game of today does at once (its day can no longer be won)."""
    wins = set(win_dates)
    if today in wins:
        end = today
    elif today_open and today - dt.timedelta(days=1) in wins:
        end = today - dt.timedelta(days=1)
    else:
        return 0
    run = 0
    while end - dt.timedelta(days=run) in wins:
        run += 1
    return run


def _game_stats(rows: list[tuple[Any, ...]], *, game: str | None, today: dt.date, today_open: bool) -> GameStats:
    """Rows (date, game, won, score, moves, play_time_ms, assisted) of one player, one game (or all)."""
    labels = BUCKETS
    counts = [0] * len(labels)
    todays = [0] * len(labels)
    for date, _game, won, _score, _moves, ms, _assisted in rows:
        b = stats_bucket(won=won, play_time_ms=ms)
        counts[b] += 1
        todays[b] += int(date == today)
    win_dates = [r[0] for r in rows if r[2]]
    clean = [r for r in rows if not r[6]]  # records are those the day's board would rank: unassisted
    clean_wins = [r[5] for r in clean if r[2]]
    mine = next((r for r in rows if r[0] == today), None) if game is not None else None
    return GameStats(
        game=game,
        played=len(rows),
        won=len(win_dates),
        current_streak=current_streak(win_dates, today=today, today_open=today_open),
        best_streak=best_streak(win_dates),
        best_time_ms=min(clean_wins) if clean_wins else None,
        best_score=max((r[3] for r in clean), default=None),
        last_played_date=max((r[0] for r in rows), default=None),
        distribution=[
            StatsBucket(label=label, won=i < len(labels) - 1, low_ms=low, high_ms=high, count=c, today=t)
            for i, ((label, low, high), c, t) in enumerate(zip(labels, counts, todays, strict=True))
        ],
        today=None
        if mine is None
        else StatsToday(
            won=mine[2],
            score=mine[3],
            moves=mine[4],
            play_time_ms=mine[5],
            assisted=mine[6],
            bucket=stats_bucket(won=mine[2], play_time_ms=mine[5]),
        ),
    )


def player_game_stats(
    *, username: str, viewer: object = None, today: dt.date | None = None, game: str | None = None
) -> PlayerGameStats:
    """A player's statistics over every game and per game: played, won, win share, current and best
    streak, best time and best score, and the distribution of results (won games by time, and not won).

    Only ranked results count (``counted_results``: valid, not disqualified, not held); practice never.
    The player themself (``viewer``) sees their own counted results, a guest's included; anybody else sees
    the part that is public (``board_results``: a guest's results are on no public board). Nothing of
    today's deal is read but the player's own result: no other player's, no card.

    Streaks (per game, and over every game: a winning date then has a win in any game): consecutive
    challenge dates (the challenge's date, not the finish time) with a won ranked result. The current
    streak ends today, or yesterday while today can still be won (:func:`current_streak`).
    Best time: the fastest unassisted win; best score: the highest unassisted score (the records the
    day's board would rank). ``game`` keeps only that game in ``games``; without it, every game played.
    """
    today = today or dates.today()
    user_model = get_user_model()
    player = user_model._default_manager.filter(**{user_model.USERNAME_FIELD: username}).first()
    if player is None:
        raise PlayerNotFound(f"There is no player named {username!r}.")
    own = bool(getattr(viewer, "is_authenticated", False)) and getattr(viewer, "pk", None) == player.pk
    source = counted_results() if own else board_results()
    rows = list(
        source.filter(player_id=player.pk, challenge__date__lte=today)
        .order_by("challenge__date", "challenge__game")
        .values_list("challenge__date", "challenge__game", "won", "score", "moves", "play_time_ms", "assisted")
    )
    lost_today = {r[1] for r in rows if r[0] == today and not r[2]}
    todays_games = set(challenges_shown(today=today).filter(date=today).values_list("game", flat=True))
    all_lost = bool(todays_games) and todays_games <= lost_today  # (no challenge yet today: nothing lost)
    overall = _game_stats(rows, game=None, today=today, today_open=not all_lost)
    by_game: dict[str, list[tuple[Any, ...]]] = {}
    for r in rows:
        by_game.setdefault(r[1], []).append(r)
    shown = [game] if game is not None else [g for g in GAME_IDS if g in by_game]
    games = [_game_stats(by_game.get(g, []), game=g, today=today, today_open=g not in lost_today) for g in shown]
    return PlayerGameStats(username=player.get_username(), today=today, own=own, overall=overall, games=games)
