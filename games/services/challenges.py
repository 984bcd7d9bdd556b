"""A challenge's preparation as its admin sees it and acts on it: how many days are ready, a preparer's claim
(shown, and released when its worker died), and an admin's new seed sent to be proven.

The proving itself is the solver worker's (``solver_worker.services``: preparing a day, proving a seed),
which sits above this app: what these functions need of it goes by task name (``core.tasks.send``), and
what both sides share is here (``PREPARE_LEASE``, ``refuse_if_played``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from core import tasks
from engine import GAME_IDS
from games.errors import Conflict
from games.models import Attempt, Challenge, SeedVerification

# A challenge in VERIFYING whose preparer has not shown progress for this long is taken to be
# abandoned (its process died) and may be claimed again. A preparer touches the row after every
# seed it tries, so this only needs to exceed one seed's solver budget (SOLVER_SECONDS, the
# prepare task's 16-minute hard limit at most).
PREPARE_LEASE = dt.timedelta(minutes=20)

VERIFY_SEED_TASK = "solver_worker.verify_seed"


def days_prepared_ahead(*, first: dt.date, count: int, games: Iterable[str] = GAME_IDS) -> dict[str, int]:
    """Per game, how many consecutive days from ``first`` (of ``count``) are ready: 0 means ``first`` is not."""
    ready = set(
        Challenge.objects.filter(
            date__gte=first, date__lt=first + dt.timedelta(days=count), status=Challenge.Status.READY
        ).values_list("game", "date")
    )
    ahead = {}
    for game in games:
        n = 0
        while n < count and (game, first + dt.timedelta(days=n)) in ready:
            n += 1
        ahead[game] = n
    return ahead


@dataclass(frozen=True)
class Claim:
    """A preparer's hold on a VERIFYING challenge: who, and how long since its last progress."""

    holder: str
    idle: dt.timedelta

    @property
    def abandoned(self) -> bool:
        return self.idle >= PREPARE_LEASE

    def __str__(self) -> str:
        minutes = self.idle.total_seconds() / 60
        state = (
            f"abandoned (no progress for {PREPARE_LEASE.total_seconds() / 60:g} min: the next preparer takes it over)"
            if self.abandoned
            else "live"
        )
        return f"held by {self.holder or 'an unknown preparer'}, last progress {minutes:.0f} min ago, {state}"


def challenge_claim(*, challenge: Challenge) -> Claim | None:
    """The claim on a challenge being prepared, or None when it is not being prepared."""
    if challenge.status != Challenge.Status.VERIFYING:
        return None
    return Claim(holder=challenge.claimed_by, idle=timezone.now() - challenge.updated_at)


def challenge_claim_release(*, challenge_id: int) -> bool:
    """Admin: give back the claim of a preparer that died (the challenge is pending again, and the next
    round or Verify now prepares it). False when it was not being prepared. A preparer still alive
    loses its work: it writes only a VERIFYING row (its progress and its seed are then dropped)."""
    released = Challenge.objects.filter(pk=challenge_id, status=Challenge.Status.VERIFYING).update(
        status=Challenge.Status.PENDING, claimed_by="", updated_at=timezone.now()
    )
    return released == 1


def seed_verification_request(*, challenge_id: int, seed: int, requested_by: User | None = None) -> SeedVerification:
    """Admin: queue a proof of ``seed`` for the challenge (the task ``solver_worker.verify_seed``, on the
    solver queue, runs ``solver_worker.services.seed_verification_run``). Refused at once (Conflict) when the
    challenge has attempts; checked again when the seed is swapped. When the task cannot be sent (the broker
    down), the row says so at once: "Verify now" again sends another request."""
    challenge = Challenge.objects.get(pk=challenge_id)
    refuse_if_played(challenge=challenge)
    with transaction.atomic():
        verification = SeedVerification.objects.create(challenge=challenge, seed=seed, requested_by=requested_by)
        verification_id = verification.pk
        transaction.on_commit(lambda: _seed_verification_send(verification_id))
    return verification


def _seed_verification_send(verification_id: int) -> None:
    if not tasks.send(VERIFY_SEED_TASK, args=(verification_id,)):
        SeedVerification.objects.filter(pk=verification_id, status=SeedVerification.Status.QUEUED).update(
            status=SeedVerification.Status.FAILED,
            message="the task could not be sent (broker down?): try again",
            finished_at=timezone.now(),
        )


def refuse_if_played(*, challenge: Challenge) -> None:
    """Conflict once anybody has started the challenge: its seed never changes under a player."""
    if Attempt.objects.filter(challenge=challenge).exists():
        raise Conflict("players have already started this challenge: its seed can no longer change")
