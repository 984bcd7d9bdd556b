"""The Redis mirror of the leaderboards: a cache of PostgreSQL, rebuilt on demand.

One board per challenge, i.e. per (date, game), with these keys. ``P`` is
``settings.LEADERBOARD_REDIS_PREFIX``, by default ``dp:lb:<database name>``;
``B`` is ``{<date>:<game>:<challenge id>}``, e.g. ``{2026-11-30:klondike:42}``
(the id keeps a deleted and recreated challenge, or a test's rolled-back one,
from meeting an old board; the ``{...}`` hash tag keeps a board's keys in one
cluster slot, so the script and MULTI work there):

``P:B:all``      sorted set: every ranked entry
``P:B:clean``    sorted set: the unassisted entries only
``P:B:members``  hash: player id -> member, plus the marker fields ``#built``
                 (when the board was built), ``#n`` and ``#c`` (the sizes the
                 two sets must have)
``P:B:version``  counter bumped by every write (a rebuild WATCHes it, so it
                 cannot lose a write that raced with it)
``P:B:pages``    hash: rendered public pages (see "Page cache" below)

Order: ``ZRANGE`` ascending is the ranking. The score is a 53-bit integer
(exact as a double), lower is better::

    (1 - won)                      << 52   1 bit
    (4095 - min(score, 4095))      << 40  12 bits
    min(moves, 8191)               << 27  13 bits
    min(play_time_ms, 2**27 - 1)           27 bits

Equal scores are ordered by member, byte by byte, and the member is::

    <overflow><finished_at in µs since the epoch, 17 digits>:<result id, 19 digits>

so ties go to the earlier finish, then the lower result id, exactly as the
SQL ``ORDER BY ... finished_at, id``. The caps (score >= 4095, moves >= 8191,
play time >= 2**27-1 ms ~ 37 h) never bite in practice, but the order stays
exact anyway: from the first capped field on, the key's later fields are zeroed
and ``<overflow>`` holds the exact values of that field and of the later ones
(fixed width, e.g. ``m0000009000t0000000000000001000``). Entries can only tie
on the key if the same field is capped first, so they compare like for like.

A board is *valid* when ``#built`` is set and both sets have the sizes in ``#n``
and ``#c``; anything else (flushed, expired, evicted, half-built) means "rebuild
from PostgreSQL first". All keys expire after ``LEADERBOARD_REDIS_TTL`` seconds
(default 8 days) from the build; an expired board is rebuilt on the next read.
A board older than ``LEADERBOARD_REDIS_MAX_AGE`` seconds (default 600) is
rebuilt on its next read too, which bounds the drift if a write after a commit
was ever lost (process killed, Redis briefly down).
Callers catch ``redis.RedisError`` and fall back to the database.

Page cache: the public (anonymous) top page of a board, once rendered, is kept
in ``P:B:pages`` under the field ``<clean>:<limit>`` as ``<token>|<json>``, where
the token is ``<version>:<#built>`` read *before* the page was computed. A
cached page is served only while the board is valid (as above: built, sizes
right, not older than the max age) and the token still matches: every write
bumps the version and every rebuild changes ``#built``, so the first read after
a write computes the page again. (Entries are labelled with a token read
before their data, so a label is never newer than its data.) One field per
(clean, limit): the hash cannot grow past 2 x 200 fields.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, cast

import redis
from django.conf import settings
from django.db import connection
from redis.backoff import NoBackoff
from redis.retry import Retry

from core import circuit

logger = logging.getLogger(__name__)

WON_SHIFT = 52
SCORE_BITS, MOVES_BITS, TIME_BITS = 12, 13, 27
SCORE_CAP = (1 << SCORE_BITS) - 1  # 4095
MOVES_CAP = (1 << MOVES_BITS) - 1  # 8191
TIME_CAP = (1 << TIME_BITS) - 1  # 134217727 ms
SCORE_SHIFT = MOVES_BITS + TIME_BITS  # 40
MOVES_SHIFT = TIME_BITS  # 27
MAX_SORT_KEY = (1 << 53) - 1

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
DEFAULT_PREFIX = "dp:lb"
DEFAULT_TTL = 8 * 24 * 60 * 60
DEFAULT_MAX_AGE = 10 * 60
REBUILD_TRIES = 3
CHUNK = 5000

BUILT, COUNT_ALL, COUNT_CLEAN = "#built", "#n", "#c"


class BoardNotBuilt(Exception):
    """The board is missing or inconsistent in Redis: rebuild it from the database."""


class BoardAged(BoardNotBuilt):
    """The board is consistent but older than LEADERBOARD_REDIS_MAX_AGE: rebuild it if you can.

    (A write lost between a commit and Redis, e.g. a process killed in
    between, is repaired by the periodic rebuild.) Reading it anyway is allowed
    when the rebuild loses its race with writers: pass ``accept_aged=True``.
    """


@dataclass(frozen=True)
class BoardKeys:
    all: str
    clean: str
    members: str
    version: str
    pages: str

    def board(self, *, clean: bool) -> str:
        return self.clean if clean else self.all


@dataclass(frozen=True)
class BoardRow:
    """What Redis needs to know about one ranked result."""

    result_id: int
    player_id: int
    won: bool
    score: int
    moves: int
    play_time_ms: int
    finished_at: dt.datetime
    assisted: bool


def prefix() -> str:
    """``settings.LEADERBOARD_REDIS_PREFIX``, by default ``dp:lb:<database>``.

    ``<database>`` names the database the boards mirror (on PostgreSQL its
    name and OID, e.g. ``dailypatience.16384``): a test run's ``test_<name>``
    database, or the same name dropped and created again, never meets the
    boards of another, even though they share one Redis.
    """
    configured = getattr(settings, "LEADERBOARD_REDIS_PREFIX", None)
    if configured:
        return str(configured)
    return f"{DEFAULT_PREFIX}:{_database_tag(connection.vendor, str(connection.settings_dict.get('NAME') or ''))}"


@lru_cache(maxsize=8)
def _database_tag(vendor: str, name: str) -> str:
    tag = (
        name
        if re.fullmatch(r"[\w.-]{1,40}", name)
        else hashlib.sha1(name.encode(), usedforsecurity=False).hexdigest()[:12]
    )
    if vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
            row = cursor.fetchone()
        if row is not None:
            tag = f"{tag}.{row[0]}"
    return tag


def ttl_seconds() -> int:
    return int(getattr(settings, "LEADERBOARD_REDIS_TTL", DEFAULT_TTL))


def max_age_seconds() -> float:
    return float(getattr(settings, "LEADERBOARD_REDIS_MAX_AGE", DEFAULT_MAX_AGE))


class _Challenge(Protocol):
    pk: Any
    date: dt.date
    game: str


def board_keys(*, challenge: _Challenge) -> BoardKeys:
    """The keys of a challenge's board: ``<prefix>:{<date>:<game>:<challenge id>}:<part>``."""
    base = f"{prefix()}:{{{challenge.date.isoformat()}:{challenge.game}:{challenge.pk}}}"
    return BoardKeys(
        all=f"{base}:all",
        clean=f"{base}:clean",
        members=f"{base}:members",
        version=f"{base}:version",
        pages=f"{base}:pages",
    )


