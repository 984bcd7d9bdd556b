"""Game reviews: made once on the solver queue, for every finished ranked game of a day that is over, and
for a practice game when its player asks (a few a day).

``reviews_sweep`` (beat, and every round of ``keep_days_ready``) creates a queued row per ranked attempt
due and sends ``solver_worker.review_attempt`` with its id; ``review_request`` (the owner's
``POST .../review``) does the same for one practice attempt, at most ``REVIEW_REQUESTS_PER_DAY`` a player
(``REVIEW_REQUESTS_PER_DAY_GUEST`` a guest) in any 24 hours and ``REVIEW_REQUESTS_PER_ADDRESS_PER_DAY`` an
address: practice is free and unlimited, its reviews cost seconds of solver each. ``review_make`` (the
task) fills the row, idempotently: a redelivered task finds it done, one that arrives while another
worker holds the row leaves it alone. Nothing of a day is reviewed, or disclosed, before that day is over.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import Conflict, NotFound
from core.limits import Throttled
from core.limits import enabled as limits_enabled
from core.tasks import send
from games import days
from games.models import Attempt, Guest, Result, Submission
from games.selectors import attempt_is_public, board_results, log_replay_page
from solver.review import GAVE_UP_WINNABLE_CLAIM, WON, Budget, review_game
from solver_worker.models import GameReview

logger = logging.getLogger(__name__)

REVIEW_TASK = "solver_worker.review_attempt"
# A row held RUNNING for longer than this without finishing belongs to a worker that died.
REVIEW_LEASE = dt.timedelta(minutes=10)
# A row still QUEUED this long after the sweep made it lost its task (a broker outage): send it again.
REVIEW_RESEND_AFTER = dt.timedelta(hours=12)
# A review that failed (a bug, not a budget: undecided is a result) is tried this many times in all.
REVIEW_MAX_TRIES = 3
BEST_PLAYERS = 3


def review_budget() -> Budget:
    return Budget(
        probe_seconds=settings.REVIEW_PROBE_SECONDS,
        probe_nodes=settings.REVIEW_PROBE_NODES,
        probes=settings.REVIEW_PROBES,
        seconds=settings.REVIEW_SECONDS,
    )


@dataclass(frozen=True)
class Schedule:
    """When a day's reviews and solution are published: at the day's end."""

    ready_at: dt.datetime
    ready_in_seconds: int

    def to_json(self) -> dict[str, Any]:
        return {"ready_at": self.ready_at.isoformat(), "ready_in_seconds": self.ready_in_seconds}


def review_schedule(*, day: dt.date, now: dt.datetime | None = None) -> Schedule:
    when = days.after_the_day(day, now)
    return Schedule(ready_at=when["ready_at"], ready_in_seconds=when["ready_in_seconds"])  # type: ignore[arg-type]


def review_is_due(attempt: Attempt) -> bool:
    """A review is made of a finished attempt whose day is over, and of nothing else."""
    return attempt.finished_at is not None and days.is_over(attempt.challenge.date)


def attempt_log(attempt: Attempt) -> list[str]:
    """The log as submitted (validated), else as the server stored it."""
    submission = Submission.objects.filter(attempt=attempt).only("moves").first()
    return list(submission.moves if submission is not None else attempt.moves)


# -- making reviews (the task) ------------------------------------------------------------------------


def review_make(*, attempt_id: int, budget: Budget | None = None) -> GameReview | None:
    """The task's work, by attempt id: the attempt's review, made now unless done or being made.

    None when there is nothing to review (no such attempt, not finished, its day not over): nothing
    is stored then."""
    review, mine = _claim(attempt_id)
    if review is None or not mine:
        return review
    attempt = review.attempt
    challenge = attempt.challenge
    try:
        result = review_game(
            challenge.game,
            challenge.seed_int,
            attempt_log(attempt),
            budget=budget or review_budget(),
            solution=list(challenge.solution) or None,
        )
        data = result.to_json()
        data.update(_service_part(attempt, won=result.outcome == WON))
    except Exception as exc:
        logger.exception("the review of attempt %s failed", attempt_id)
        GameReview.objects.filter(pk=review.pk, status=GameReview.Status.RUNNING).update(
            status=GameReview.Status.FAILED, error=f"{type(exc).__name__}: {exc}"[:2000], finished_at=timezone.now()
        )
        review.refresh_from_db()
        return review
    GameReview.objects.filter(pk=review.pk, status=GameReview.Status.RUNNING).update(
        status=GameReview.Status.DONE,
        outcome=result.outcome,
        winnable_after=result.winnable_after,
        lost_after=result.lost_after,
        data=data,
        seconds=result.seconds,
        error="",
        finished_at=timezone.now(),
    )
    review.refresh_from_db()
    return review


def _claim(attempt_id: int) -> tuple[GameReview | None, bool]:
    """The attempt's review row and whether this call is to make it (then it is marked RUNNING);
    the row as it stands when it is done or another worker holds it; None when no review is due."""
    now = timezone.now()
    with transaction.atomic():
        attempt = Attempt.objects.select_related("challenge").filter(pk=attempt_id).first()
        if attempt is None or not review_is_due(attempt):
            return None, False
        try:
            with transaction.atomic():
                GameReview.objects.get_or_create(attempt=attempt)
        except IntegrityError:  # made by a sweep or another task at the same moment: it exists now
            pass
        review = GameReview.objects.select_for_update().select_related("attempt__challenge").get(attempt=attempt)
        if review.status == GameReview.Status.DONE:
            return review, False
        if review.status == GameReview.Status.RUNNING and review.started_at and review.started_at > now - REVIEW_LEASE:
            return review, False  # another worker is making it
        if review.status == GameReview.Status.FAILED and review.tries >= REVIEW_MAX_TRIES:
            return review, False
        review.status = GameReview.Status.RUNNING
        review.started_at = now
        review.finished_at = None
        review.tries += 1
        review.save(update_fields=["status", "started_at", "finished_at", "tries"])
        return review, True


def _service_part(attempt: Attempt, *, won: bool) -> dict[str, Any]:
    """What the pure review cannot know: the attempt, its time, and for a won game the day's best."""
    challenge = attempt.challenge
    result = Result.objects.filter(submission__attempt=attempt).only("play_time_ms", "score").first()
    part: dict[str, Any] = {
        "attempt": attempt.pk,
        "date": challenge.date.isoformat(),
        "ranked": attempt.ranked,
        "play_time_ms": result.play_time_ms if result is not None else attempt.play_time_ms(),
        "score": result.score if result is not None else None,
    }
    if won:
        part["best_players"] = day_best(challenge_id=challenge.pk)
    return part


