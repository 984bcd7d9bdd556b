"""How the games app tells the apps above it about results, without importing them.

``games`` is below ``leaderboard`` and ``leagues`` (see the layers contract in pyproject.toml):
it never calls them. They connect receivers to these signals in their ``AppConfig.ready``. (A result's rank is
read where it is shown, above games, through ``leaderboard.selectors.ranks.result_rank``.)

Signals (sent after the commit that made the change, with ``send_robust``: a receiver that
fails is logged, and never undoes what games stored; the boards are rebuilt from PostgreSQL):

- ``result_recorded(result_id)``: a validated result was stored.
- ``result_removed(result_id)``: a result left the boards (disqualified).
- ``results_changed(challenge_id, player_id)``: a challenge's results were redone (a
  revalidation, a guest's games claimed by an account): its board and the player's stats
  are to be computed again.

One signal is sent *inside* the transaction that makes the change, with ``send`` (not robust):

- ``guest_claimed(guest_id, account_id)``: a guest becomes an account (sign-up or login); each
  app moves what it holds of the guest to the account before the guest is deleted. A receiver
  that fails undoes the whole claim, so that nothing of the guest is lost.

And one is asked *inside* the idle-guest sweep's transaction (``services.guests``), for answers:

- ``guests_sweeping(guest_ids)``: each receiver returns the ids among them that must be kept because
  deleting them would lose something of other players (a league they own that others belong to).
  A receiver that fails keeps every guest of the batch.
"""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import Signal

logger = logging.getLogger(__name__)

result_recorded = Signal()
result_removed = Signal()
results_changed = Signal()
guest_claimed = Signal()
guests_sweeping = Signal()


def send(signal: Signal, **kwargs: Any) -> None:
    for receiver, outcome in signal.send_robust(sender=None, **kwargs):
        if isinstance(outcome, Exception):
            logger.error(
                "%s failed for %s: %r",
                getattr(receiver, "__qualname__", receiver),
                kwargs,
                outcome,
                exc_info=(type(outcome), outcome, outcome.__traceback__),
            )
