"""The "still winnable?" light: while a player practises a day that is over, is the game still winnable?

The deal of a day that is over is public, so the solver may say what it knows of the player's position:
``winnable`` only with a win the engine replayed from that very position, ``lost`` only when the solver's
complete search proved it (an ``unsolvable`` verdict), and ``undecided`` for everything the small budget
(``WINNABLE_SECONDS``, ``WINNABLE_NODES``) left open. Never for a ranked attempt, never for a day that is
not over, never for anybody else's attempt (``winnable_ask``).

The position is always the attempt's stored log on the server (never one a client sends). Answers are
cached by (game, position): ``State.key()`` is everything that decides the game's future, so two logs
that reach one position share one answer, and asking again costs a cache read. A position not in the
cache is solved by the task ``solver_worker.winnable_position`` (reviews.tasks) on a queue of its own
(``CELERY_WINNABLE_QUEUE``): the web request only reads the cache and sends the task, so a web thread is
never tied to a solve, however many players ask; the page polls until the answer is there. On the
embedded defaults (no broker) the task runs in the request, as every task does.

Fair shares: the queue holds only a few tasks of anybody, so one player's flood of new positions never
keeps another player's light waiting. An attempt has at most one solve in flight (asking again while it
runs, for that position or a newer one, is answered ``pending`` and sends nothing); a player has at most
``WINNABLE_TASKS_PER_PLAYER`` in flight over all their attempts (a guest ``WINNABLE_TASKS_PER_GUEST``),
and a client address (an IPv6 /64) ``WINNABLE_TASKS_PER_ADDRESS``, of which its guests together
``WINNABLE_GUEST_TASKS_PER_ADDRESS`` (guests are free to make: ten of them are one person). An ask past
a share sends nothing and is answered ``pending``: the page's next poll tries again once a task of its
owner is done. Each share is a few cache entries taken with ``add`` and freed by the task (or after
``IN_FLIGHT_SECONDS``, when a task was lost or dropped unrun). The asks themselves are throttled per
player and per address (``reviews.apis``).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache

from core.errors import Forbidden, NotFound
from core.tasks import send
from engine import State
from games import days
from games.models import Attempt, Guest
from games.services.positions import attempt_position, attempt_replay
from reviews.selectors import review_schedule
from solver import SolverBug
from solver.review import LOST_POSITION as LOST
from solver.review import UNDECIDED_POSITION as UNDECIDED
from solver.review import WINNABLE, decide

logger = logging.getLogger(__name__)

WINNABLE_TASK = "solver_worker.winnable_position"
PENDING = "pending"
LABELS = {
    WINNABLE: "still winnable",
    LOST: "no longer winnable",
    UNDECIDED: "solver undecided",
    PENDING: "checking…",
}
# How long an answer is kept: a position's verdict never changes (the budget is fixed by a node cap),
# but the cache is not a store.
ANSWER_SECONDS = 7 * 24 * 60 * 60
# How long a position is marked as being solved: no second task is sent for it meanwhile. Longer than a
# solve; a task lost with its worker frees the position again after it, and the next poll sends another.
PENDING_SECONDS = 20
# A task still queued after this long (a backlog) is dropped by the worker unrun: its player has moved on
# or asked again since.
TASK_EXPIRES_SECONDS = 30
# How long a task's shares (its attempt's, its player's and its address's) stay taken at most: a task is
# dropped unrun once this old (TASK_EXPIRES_SECONDS), so a share freed by time never has a task behind it.
IN_FLIGHT_SECONDS = TASK_EXPIRES_SECONDS
# How soon the page asks again while the answer is pending.
RETRY_AFTER_MS = 250
KEY_PREFIX = "dp:winnable:"


class NotPractice(Forbidden):
    """The light is for practice on a day that is over: a ranked game gets no help from the solver."""

    code = "ranked_attempt"


@dataclass(frozen=True)
class Verdict:
    """The solver's answer for one position, in the light's terms."""

    state: str  # winnable, lost or undecided
    nodes: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"state": self.state, "nodes": self.nodes, "seconds": round(self.seconds, 4)}


@dataclass(frozen=True)
class Answer:
    """What the API answers: the light for the attempt's stored log of ``moves`` entries."""

    attempt: int
    moves: int
    state: str  # winnable, lost, undecided, or pending (being solved: ask again)
    nodes: int | None = None
    seconds: float | None = None

    @property
    def label(self) -> str:
        return LABELS[self.state]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "attempt": self.attempt,
            "moves": self.moves,
            "state": self.state,
            "words": self.label,
            "nodes": self.nodes,
            "seconds": None if self.seconds is None else round(self.seconds, 4),
        }
        if self.state == PENDING:
            data["retry_after_ms"] = RETRY_AFTER_MS
        return data


