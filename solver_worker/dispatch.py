"""Sending the solver worker's tasks for an admin: a seed to prove.

Apart from the services (which the tasks call) so that nothing imports in a circle: this module
imports the tasks, the tasks import the services.
"""

from __future__ import annotations

import logging

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from games.models import Challenge, SeedVerification
from solver_worker.services import refuse_if_played
from solver_worker.tasks import verify_seed

logger = logging.getLogger(__name__)


def seed_verification_request(*, challenge_id: int, seed: int, requested_by: User | None = None) -> SeedVerification:
    """Admin: queue a proof of ``seed`` for the challenge (a task on the solver queue does the solving).

    Refused at once (Conflict) when the challenge has attempts; checked again when the seed is swapped.
    """
    challenge = Challenge.objects.get(pk=challenge_id)
    refuse_if_played(challenge)
    with transaction.atomic():
        verification = SeedVerification.objects.create(challenge=challenge, seed=seed, requested_by=requested_by)
        verification_id = verification.pk
        transaction.on_commit(lambda: _enqueue_seed_verification(verification_id))
    return verification


def _enqueue_seed_verification(verification_id: int) -> None:
    try:
        verify_seed.delay(verification_id)
    except Exception:  # the row says queued; "Verify now" again sends another request
        logger.exception("could not enqueue seed verification %s", verification_id)
        SeedVerification.objects.filter(pk=verification_id, status=SeedVerification.Status.QUEUED).update(
            status=SeedVerification.Status.FAILED,
            message="the task could not be sent (broker down?): try again",
            finished_at=timezone.now(),
        )