# --- Encoding -------------------------------------------------------------------


def _capped_level(*, score: int, moves: int, play_time_ms: int) -> int:
    """0: nothing capped; 1: the play time is; 2: the moves are; 3: the score is."""
    if score >= SCORE_CAP:
        return 3
    if moves >= MOVES_CAP:
        return 2
    if play_time_ms >= TIME_CAP:
        return 1
    return 0


def sort_key(*, won: bool, score: int, moves: int, play_time_ms: int) -> int:
    """The 53-bit ascending sort key (lower ranks first).

    Once a field reaches its cap, the fields after it are zeroed: every entry
    with that field capped then ties on the key, and the member's exact values
    decide (see :func:`member`).
    """
    level = _capped_level(score=score, moves=moves, play_time_ms=play_time_ms)
    key = (0 if won else 1) << WON_SHIFT
    key |= (SCORE_CAP - min(score, SCORE_CAP)) << SCORE_SHIFT
    if level < 3:
        key |= min(moves, MOVES_CAP) << MOVES_SHIFT
    if level < 2:
        key |= min(play_time_ms, TIME_CAP)
    assert 0 <= key <= MAX_SORT_KEY
    return key


def finished_us(finished_at: dt.datetime) -> int:
    return (finished_at - EPOCH) // dt.timedelta(microseconds=1)