# -- the verdict of one position (no Django below this line's callers need) ---------------------------


def position_verdict(*, state: State, seconds: float | None = None, nodes: int | None = None) -> Verdict:
    """The solver's verdict on ``state`` within the light's budget (``WINNABLE_SECONDS``, ``WINNABLE_NODES``).

    ``winnable`` only when the solver's win, played by the engine from ``state`` itself, wins; ``lost``
    only for the solver's ``unsolvable`` (its complete search); anything else is ``undecided``."""
    seconds = settings.WINNABLE_SECONDS if seconds is None else seconds
    nodes = settings.WINNABLE_NODES if nodes is None else nodes
    if state.won:
        return Verdict(WINNABLE, 0, 0.0)
    try:
        verdict, result = decide(state, seconds=seconds, nodes=nodes, shorten_log=False)
    except SolverBug:  # the solver checks its wins itself: never seen but in a test
        logger.error("the solver's win does not replay from a position of %s: reported undecided", state.deal.game)
        return Verdict(UNDECIDED, 0, 0.0)
    return Verdict(verdict, result.nodes, result.seconds)


def position_key(*, game: str, state: State) -> str:
    """The cache key of a position: the game and everything that decides its future (``State.key``),
    hashed, and the light's budget (an answer made with another budget may differ)."""
    text = repr((game, state.key(), settings.WINNABLE_NODES, settings.WINNABLE_SECONDS))
    return KEY_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:40]


def _cached(key: str) -> Verdict | None:
    try:
        data = cache.get(key)
    except Exception:  # a cache is never needed: the position is solved again
        logger.warning("winnable cache unreadable", exc_info=True)
        return None
    if isinstance(data, dict) and data.get("state") in (WINNABLE, LOST, UNDECIDED):
        return Verdict(str(data["state"]), int(data.get("nodes", 0)), float(data.get("seconds", 0.0)))
    return None


# -- who may ask ----------------------------------------------------------------------------------------


def _eligible(*, attempt_id: int, viewer: AbstractBaseUser | AnonymousUser) -> Attempt:
    """The caller's own practice attempt on a day that is over; nothing else, for anybody."""
    attempt = None
    if viewer.is_authenticated:
        attempt = Attempt.objects.select_related("challenge").filter(pk=attempt_id, player_id=viewer.pk).first()
    if attempt is None:  # someone else's attempt says nothing, not even that it exists
        raise NotFound(f"attempt {attempt_id} not found")
    if attempt.ranked:
        raise NotPractice(
            f"attempt {attempt_id} is ranked: the still-winnable light is only for practice on a day that is over"
        )
    day = attempt.challenge.date
    if not days.is_over(day):
        schedule = review_schedule(day=day)
        raise NotFound(
            f"the {day} deal is still being played today: the still-winnable light opens once that day is over, "
            f"at {schedule.ready_at.isoformat()}",
            details=schedule.to_json(),
        )
    return attempt


# -- asking (the API) and answering (the task) ----------------------------------------------------------


def winnable_ask(*, attempt_id: int, viewer: AbstractBaseUser | AnonymousUser, address: str) -> Answer:
    """The light for the caller's practice attempt as the server stores it: from the cache, or ``pending``
    while the task solves it (ask again after ``RETRY_AFTER_MS``). A task is sent only within the fair
    shares (module docstring): one in flight per attempt, a few per player and per ``address`` (the
    client's, ``core.net.client_network``). On the embedded defaults the task runs here, so the answer is
    there at once."""
    attempt = _eligible(attempt_id=attempt_id, viewer=viewer)
    length = len(attempt.moves)
    key = position_key(game=attempt.challenge.game, state=attempt_position(attempt=attempt))
    verdict = _cached(key)
    if verdict is None and _take_shares(attempt, key, address):
        try:
            sent = send(WINNABLE_TASK, args=(attempt.pk, length), expires=TASK_EXPIRES_SECONDS)
        except Exception:  # run in process (no broker), the task failed
            logger.warning("the winnable task of attempt %s failed", attempt.pk, exc_info=True)
            sent = False
        if not sent:  # no broker: the light stays grey, and the next ask tries again
            _free_shares(attempt.pk)
            _release(key)
            return Answer(attempt=attempt.pk, moves=length, state=UNDECIDED)
        verdict = _cached(key)  # made already when the task ran in process
    if verdict is None:
        return Answer(attempt=attempt.pk, moves=length, state=PENDING)
    return Answer(attempt=attempt.pk, moves=length, state=verdict.state, nodes=verdict.nodes, seconds=verdict.seconds)


def player_is_guest(*, user_id: int) -> bool:
    return Guest.objects.filter(user_id=user_id).exists()


