"""Game reviews: made once on the solver queue, for every finished ranked game of a day that is over, and
for a practice game when its player asks (a few a day).

``reviews_sweep`` (beat, and every round of ``keep_days_ready``) creates a queued row per ranked attempt
due and sends ``solver_worker.review_attempt`` with its id; ``review_request`` (the owner's
``POST .../review``) does the same for one practice attempt, at most ``REVIEW_REQUESTS_PER_DAY`` a player
(``REVIEW_REQUESTS_PER_DAY_GUEST`` a guest) in any 24 hours and ``REVIEW_REQUESTS_PER_ADDRESS_PER_DAY`` an
address: practice is free and unlimited, its reviews cost seconds of solver each. ``review_make`` (the
task) fills the row, idempotently: a redelivered task finds it done, one that arrives while another
worker holds the row leaves it alone. Nothing of a day is reviewed, or disclosed, before that day is over.
Reading a review is ``reviews.selectors``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from core.errors import NotFound
from core.limits import Throttled
from core.limits import enabled as limits_enabled
from core.tasks import send
from games import days
from games.models import Attempt, Guest, Result, Submission
from reviews.models import GameReview
from reviews.selectors import ReviewView, day_best, review_get, review_is_due, review_refuse_if_not_due
from solver.review import WON, Budget, review_game

logger = logging.getLogger(__name__)

REVIEW_TASK = "solver_worker.review_attempt"
# A row held RUNNING for longer than this without finishing belongs to a worker that died.
REVIEW_LEASE = dt.timedelta(minutes=10)
# A row still QUEUED this long after the sweep made it lost its task (a broker outage): send it again.
REVIEW_RESEND_AFTER = dt.timedelta(hours=12)
# A review that failed (a bug, not a budget: undecided is a result) is tried this many times in all.
REVIEW_MAX_TRIES = 3


def review_budget() -> Budget:
    return Budget(
        probe_seconds=settings.REVIEW_PROBE_SECONDS,
        probe_nodes=settings.REVIEW_PROBE_NODES,
        probes=settings.REVIEW_PROBES,
        seconds=settings.REVIEW_SECONDS,
    )


def attempt_log(*, attempt: Attempt) -> list[str]:
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
            attempt_log(attempt=attempt),
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
        if attempt is None or not review_is_due(attempt=attempt):
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
    review_refuse_if_not_due(attempt=attempt)
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


def review_requests_allowed(*, player: User) -> int:
    """Practice reviews a player may ask for in 24 hours: guests fewer (they cost nothing to make)."""
    if Guest.objects.filter(user_id=player.pk).exists():
        return int(settings.REVIEW_REQUESTS_PER_DAY_GUEST)
    return int(settings.REVIEW_REQUESTS_PER_DAY)


def _refuse_past_the_players_share(player: User, now: dt.datetime) -> None:
    allowed = review_requests_allowed(player=player)
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
    key = address_count_key(address=address, day=now.date())
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


def address_count_key(*, address: str, day: dt.date) -> str:
    return "dp:review-requests:" + hashlib.sha256(f"{day.isoformat()}:{address}".encode()).hexdigest()[:32]


def _in_words(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    if seconds < 2 * 3600:
        return f"{seconds // 60} minutes"
    return f"{seconds // 3600} hours"