def member(*, score: int, moves: int, play_time_ms: int, finished_at: dt.datetime, result_id: int) -> str:
    """The member: the exact values from the first capped field on (if any), the finish, the id."""
    level = _capped_level(score=score, moves=moves, play_time_ms=play_time_ms)
    overflow = ""
    if level >= 3:
        overflow += f"s{(10**10 - 1) - score:010d}"  # higher score first
    if level >= 2:
        overflow += f"m{moves:010d}"
    if level >= 1:
        overflow += f"t{play_time_ms:019d}"
    return f"{overflow}{finished_us(finished_at):017d}:{result_id:019d}"


def member_result_id(value: str) -> int:
    return int(value.rsplit(":", 1)[1])


def row_entry(row: BoardRow) -> tuple[str, int]:
    return (
        member(
            score=row.score,
            moves=row.moves,
            play_time_ms=row.play_time_ms,
            finished_at=row.finished_at,
            result_id=row.result_id,
        ),
        sort_key(won=row.won, score=row.score, moves=row.moves, play_time_ms=row.play_time_ms),
    )


# --- Connection -----------------------------------------------------------------


@lru_cache(maxsize=4)
def _client_for(url: str, socket_timeout: float, connect_timeout: float) -> redis.Redis:
    return redis.Redis.from_url(
        url,
        decode_responses=True,
        socket_timeout=socket_timeout,
        socket_connect_timeout=connect_timeout,
        # No retries of its own: a failure costs one timeout, then the caller
        # reads the database (and core.circuit.REDIS skips Redis for a while).
        retry=Retry(NoBackoff(), 0),
        health_check_interval=30,
    )


def get_client() -> redis.Redis | None:
    """The Redis client, or None when REDIS_URL is unset (boards come from the database)."""
    url = getattr(settings, "REDIS_URL", "")
    if not url:
        return None
    return _client_for(
        url,
        float(getattr(settings, "REDIS_SOCKET_TIMEOUT", 1.0)),
        float(getattr(settings, "REDIS_CONNECT_TIMEOUT", 1.0)),
    )


def read_client() -> redis.Redis | None:
    """The client for reads, or None while Redis is known to be down (read the database at once).

    Writes use :func:`get_client` and always try: a lost write is what the
    board's max age bounds, a skipped read costs nothing.
    """
    if circuit.REDIS.is_open():
        return None
    return get_client()


def read_failed(exc: BaseException) -> None:
    """A read failed: if Redis is down (not merely refusing a command), skip it for a while."""
    if circuit.is_outage(exc):
        circuit.REDIS.trip(exc)


# --- Writes ---------------------------------------------------------------------

# KEYS: all, clean, members, version
# ARGV: player id, member ("" = remove the player), score, in clean board ("1"/"0"), ttl
_SYNC_LUA = """
redis.call('INCR', KEYS[4])
redis.call('EXPIRE', KEYS[4], ARGV[5])
if redis.call('HEXISTS', KEYS[3], '#built') == 0 then
  return 0
end
local dn, dc = 0, 0
local old = redis.call('HGET', KEYS[3], ARGV[1])
if old then
  dn = dn - redis.call('ZREM', KEYS[1], old)
  dc = dc - redis.call('ZREM', KEYS[2], old)
end
if ARGV[2] ~= '' then
  dn = dn + redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
  if ARGV[4] == '1' then
    dc = dc + redis.call('ZADD', KEYS[2], ARGV[3], ARGV[2])
  end
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
else
  redis.call('HDEL', KEYS[3], ARGV[1])
end
redis.call('HINCRBY', KEYS[3], '#n', dn)
redis.call('HINCRBY', KEYS[3], '#c', dc)
local ttl = redis.call('TTL', KEYS[3])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
end
return 1
"""


def board_put(client: redis.Redis, keys: BoardKeys, row: BoardRow) -> None:
    """Add or replace the player's entry (a no-op on a board that is not built yet)."""
    value, score = row_entry(row)
    client.eval(
        _SYNC_LUA,
        4,
        keys.all,
        keys.clean,
        keys.members,
        keys.version,
        str(row.player_id),
        value,
        str(score),
        "0" if row.assisted else "1",
        str(ttl_seconds()),
    )


def board_drop(client: redis.Redis, keys: BoardKeys, *, player_id: int) -> None:
    """Remove the player's entry, if any."""
    client.eval(
        _SYNC_LUA, 4, keys.all, keys.clean, keys.members, keys.version, str(player_id), "", "0", "0", str(ttl_seconds())
    )