def attempt_key(*, attempt_id: int) -> str:
    """Taken while a solve of the attempt is in flight; its value lists the other shares the task holds."""
    return f"{KEY_PREFIX}attempt:{attempt_id}"


def _share_keys(kind: str, who: str, size: int) -> list[str]:
    digest = hashlib.sha256(who.encode()).hexdigest()[:32]
    return [f"{KEY_PREFIX}{kind}:{digest}:{slot}" for slot in range(max(0, size))]


def player_share_keys(*, user_id: int, guest: bool) -> list[str]:
    size = settings.WINNABLE_TASKS_PER_GUEST if guest else settings.WINNABLE_TASKS_PER_PLAYER
    return _share_keys("player", str(user_id), size)


def address_share_keys(*, address: str) -> list[str]:
    return _share_keys("address", address, settings.WINNABLE_TASKS_PER_ADDRESS)


def guest_address_share_keys(*, address: str) -> list[str]:
    return _share_keys("guest-address", address, settings.WINNABLE_GUEST_TASKS_PER_ADDRESS)


def _take_one(keys: list[str]) -> str | None:
    """The first of ``keys`` free (taken now), or None when all are taken."""
    for share in keys:
        if _add(share):
            return share
    return None


def _add(key: str, value: Any = 1) -> bool:
    try:
        return bool(cache.add(key, value, IN_FLIGHT_SECONDS))
    except Exception:  # never seen (config.cache falls back to memory): no share is worth a dark light
        logger.warning("winnable cache unwritable", exc_info=True)
        return True


def _take_shares(attempt: Attempt, key: str, address: str) -> bool:
    """Take what a new task needs: the attempt's one solve in flight, the position (no second task for a
    position being solved), a share of the player's and of the address's (and of its guests'). False, with nothing kept,
    when any is taken already: the ask is answered pending and sends nothing."""
    mine = attempt_key(attempt_id=attempt.pk)
    if not _add(mine, []):
        return False
    if not _claim(key):
        _delete([mine])
        return False
    taken = [key + ":pending"]
    guest = player_is_guest(user_id=attempt.player_id)
    shares = [player_share_keys(user_id=attempt.player_id, guest=guest), address_share_keys(address=address)]
    if guest:
        shares.append(guest_address_share_keys(address=address))
    for keys in shares:
        share = _take_one(keys)
        if share is None:
            _delete([*taken, mine])
            return False
        taken.append(share)
    try:
        cache.set(mine, taken, IN_FLIGHT_SECONDS)
    except Exception:
        logger.warning("winnable cache unwritable", exc_info=True)
    return True


def _free_shares(attempt_id: int) -> None:
    """The task of the attempt is done (or was never sent): free the shares it held."""
    mine = attempt_key(attempt_id=attempt_id)
    try:
        held = cache.get(mine)
    except Exception:
        logger.warning("winnable cache unreadable", exc_info=True)
        held = None
    _delete([*(held if isinstance(held, list) else []), mine])


def _delete(keys: list[str]) -> None:
    try:
        cache.delete_many(keys)
    except Exception:
        logger.warning("winnable cache unwritable", exc_info=True)


def _claim(key: str) -> bool:
    """Mark the position as being solved; False when a task for it is already on its way."""
    try:
        return bool(cache.add(key + ":pending", 1, PENDING_SECONDS))
    except Exception:
        logger.warning("winnable cache unwritable", exc_info=True)
        return True


def _release(key: str) -> None:
    try:
        cache.delete(key + ":pending")
    except Exception:
        logger.warning("winnable cache unwritable", exc_info=True)


def winnable_make(*, attempt_id: int, moves: int) -> Verdict | None:
    """The task's work: the verdict on the position after the first ``moves`` entries of the attempt's
    stored log (a log only ever grows, so that prefix never changes), stored in the cache. The rules are
    checked again here, so a task sent by anybody for anything solves nothing it should not: None then.
    Whatever the outcome, the shares the attempt's task held are freed."""
    try:
        return _verdict_make(attempt_id=attempt_id, moves=moves)
    finally:
        _free_shares(attempt_id)


def _verdict_make(*, attempt_id: int, moves: int) -> Verdict | None:
    attempt = Attempt.objects.select_related("challenge").filter(pk=attempt_id).first()
    if attempt is None or attempt.ranked or not days.is_over(attempt.challenge.date):
        return None
    if not 0 <= moves <= len(attempt.moves):
        return None
    attempt.moves = list(attempt.moves[:moves])
    state = attempt_replay(attempt=attempt)
    key = position_key(game=attempt.challenge.game, state=state)
    verdict = _cached(key)
    if verdict is None:
        verdict = position_verdict(state=state)
        try:
            cache.set(key, verdict.to_json(), ANSWER_SECONDS)
        except Exception:
            logger.warning("winnable cache unwritable", exc_info=True)
    _release(key)
    return verdict