def day_best(*, challenge_id: int) -> list[dict[str, Any]]:
    """The day's best ranked games, from the results the day's public board shows (``board_results``:
    valid, unassisted, not held or disqualified, not a guest's), never from others (SPEC section 7)."""
    best = (
        board_results()
        .filter(challenge_id=challenge_id, assisted=False, won=True)
        .select_related("player")
        .order_by("-score", "moves", "play_time_ms", "finished_at")[:BEST_PLAYERS]
    )
    return [
        {"player": r.player.get_username(), "score": r.score, "moves": r.moves, "play_time_ms": r.play_time_ms}
        for r in best
    ]


# -- the sweep ----------------------------------------------------------------------------------------


def reviews_sweep(*, limit: int | None = None, now: dt.datetime | None = None) -> int:
    """Queue a review for every ranked attempt finished in the last REVIEW_LOOKBACK_DAYS whose day is over
    (oldest first, at most ``limit`` new ones), and send again what a lost task or a dead worker left
    behind (practice reviews a player asked for included). Practice gets a review only when its player
    asks (``review_request``). Returns the tasks sent."""
    now = now or timezone.now()
    limit = settings.REVIEW_SWEEP_LIMIT if limit is None else limit
    since = now - dt.timedelta(days=settings.REVIEW_LOOKBACK_DAYS)
    due = list(
        Attempt.objects.filter(
            finished_at__gte=since, challenge__date__lt=days.today(), ranked=True, review__isnull=True
        )
        .order_by("finished_at", "pk")
        .values_list("pk", flat=True)[:limit]
    )
    with transaction.atomic():
        GameReview.objects.bulk_create([GameReview(attempt_id=pk) for pk in due], ignore_conflicts=True)
        again = list(
            GameReview.objects.filter(attempt__finished_at__gte=since)
            .filter(
                Q(status=GameReview.Status.QUEUED, created_at__lt=now - REVIEW_RESEND_AFTER)
                | Q(status=GameReview.Status.RUNNING, started_at__lt=now - REVIEW_LEASE)
                | Q(status=GameReview.Status.FAILED, tries__lt=REVIEW_MAX_TRIES)
            )
            .values_list("attempt_id", flat=True)[: max(0, limit - len(due))]
        )
        fresh = set(due)
        ids = due + [pk for pk in again if pk not in fresh]
        transaction.on_commit(lambda: _send(ids))
    return len(ids)


def _send(attempt_ids: list[int]) -> None:
    for attempt_id in attempt_ids:
        if not send(REVIEW_TASK, args=(attempt_id,)):  # the row stays queued: the sweep sends it again later
            logger.warning("could not send the review of attempt %s", attempt_id)
            return  # the broker is down (its breaker open): the rest would not go either