def board_rebuild(client: redis.Redis, keys: BoardKeys, load_rows: Callable[[], Iterable[BoardRow]]) -> bool:
    """Replace the board with ``load_rows()`` (read from PostgreSQL), atomically.

    The version key is WATCHed before the rows are read: a write that lands
    between the read and the MULTI/EXEC aborts the EXEC, and the rebuild starts
    over. Returns False if it kept losing that race.
    """
    ttl = ttl_seconds()
    for _ in range(REBUILD_TRIES):
        with client.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(keys.version)  # type: ignore[no-untyped-call]  # redis-py leaves Pipeline.watch unannotated
                rows = list(load_rows())
                entries = [(row, *row_entry(row)) for row in rows]
                pipe.multi()
                pipe.delete(keys.all, keys.clean, keys.members, keys.pages)
                for start in range(0, len(entries), CHUNK):
                    chunk = entries[start : start + CHUNK]
                    pipe.zadd(keys.all, {value: score for _, value, score in chunk})
                    clean = {value: score for row, value, score in chunk if not row.assisted}
                    if clean:
                        pipe.zadd(keys.clean, clean)
                    pipe.hset(keys.members, mapping={str(row.player_id): value for row, value, _ in chunk})
                n_clean = sum(1 for row in rows if not row.assisted)
                pipe.hset(
                    keys.members, mapping={BUILT: f"{time.time():.3f}", COUNT_ALL: len(rows), COUNT_CLEAN: n_clean}
                )
                for key in (keys.all, keys.clean, keys.members):
                    pipe.expire(key, ttl)
                pipe.execute()
                return True
            except redis.WatchError:
                continue
    logger.warning("leaderboard: gave up rebuilding %s after %d races with writers", keys.all, REBUILD_TRIES)
    return False


def board_invalidate(client: redis.Redis, keys: BoardKeys) -> None:
    """Forget the board: the next read rebuilds it."""
    pipe = client.pipeline(transaction=True)
    pipe.incr(keys.version)
    pipe.expire(keys.version, ttl_seconds())
    pipe.delete(keys.all, keys.clean, keys.members, keys.pages)
    pipe.execute()


# --- Reads ----------------------------------------------------------------------


def _check(header: Sequence[str | None], n_all: int, n_clean: int, keys: BoardKeys, *, accept_aged: bool) -> None:
    built, want_all, want_clean = header[:3]
    if built is None or want_all is None or want_clean is None:
        raise BoardNotBuilt(f"{keys.all}: not built")
    if int(want_all) != n_all or int(want_clean) != n_clean:
        raise BoardNotBuilt(f"{keys.all}: sizes {n_all}/{n_clean}, expected {want_all}/{want_clean}")
    age = time.time() - float(built)
    if not accept_aged and age > max_age_seconds():
        raise BoardAged(f"{keys.all}: built {age:.0f} s ago")


def board_page(
    client: redis.Redis, keys: BoardKeys, *, clean: bool, start: int, stop: int, accept_aged: bool = False
) -> tuple[int, list[int]]:
    """(total, result ids ranked start..stop inclusive, 0-based). Raises BoardNotBuilt."""
    pipe = client.pipeline(transaction=True)
    pipe.hmget(keys.members, [BUILT, COUNT_ALL, COUNT_CLEAN])
    pipe.zcard(keys.all)
    pipe.zcard(keys.clean)
    pipe.zrange(keys.board(clean=clean), start, stop)
    header, n_all, n_clean, members = pipe.execute()
    _check(header, n_all, n_clean, keys, accept_aged=accept_aged)
    return (n_clean if clean else n_all), [member_result_id(m) for m in members]


def board_rank(
    client: redis.Redis, keys: BoardKeys, *, clean: bool, player_id: int, accept_aged: bool = False
) -> int | None:
    """The player's 0-based position on the board, or None. Raises BoardNotBuilt."""
    pipe = client.pipeline(transaction=True)
    pipe.hmget(keys.members, [BUILT, COUNT_ALL, COUNT_CLEAN, str(player_id)])
    pipe.zcard(keys.all)
    pipe.zcard(keys.clean)
    header, n_all, n_clean = pipe.execute()
    _check(header, n_all, n_clean, keys, accept_aged=accept_aged)
    value = header[3]
    if value is None:
        return None
    position = cast("int | None", client.zrank(keys.board(clean=clean), value))  # without withscore: the rank
    return None if position is None else int(position)


