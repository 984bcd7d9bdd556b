"""An open attempt's position: its stored log replayed, or the snapshot cached after its last batch."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass

from django.core.cache import cache

from engine import (
    State,
    deal,
    play_log,
)
from games.models import Attempt

logger = logging.getLogger(__name__)


def attempt_replay(*, attempt: Attempt) -> State:
    """The attempt's position: its stored log (always legal) replayed from the deal."""
    state = State(deal(attempt.challenge.game, attempt.challenge.seed_int))
    error = play_log(state, attempt.moves)
    if error is not None:  # pragma: no cover - stored logs are checked move by move
        raise RuntimeError(f"stored log of attempt {attempt.pk} does not replay: {error}")
    return state


# An open attempt's position is kept in the cache after each stored batch, so the next batch starts
# from it instead of replaying the whole log from the deal: a batch costs what its own moves cost.
# The log in the database stays the truth: a missing, expired or unreadable snapshot means a replay.
# Each process also keeps the snapshots it wrote or read (:data:`_local`), so the next batch of the same
# attempt served by the same process needs no cache read: a snapshot for length L stays the position
# after the first L moves for good (logs only grow), so an old copy is never wrong, only short, and a
# short one is passed over for the shared cache's.
POSITION_CACHE_SECONDS = 6 * 60 * 60
_LOCAL_MAX = 4096  # snapshots a process keeps; past it its table starts again empty
_local: dict[int, CachedPosition] = {}


def forget_local_positions() -> None:
    """Drop this process's snapshots (tests start each with none: SQLite reuses row ids)."""
    _local.clear()


@dataclass(frozen=True)
class AttemptFacts:
    """What a batch needs to know of its attempt, and its answer says of it: the facts fixed when the
    attempt started, and whether it is assisted (which only ever turns on)."""

    id: int
    player_id: int
    challenge_id: int
    started_at: dt.datetime
    game: str
    seed: int
    date: dt.date
    ranked: bool
    assisted: bool

    @classmethod
    def of(cls, attempt: Attempt) -> AttemptFacts:
        challenge = attempt.challenge
        return cls(
            id=attempt.pk,
            player_id=attempt.player_id,
            challenge_id=challenge.pk,
            started_at=attempt.started_at,
            game=challenge.game,
            seed=challenge.seed_int,
            date=challenge.date,
            ranked=attempt.ranked,
            assisted=attempt.assisted,
        )


@dataclass(frozen=True)
class CachedPosition:
    """What the cache holds for an open attempt: the position after its first ``length`` moves, and
    the attempt's facts, so that a batch can be checked without reading the attempt.

    The log only ever grows by appending legal moves, so its length names its content; the start
    time tells the attempt from another one that reused its id (a test database)."""

    length: int
    snapshot: tuple[object, ...]
    attempt: AttemptFacts

    def fits(self, attempt: Attempt) -> bool:
        facts = self.attempt
        return (facts.player_id, facts.challenge_id, facts.started_at) == (
            attempt.player_id,
            attempt.challenge_id,
            attempt.started_at,
        ) and self.length == len(attempt.moves)


def position_key(*, attempt_id: int) -> str:
    return f"dp:position:{attempt_id}"


def position_cached(*, attempt_id: int, length: int | None = None) -> CachedPosition | None:
    """The snapshot cached for the attempt: this process's own when it is for ``length`` (or any, when
    no length is asked for), else the shared cache's."""
    local = _local.get(attempt_id)
    if local is not None and (length is None or local.length == length):
        return local
    try:
        cached = cache.get(position_key(attempt_id=attempt_id))
    except Exception:  # a cache is never needed: replay
        logger.warning("position cache unreadable for attempt %s", attempt_id, exc_info=True)
        return None
    if not isinstance(cached, CachedPosition):
        return None
    _remember_locally(attempt_id, cached)
    return cached


def _remember_locally(attempt_id: int, position: CachedPosition) -> None:
    known = _local.get(attempt_id)
    if known is not None and known.attempt.started_at == position.attempt.started_at and known.length > position.length:
        return  # this process knows a longer log of the same attempt
    if len(_local) >= _LOCAL_MAX:
        _local.clear()
    _local[attempt_id] = position


def attempt_position(*, attempt: Attempt) -> State:
    """The position after the attempt's stored log: from the snapshot cached with it, else replayed."""
    cached = position_cached(attempt_id=attempt.pk, length=len(attempt.moves))
    if cached is not None and cached.fits(attempt):
        try:
            return State.restore(deal(attempt.challenge.game, attempt.challenge.seed_int), cached.snapshot)
        except (TypeError, ValueError):
            logger.warning("position snapshot of attempt %s does not fit its deal: replaying", attempt.pk)
    return attempt_replay(attempt=attempt)


def position_remember(*, attempt: AttemptFacts, state: State, length: int) -> None:
    """After the commit (a rolled-back batch must leave no snapshot for a length it never stored)."""
    position = CachedPosition(length=length, snapshot=state.snapshot(), attempt=attempt)
    _remember_locally(attempt.id, position)
    try:
        cache.set(position_key(attempt_id=attempt.id), position, POSITION_CACHE_SECONDS)
    except Exception:
        logger.warning("position cache not written for attempt %s", attempt.id, exc_info=True)
