"""Reads of the boards: a day's challenge, its pages, a player's rank and neighbourhood.

The ranking of a board: won first, then higher score, then fewer moves, then
shorter play time, then earlier finish (then the lower result id, so that the
order is total). Each day has two boards (SPEC section 7), over the ranked
results of valid submissions that are not disqualified: the day's board
(``clean=True``, the API's default ``board=day``) ranks only the unassisted
ones; the other (``clean=False``, ``board=all``) ranks them all, the assisted
ones marked.

PostgreSQL is the source of truth and ranks with ``ROW_NUMBER() OVER (...)``.
When REDIS_URL is set, pages and ranks are read from the Redis mirror
(``leaderboard.redis_store``), rebuilt from PostgreSQL when it is missing; any
Redis error falls back to the database.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, TypeVar

import redis
from django.conf import settings
from django.contrib.auth.models import User
from django.db import DEFAULT_DB_ALIAS, connection
from django.db.models import F, OrderBy, QuerySet
from django.db.models.expressions import Window
from django.db.models.functions import RowNumber

from core.held import held
from games import days as dates
from games.models import Challenge, Result
from games.selectors import board_results, challenges_shown
from leaderboard import redis_store
from leaderboard.errors import BoardNotFound

logger = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_CHALLENGE_CACHE_SECONDS = 5.0
DEFAULT_PAGE_HOLD_SECONDS = 1.0


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


def board_page_of(*, results: QuerySet[Result], offset: int, limit: int) -> LeaderboardPage:
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
    return board_page_of(results=leaderboard_results(challenge=challenge, clean=clean), offset=offset, limit=limit)


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


_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_FINISHED = '"games_result"."finished_at" AS "finished_at"'
_FINISHED_US = '(EXTRACT(EPOCH FROM "games_result"."finished_at") * 1000000)::bigint AS "finished_us"'
_IDS = '"games_result"."id" IN (%s)'


@lru_cache(maxsize=4)
def _entry_rows_sql(clean: bool) -> tuple[str, str, tuple[Any, ...]] | None:
    """The SQL of :func:`_entry_rows_query` compiled once by the ORM itself (with stand-ins: the challenge
    -1, one id -2, values no row can have), as (the text before the ids, the text after them, the
    parameters before them): the ids, integers, are written into the text between the two, and the
    finish time is read as microseconds since the epoch (an integer: no timestamp to parse, 50 a page).
    Building and compiling the query, binding its ids and parsing its times cost more than running it.
    None if the compiled text is not the one expected (the ORM's own query is used then)."""
    sql, params = _entry_rows_query(-1, [-2], clean).query.sql_with_params()
    if sql.count(_FINISHED) != 1 or sql.count(_IDS) != 1 or not params or params[-1] != -2 or "%" in sql.split(_IDS)[1]:
        return None
    before, after = sql.replace(_FINISHED, _FINISHED_US).split(_IDS)
    return before + '"games_result"."id" IN (', ")" + after, tuple(params[:-1])


def _entry_rows(challenge_id: int, result_ids: list[int], clean: bool) -> list[tuple[Any, ...]]:
    """The counted rows among ``result_ids`` (``_ENTRY_FIELDS``, any order). On PostgreSQL from the
    compiled query (its rows are values_list's: no field there needs a converter), else the ORM."""
    ids = list(dict.fromkeys(result_ids))  # the ORM's IN removes repeats too
    compiled = _entry_rows_sql(clean) if connection.vendor == "postgresql" and ids else None
    if compiled is None:
        return list(_entry_rows_query(challenge_id, ids, clean))
    before, after, template = compiled
    params = [challenge_id if p == -1 and type(p) is int else p for p in template]
    with connection.cursor() as cursor:
        cursor.execute(before + ", ".join(str(int(rid)) for rid in ids) + after, params)
        rows = cursor.fetchall()
    micro = dt.timedelta(microseconds=1)
    return [(*row[:7], _EPOCH + row[7] * micro, row[8]) for row in rows]


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


def leaderboard_page_rendered(
    *,
    challenge: Challenge,
    offset: int,
    limit: int,
    clean: bool,
    render: Callable[[LeaderboardPage], str],
    variant: str = "",
) -> str:
    """``render(leaderboard_page(...))``, from the Redis page cache while it is current (the top page
    only: ``offset`` 0).

    For the public pages: the rendering must depend on the page and the
    arguments only (nothing about the caller). See ``redis_store``, "Page cache":
    the first read after any write to the board renders the page again. ``variant`` names a
    rendering of its own (a day's board once the day is over links its games: not the same page).
    """
    if offset > 0:  # pages past the top are read as asked for (any offset can be asked: too many to keep)
        return render(leaderboard_page(challenge=challenge, offset=offset, limit=limit, clean=clean))
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
    rows = Result.objects.filter(pk__in=result_ids).order_by().values_list("pk", "submission__attempt_id")
    return dict(rows)  # (unordered: the model's default order only sorted them, and a dict needs none)


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


# --- A board as the API shows it --------------------------------------------------------


@dataclass(frozen=True)
class BoardMe:
    """The caller's place on the board: the rank (None without a ranked result there) and the entry."""

    rank: int | None
    entry: LeaderboardEntry | None


@dataclass(frozen=True)
class BoardView:
    """One answer of the board endpoint: a page of entries (or the caller's neighbourhood), the caller's
    place when logged in, and each shown result's attempt once the day is over (its game is public then:
    the entries link its replay and review); None before."""

    date: dt.date
    game: str
    clean: bool
    total: int
    offset: int
    limit: int
    entries: list[LeaderboardEntry]
    me: BoardMe | None
    attempts: dict[int, int] | None


def leaderboard_view(
    *,
    date: dt.date,
    game: str,
    clean: bool,
    offset: int,
    limit: int,
    player: User | None,
    around: bool = False,
    radius: int = 5,
) -> BoardView:
    """The board of ``date``'s ``game`` as the endpoint shows it: the entries ranked ``offset + 1`` ..
    ``offset + limit``, or with ``around`` (a logged-in ``player`` only) the entries within ``radius`` of
    the player's rank; with a ``player``, their rank and entry. BoardNotFound for a board not shown."""
    if around and player is None:
        raise ValueError("around needs a player")
    challenge = leaderboard_challenge_get(date=date, game=game, today=dates.today(), cached=True)
    place: LeaderboardAround | None = None
    if around and player is not None:
        place = leaderboard_around(challenge=challenge, player=player, radius=radius, clean=clean)
        entries, total = place.entries, place.total
        offset, limit = (entries[0].rank - 1 if entries else 0), len(entries)
    else:
        page = leaderboard_page(challenge=challenge, offset=offset, limit=limit, clean=clean)
        entries, total = page.entries, page.total
        if player is not None:
            place = leaderboard_around(challenge=challenge, player=player, radius=0, clean=clean)
    me: BoardMe | None = None
    if player is not None and place is not None:
        mine = next((e for e in place.entries if e.player_id == player.pk), None)
        me = BoardMe(rank=place.rank, entry=mine)
    attempts: dict[int, int] | None = None
    if dates.is_over(date):
        linked = entries + ([me.entry] if me is not None and me.entry is not None else [])
        attempts = result_attempts(result_ids=[e.result_id for e in linked])
    return BoardView(date, game, clean, total, offset, limit, entries, me, attempts)


def leaderboard_view_rendered(
    *, date: dt.date, game: str, clean: bool, offset: int, limit: int, render: Callable[[BoardView], str]
) -> str:
    """``render`` of a page of the board (``leaderboard_view`` with no caller), from the Redis page cache
    while it is current: the answer the endpoint gives every anonymous caller. BoardNotFound for a board
    not shown."""
    challenge = leaderboard_challenge_get(date=date, game=game, today=dates.today(), cached=True)
    over = dates.is_over(date)

    def render_page(page: LeaderboardPage) -> str:
        attempts = result_attempts(result_ids=[e.result_id for e in page.entries]) if over else None
        return render(BoardView(date, game, clean, page.total, offset, limit, page.entries, None, attempts))

    def rendered() -> str:
        return leaderboard_page_rendered(
            challenge=challenge,
            offset=offset,
            limit=limit,
            clean=clean,
            render=render_page,
            variant=":over" if over else "",
        )

    if offset > 0:
        return rendered()
    key = ("leaderboard_top", redis_store.prefix(), challenge.pk, clean, limit, over, render)
    return held(key, page_hold_seconds(), rendered)


def page_hold_seconds() -> float:
    """How long a process holds a board's public top page it read (``LEADERBOARD_PAGE_HOLD_SECONDS``, a
    Django setting, default 1): the same for every caller, read from Redis once per process and second
    instead of on every request. Another process's new result shows within that time."""
    return float(getattr(settings, "LEADERBOARD_PAGE_HOLD_SECONDS", DEFAULT_PAGE_HOLD_SECONDS))
