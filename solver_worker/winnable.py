"""The "still winnable?" light: while a player practises a day that is over, is the game still winnable?

The deal of a day that is over is public, so the solver may say what it knows of the player's position:
``winnable`` only with a win the engine replayed from that very position, ``lost`` only when the solver's
complete search proved it (an ``unsolvable`` verdict), and ``undecided`` for everything the small budget
(``WINNABLE_SECONDS``, ``WINNABLE_NODES``) left open. Never for a ranked attempt, never for a day that is
not over, never for anybody else's attempt (``winnable_ask``).

The position is always the attempt's stored log on the server (never one a client sends). Answers are
cached by (game, position): ``State.key()`` is everything that decides the game's future, so two logs
that reach one position share one answer, and asking again costs a cache read. A position not in the
cache is solved by the task ``solver_worker.winnable_position`` on a queue of its own
(``CELERY_WINNABLE_QUEUE``): the web request only reads the cache and sends the task, so a web thread is
never tied to a solve, however many players ask; the page polls until the answer is there. On the
embedded defaults (no broker) the task runs in the request, as every task does.
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
from games.models import Attempt
from games.services.positions import attempt_position, attempt_replay
from solver import SolverBug
from solver.review import LOST_POSITION as LOST
from solver.review import UNDECIDED_POSITION as UNDECIDED
from solver.review import WINNABLE, decide
from solver_worker.reviews import review_schedule

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


def position_verdict(state: State, *, seconds: float | None = None, nodes: int | None = None) -> Verdict:
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


def position_key(game: str, state: State) -> str:
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


def winnable_ask(*, attempt_id: int, viewer: AbstractBaseUser | AnonymousUser) -> Answer:
    """The light for the caller's practice attempt as the server stores it: from the cache, or ``pending``
    while the task solves it (ask again after ``RETRY_AFTER_MS``). On the embedded defaults the task runs
    here, so the answer is there at once."""
    attempt = _eligible(attempt_id=attempt_id, viewer=viewer)
    length = len(attempt.moves)
    key = position_key(attempt.challenge.game, attempt_position(attempt))
    verdict = _cached(key)
    if verdict is None and _claim(key):
        try:
            sent = send(WINNABLE_TASK, args=(attempt.pk, length), expires=TASK_EXPIRES_SECONDS)
        except Exception:  # run in process (no broker), the task failed
            logger.warning("the winnable task of attempt %s failed", attempt.pk, exc_info=True)
            sent = False
        if not sent:  # no broker: the light stays grey, and the next ask tries again
            _release(key)
            return Answer(attempt=attempt.pk, moves=length, state=UNDECIDED)
        verdict = _cached(key)  # made already when the task ran in process
    if verdict is None:
        return Answer(attempt=attempt.pk, moves=length, state=PENDING)
    return Answer(attempt=attempt.pk, moves=length, state=verdict.state, nodes=verdict.nodes, seconds=verdict.seconds)


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
    checked again here, so a task sent by anybody for anything solves nothing it should not: None then."""
    attempt = Attempt.objects.select_related("challenge").filter(pk=attempt_id).first()
    if attempt is None or attempt.ranked or not days.is_over(attempt.challenge.date):
        return None
    if not 0 <= moves <= len(attempt.moves):
        return None
    attempt.moves = list(attempt.moves[:moves])
    state = attempt_replay(attempt)
    key = position_key(attempt.challenge.game, state)
    verdict = _cached(key)
    if verdict is None:
        verdict = position_verdict(state)
        try:
            cache.set(key, verdict.to_json(), ANSWER_SECONDS)
        except Exception:
            logger.warning("winnable cache unwritable", exc_info=True)
    _release(key)
    return verdict