# -- asking for a practice review (the owner) ----------------------------------------------------------

REQUEST_WINDOW = dt.timedelta(hours=24)


def review_request(*, attempt_id: int, player: User, address: str, now: dt.datetime | None = None) -> ReviewView:
    """The owner asks for the review of a finished game of a day that is over: a practice game's is queued
    now (once; asking again answers the row as it stands), within the player's and the address's share
    (:class:`core.limits.Throttled` past it, saying when the next one can be asked for). A ranked game's
    is made without asking: its review is answered as it stands. Anybody else's attempt is not found."""
    now = now or timezone.now()
    attempt = Attempt.objects.select_related("challenge", "player").filter(pk=attempt_id, player_id=player.pk).first()
    if attempt is None:
        raise NotFound(f"attempt {attempt_id} not found")
    _refuse_if_not_due(attempt)
    if attempt.ranked:
        return review_get(attempt_id=attempt_id, viewer=player)
    with transaction.atomic():
        # One request of a player at a time: parallel asks are counted one after the other.
        User.objects.select_for_update().filter(pk=player.pk).first()
        if GameReview.objects.filter(attempt=attempt).exists():
            return review_get(attempt_id=attempt_id, viewer=player)
        _refuse_past_the_players_share(player, now)
        _count_the_address(address, now)
        GameReview.objects.create(attempt=attempt)
        transaction.on_commit(lambda: _send([attempt.pk]))
    return review_get(attempt_id=attempt_id, viewer=player)


def review_requests_allowed(player: User) -> int:
    """Practice reviews a player may ask for in 24 hours: guests fewer (they cost nothing to make)."""
    if Guest.objects.filter(user_id=player.pk).exists():
        return int(settings.REVIEW_REQUESTS_PER_DAY_GUEST)
    return int(settings.REVIEW_REQUESTS_PER_DAY)


def _refuse_past_the_players_share(player: User, now: dt.datetime) -> None:
    allowed = review_requests_allowed(player)
    asked = list(
        GameReview.objects.filter(
            attempt__player_id=player.pk, attempt__ranked=False, created_at__gt=now - REQUEST_WINDOW
        )
        .order_by("created_at")
        .values_list("created_at", flat=True)
    )
    if len(asked) < allowed:
        return
    free_at = asked[len(asked) - allowed] + REQUEST_WINDOW  # when one of the last `allowed` leaves the window
    wait = max(1, int((free_at - now).total_seconds() + 0.999))
    raise Throttled(
        f"You have asked for {len(asked)} reviews of practice games in the last 24 hours, the most a player "
        f"may ({allowed}): the next one can be asked for in {_in_words(wait)}. Reviews of ranked games are "
        "made without asking.",
        wait=wait,
    )


def _count_the_address(address: str, now: dt.datetime) -> None:
    """One more practice review from ``address`` today (UTC day, counted in the cache); Throttled past
    ``REVIEW_REQUESTS_PER_ADDRESS_PER_DAY``: new players (guests) from one address share it."""
    if not limits_enabled():  # API_THROTTLE=false (load benchmarks) switches it off, as core.limits
        return
    key = address_count_key(address, now.date())
    try:
        cache.add(key, 0, 25 * 3600)
        count = int(cache.incr(key))
    except Exception:  # the cache is gone (config.cache falls back to memory first): the player's share holds
        logger.warning("review request count unavailable", exc_info=True)
        return
    if count > settings.REVIEW_REQUESTS_PER_ADDRESS_PER_DAY:
        midnight = dt.datetime.combine(now.date() + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)
        wait = max(1, int((midnight - now).total_seconds() + 0.999))
        raise Throttled(
            f"Too many reviews of practice games asked for from your address today "
            f"({settings.REVIEW_REQUESTS_PER_ADDRESS_PER_DAY}): try again in {_in_words(wait)}.",
            wait=wait,
        )


def address_count_key(address: str, day: dt.date) -> str:
    return "dp:review-requests:" + hashlib.sha256(f"{day.isoformat()}:{address}".encode()).hexdigest()[:32]


