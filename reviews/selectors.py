"""Reading game reviews: an attempt's review as its player (or anybody, for a ranked game of a day that is
over) may see it, the page of its win to watch, the day's best, and when a day's reviews open.

Nothing of a day is disclosed before that day is over: ``review_refuse_if_not_due`` is the one check, which
``review_get`` and the owner's request (``reviews.services.review_request``) both make.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from core.errors import Conflict, NotFound
from games import days
from games.models import Attempt
from games.selectors import attempt_is_public, board_results, log_replay_page
from reviews.models import GameReview
from solver.review import GAVE_UP_WINNABLE_CLAIM

BEST_PLAYERS = 3


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


def review_is_due(*, attempt: Attempt) -> bool:
    """A review is made of a finished attempt whose day is over, and of nothing else."""
    return attempt.finished_at is not None and days.is_over(attempt.challenge.date)


def review_refuse_if_not_due(*, attempt: Attempt) -> None:
    """NotFound before the attempt's day is over (saying when it opens); Conflict for a game not finished."""
    if not days.is_over(attempt.challenge.date):
        schedule = review_schedule(day=attempt.challenge.date)
        raise NotFound(
            f"no review of attempt {attempt.pk} exists yet: reviews of the {attempt.challenge.date} games are made "
            f"once that day is over, at {schedule.ready_at.isoformat()}",
            details=schedule.to_json(),
        )
    if attempt.finished_at is None:
        raise Conflict(f"attempt {attempt.pk} is not finished: a review is made of a finished game (submit it)")


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
    review_refuse_if_not_due(attempt=attempt)
    row = GameReview.objects.filter(attempt=attempt).first()
    if row is None and not attempt.ranked:  # practice: made when its player asks (review_request)
        return ReviewView(attempt=attempt, status="not_requested", review=None)
    if row is None or row.status in (GameReview.Status.QUEUED, GameReview.Status.RUNNING):
        return ReviewView(attempt=attempt, status="pending", review=None)
    if row.status == GameReview.Status.FAILED:
        return ReviewView(attempt=attempt, status="failed", review=None)
    data = closed_at_day_end_words(attempt=attempt, data=row.data)
    if isinstance(data, dict) and "best_players" in data:
        # Read now, not as stored: a result held, cleared or disqualified since leaves or joins them.
        data = {**data, "best_players": day_best(challenge_id=attempt.challenge_id)}
    return ReviewView(attempt=attempt, status="done", review=data)


CLOSED_AT_DAY_END_CLAIM = (
    "The game was still open when ranked play closed at midnight: it ended there, unfinished, "
    "in a position that could still be won."
)


def closed_at_day_end(*, attempt: Attempt) -> bool:
    """Whether a ranked attempt was ended by its day's end rather than by its player: the server times such
    an attempt as of the day's end (``games.services.attempts``), which nothing the player sends can reach."""
    return bool(
        attempt.ranked
        and attempt.finished_at is not None
        and attempt.finished_at >= days.next_day_starts_at(attempt.challenge.date)
    )


def closed_at_day_end_words(*, attempt: Attempt, data: Any) -> Any:
    """A review's words for a game closed by midnight: "unfinished at midnight", never "given up" (issue 53).
    Read now, so reviews stored before say it too."""
    if not isinstance(data, dict) or not closed_at_day_end(attempt=attempt):
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