def _run_script(client: redis.Redis, source: str, sha: str, keys: Sequence[str], args: Sequence[str]) -> Any:
    """A read script by its digest (one short command), sent whole only when Redis lacks it."""
    try:
        return client.evalsha(sha, len(keys), *keys, *args)
    except redis.exceptions.NoScriptError:
        return client.eval(source, len(keys), *keys, *args)


# KEYS: members, all, clean; ARGV: player id, radius, clean ("1"/"0"). What board_rank and
# board_page read for a player's neighbourhood, in one command instead of three round trips.
_AROUND_LUA = """
local h = redis.call('HMGET', KEYS[1], '#built', '#n', '#c', ARGV[1])
local n_all, n_clean = redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3])
local board = KEYS[2]
if ARGV[3] == '1' then board = KEYS[3] end
if h[4] then
  local pos = redis.call('ZRANK', board, h[4])
  if pos then
    local start = math.max(0, pos - tonumber(ARGV[2]))
    return {h[1], h[2], h[3], n_all, n_clean, pos, start, redis.call('ZRANGE', board, start, pos + tonumber(ARGV[2]))}
  end
end
return {h[1], h[2], h[3], n_all, n_clean, -1, 0, {}}
"""
_AROUND_SHA = hashlib.sha1(_AROUND_LUA.encode(), usedforsecurity=False).hexdigest()


def board_around(
    client: redis.Redis, keys: BoardKeys, *, clean: bool, player_id: int, radius: int, accept_aged: bool = False
) -> tuple[int, int | None, int, list[int]]:
    """(total, the player's 0-based position or None, the first listed position, the result ids
    ranked within ``radius`` of it: none without a position). One round trip. Raises BoardNotBuilt."""
    reply = _run_script(
        client,
        _AROUND_LUA,
        _AROUND_SHA,
        (keys.members, keys.all, keys.clean),
        (str(player_id), str(radius), "1" if clean else "0"),
    )
    built, want_all, want_clean, n_all, n_clean, position, start, members = reply
    _check([built, want_all, want_clean], int(n_all), int(n_clean), keys, accept_aged=accept_aged)
    total = int(n_clean) if clean else int(n_all)
    if int(position) < 0:
        return total, None, 0, []
    return total, int(position), int(start), [member_result_id(m) for m in members]


# --- Page cache (see the module's docstring) -------------------------------------------


def page_field(*, clean: bool, limit: int) -> str:
    return f"{int(clean)}:{limit}"


# KEYS: members, all, clean, version, pages; ARGV: field. What board_page's checks need, the
# version and the cached page, read atomically in one command (lighter than MULTI/EXEC).
_PAGE_READ_LUA = """
local h = redis.call('HMGET', KEYS[1], '#built', '#n', '#c')
return {h[1], h[2], h[3], redis.call('ZCARD', KEYS[2]), redis.call('ZCARD', KEYS[3]),
        redis.call('GET', KEYS[4]), redis.call('HGET', KEYS[5], ARGV[1])}
"""
_PAGE_READ_SHA = hashlib.sha1(_PAGE_READ_LUA.encode(), usedforsecurity=False).hexdigest()


def board_cached_page(client: redis.Redis, keys: BoardKeys, *, field: str) -> tuple[str | None, str | None]:
    """(the cached page if still current, else None; the token to store a fresh one under, or None).

    One round trip (a script). The token is None when the board is not valid as it stands
    (missing, inconsistent or aged): the caller's normal read repairs it first,
    and the page computed then is not stored.
    """
    reply = _run_script(
        client, _PAGE_READ_LUA, _PAGE_READ_SHA, (keys.members, keys.all, keys.clean, keys.version, keys.pages), (field,)
    )
    built, want_all, want_clean, n_all, n_clean, version, cached = reply
    header = [built, want_all, want_clean]
    try:
        _check(header, int(n_all), int(n_clean), keys, accept_aged=False)
    except BoardNotBuilt:
        return None, None
    token = f"{version or 0}:{header[0]}"
    if cached is not None:
        stored_token, _, body = cached.partition("|")
        if stored_token == token:
            return body, token
    return None, token


def board_store_page(client: redis.Redis, keys: BoardKeys, *, field: str, token: str, body: str) -> None:
    """Keep a rendered page, labelled with the token read before it was computed."""
    pipe = client.pipeline(transaction=False)
    pipe.hset(keys.pages, field, f"{token}|{body}")
    pipe.expire(keys.pages, max(1, int(max_age_seconds())))
    pipe.execute()
