"""Reviews: ranked results held for an implausible pace or flagged for a shared origin, and staff's decisions.

- At validation (:func:`result_review_open`, inside the validating transaction): a ranked result whose
  play ``games.pace`` judges faster than a person is **held** (``Result.held``): it is on no public
  board, league board or other player's view until staff clear it. A ranked result of a player when
  another player has a ranked attempt on the same challenge started from the same client address or
  the same browser is **flagged** (a signal for staff, not a sanction: the result stays on the boards).
- In the admin (:func:`review_clear`, :func:`review_disqualify`): staff clear a review (a held result
  goes on the boards once no open review holds it) or disqualify the result; who and when are recorded.

Addresses and browser cookies are stored only as keyed hashes (:func:`origin_hash`): equal inputs
give equal hashes, and nothing else can be read from them without the server's secret.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games import hooks
from games.errors import Conflict
from games.models import Attempt, Result, Review
from games.pace import pace_verdict

# A long-lived random cookie naming the browser (set by the table's page, web.views.play): accounts that
# rank on one challenge from one browser are flagged, whatever address they come from.
BROWSER_COOKIE = "dp_browser"
BROWSER_COOKIE_SECONDS = 2 * 365 * 24 * 60 * 60


def origin_hash(*, kind: str, value: str) -> str:
    """A keyed hash of a client address or a browser cookie (``kind`` names which); "" for no value."""
    if not value:
        return ""
    value = value[:256]
    key = f"daily-patience review {kind}".encode() + settings.SECRET_KEY.encode()
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()[:32]


def result_review_open(*, result: Result, attempt: Attempt) -> None:
    """Judge a new ranked result (called by the validation, in its transaction, before it is announced)."""
    if not result.ranked:
        return
    reason = pace_verdict(log=attempt.moves, batches=attempt.batches)
    if reason is not None:
        result.held = True
        result.save(update_fields=["held"])
        Review.objects.create(result=result, kind=Review.Kind.PACE, holds=True, reason=f"Held: {reason}.")
    for kind, value in ((Review.Kind.ADDRESS, attempt.origin), (Review.Kind.BROWSER, attempt.browser)):
        if not value:
            continue
        others = list(
            Attempt.objects.filter(challenge_id=attempt.challenge_id, ranked=True, **{kind_field(kind): value})
            .exclude(player_id=attempt.player_id)
            .order_by("player__username")
            .values_list("player__username", flat=True)
        )
        if others:
            where = "client address" if kind == Review.Kind.ADDRESS else "browser"
            Review.objects.create(
                result=result,
                kind=kind,
                holds=False,
                others=others,
                reason=f"Flagged: {', '.join(others)} also ranked on this challenge from the same {where}.",
            )


def reviews_decided(result: Result) -> dict[str, tuple[str, int | None, dt.datetime | None]]:
    """Staff's decisions on a result's reviews, by kind: kept across a revalidation (which replaces the result)."""
    return {
        r.kind: (r.status, r.decided_by_id, r.decided_at) for r in result.reviews.exclude(status=Review.Status.OPEN)
    }


def reviews_redecide(result: Result, decided: dict[str, tuple[str, int | None, dt.datetime | None]]) -> None:
    """Apply :func:`reviews_decided` to the new result's reviews of the same kinds (in the caller's transaction)."""
    for review in result.reviews.filter(kind__in=list(decided)):
        review.status, review.decided_by_id, review.decided_at = decided[review.kind]
        review.save(update_fields=["status", "decided_by", "decided_at"])
    if result.held and not result.reviews.filter(holds=True, status=Review.Status.OPEN).exists():
        result.held = False
        result.save(update_fields=["held"])


def kind_field(kind: str) -> str:
    return "origin" if kind == Review.Kind.ADDRESS else "browser"


def _decide(*, review_id: int, staff: User, status: str) -> Review:
    with transaction.atomic():
        review = Review.objects.select_for_update().select_related("result").get(pk=review_id)
        result = Result.objects.select_for_update().get(pk=review.result_id)
        if result.disqualified and status == Review.Status.CLEARED:
            raise Conflict(f"the result of review {review_id} is disqualified: clearing does not undo that")
        review.status = status
        review.decided_by = staff
        review.decided_at = timezone.now()
        review.save(update_fields=["status", "decided_by", "decided_at"])
        if status == Review.Status.DISQUALIFIED:
            changed = not result.disqualified
            result.disqualified = True
            result.save(update_fields=["disqualified"])
            if changed:
                transaction.on_commit(lambda: hooks.send(hooks.result_removed, result_id=result.pk))
        else:
            still_held = result.reviews.filter(holds=True, status=Review.Status.OPEN).exists()
            if result.held and not still_held:
                result.held = False
                result.save(update_fields=["held"])
                transaction.on_commit(lambda: hooks.send(hooks.result_recorded, result_id=result.pk))
    return review


def review_clear(*, review_id: int, staff: User) -> Review:
    """Staff looked and found a person: the review is closed, and a held result goes on the boards."""
    return _decide(review_id=review_id, staff=staff, status=Review.Status.CLEARED)


def review_disqualify(*, review_id: int, staff: User) -> Review:
    """Staff looked and found no fair play: the result is disqualified, on no board for good."""
    return _decide(review_id=review_id, staff=staff, status=Review.Status.DISQUALIFIED)


def player_history(*, player_id: int, limit: int = 20) -> list[Result]:
    """The player's latest results, for staff reviewing one of them."""
    return list(
        Result.objects.filter(player_id=player_id)
        .select_related("challenge", "submission")
        .order_by("-finished_at")[:limit]
    )