def _in_words(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    if seconds < 2 * 3600:
        return f"{seconds // 60} minutes"
    return f"{seconds // 3600} hours"


def _refuse_if_not_due(attempt: Attempt) -> None:
    if not days.is_over(attempt.challenge.date):
        schedule = review_schedule(day=attempt.challenge.date)
        raise NotFound(
            f"no review of attempt {attempt.pk} exists yet: reviews of the {attempt.challenge.date} games are made "
            f"once that day is over, at {schedule.ready_at.isoformat()}",
            details=schedule.to_json(),
        )
    if attempt.finished_at is None:
        raise Conflict(f"attempt {attempt.pk} is not finished: a review is made of a finished game (submit it)")


# -- reading a review (the API) -----------------------------------------------------------------------


@dataclass(frozen=True)
class ReviewView:
    attempt: Attempt
    status: str  # pending (not made yet), done, failed, or not_requested (practice its player has not asked for)
    review: dict[str, Any] | None


def review_get(*, attempt_id: int, viewer: User | AnonymousUser) -> ReviewView:
    """An attempt's review: the player's own, and anybody's ranked game once it is finished and its day is
    over (``games.selectors.attempt_is_public``). Another player's practice, or anybody else's attempt of a
    day not over yet, is not found (nothing of a day exists before it is over); an open attempt has none yet;
    a practice game has none until its player asks (``not_requested``)."""
    attempt = Attempt.objects.select_related("challenge", "player").filter(pk=attempt_id).first()
    owner = attempt is not None and viewer.is_authenticated and attempt.player_id == viewer.pk
    if attempt is None or not (owner or attempt_is_public(attempt=attempt)):
        raise NotFound(f"attempt {attempt_id} not found")
    _refuse_if_not_due(attempt)
    row = GameReview.objects.filter(attempt=attempt).first()
    if row is None and not attempt.ranked:  # practice: made when its player asks (review_request)
        return ReviewView(attempt=attempt, status="not_requested", review=None)
    if row is None or row.status in (GameReview.Status.QUEUED, GameReview.Status.RUNNING):
        return ReviewView(attempt=attempt, status="pending", review=None)
    if row.status == GameReview.Status.FAILED:
        return ReviewView(attempt=attempt, status="failed", review=None)
    data = closed_at_day_end_words(attempt, row.data)
    if isinstance(data, dict) and "best_players" in data:
        # Read now, not as stored: a result held, cleared or disqualified since leaves or joins them.
        data = {**data, "best_players": day_best(challenge_id=attempt.challenge_id)}
    return ReviewView(attempt=attempt, status="done", review=data)


CLOSED_AT_DAY_END_CLAIM = (
    "The game was still open when ranked play closed at midnight: it ended there, unfinished, "
    "in a position that could still be won."
)


def closed_at_day_end(attempt: Attempt) -> bool:
    """Whether a ranked attempt was ended by its day's end rather than by its player: the server times such
    an attempt as of the day's end (``games.services.attempts``), which nothing the player sends can reach."""
    return bool(
        attempt.ranked
        and attempt.finished_at is not None
        and attempt.finished_at >= days.next_day_starts_at(attempt.challenge.date)
    )


def closed_at_day_end_words(attempt: Attempt, data: Any) -> Any:
    """A review's words for a game closed by midnight: "unfinished at midnight", never "given up" (issue 53).
    Read now, so reviews stored before say it too."""
    if not isinstance(data, dict) or not closed_at_day_end(attempt):
        return data
    claims = [CLOSED_AT_DAY_END_CLAIM if c == GAVE_UP_WINNABLE_CLAIM else c for c in data.get("claims", [])]
    return {**data, "claims": claims, "closed_at_day_end": True}


def review_win_page(*, view: ReviewView, page: int) -> dict[str, Any]:
    """Page ``page`` of the review's "show a win from here": the line played up to the last winnable
    position, then the win the engine checked (``win_from``: where the win starts), a frame per move, in
    pages of ``games.selectors.REPLAY_PAGE_MOVES`` like an attempt's replay, each made once and cached:
    a 5,000-move win is 1.6 MB of frames and a second of CPU made whole. NotFound when the review offers
    no win (not made yet, or it found none), or past the last page."""
    review = view.review or {}
    attempt_id = view.attempt.pk
    if view.status != "done" or not review.get("win") or review.get("win_from") is None:
        raise NotFound(
            f"the review of attempt {attempt_id} offers no win to watch"
            + ("" if view.status == "done" else f" (its review is {view.status})")
        )
    start = int(review["win_from"])
    moves = [str(m) for m in review["line"][:start]] + [str(m) for m in review["win"]]
    challenge = view.attempt.challenge
    # The key names the attempt (its start time tells it from another one that reused the id) and the
    # log itself: a review made again with another win gets pages of its own.
    digest = hashlib.sha256(" ".join(moves).encode()).hexdigest()[:16]
    body = log_replay_page(
        game=challenge.game,
        seed=challenge.seed_int,
        moves=moves,
        page=page,
        base=f"dp:reviewwin:{attempt_id}:{view.attempt.started_at.timestamp()}:{digest}",
        what=f"the win of the review of attempt {attempt_id}",
    )
    return {**body, "win_from": start}
