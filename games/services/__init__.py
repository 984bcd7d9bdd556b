"""Writes of the games app, one module per concern:

- :mod:`.attempts`: starting an attempt, hints, ending it;
- :mod:`.challenges`: what the challenge's admin asks of a preparation (days ready, a preparer's claim,
  a seed sent to be proven);
- :mod:`.moves`: the move log: a batch of moves (unlocked and locked), the rules of play on a log,
  and the one append every writer of the log calls;
- :mod:`.positions`: an open attempt's position, replayed or from the cached snapshot;
- :mod:`.submissions`: validating a finished attempt's log, and the admin's corrections;
- :mod:`.players`: sign-up, guests, and a guest's games claimed by an account;
- :mod:`.fairplay`: fair-play cases: results held for an implausible pace or flagged for a shared origin,
  staff's decisions.
- :mod:`.guests`: guests nobody came back as, deleted once idle.

A service either does all of its work or raises and leaves the database as it was. Preparing
the days' deals and proving seeds is the solver worker's (``solver_worker.services``).
"""

from games.services.attempts import (
    attempt_get,
    attempt_hint,
    attempt_start,
    attempt_submit,
    attempts_close_expired,
)
from games.services.fairplay import fair_play_case_clear, fair_play_case_disqualify, origin_hash
from games.services.guests import guests_delete_idle, sessions_clear_expired
from games.services.moves import MovesOutcome, attempt_append_moves
from games.services.players import (
    guest_claim,
    guest_create,
    player_create,
    player_email_normalize,
    player_email_set,
    player_is_guest,
    player_name_clean,
    player_register,
)
from games.services.positions import attempt_position, attempt_replay
from games.services.submissions import (
    result_disqualify,
    submission_revalidate,
    submission_validate,
    submissions_resend_pending,
)

__all__ = [
    "MovesOutcome",
    "attempt_append_moves",
    "attempt_get",
    "attempt_hint",
    "attempt_position",
    "attempt_replay",
    "attempt_start",
    "attempt_submit",
    "attempts_close_expired",
    "fair_play_case_clear",
    "fair_play_case_disqualify",
    "guest_claim",
    "guest_create",
    "guests_delete_idle",
    "origin_hash",
    "player_create",
    "player_email_normalize",
    "player_email_set",
    "player_is_guest",
    "player_name_clean",
    "player_register",
    "result_disqualify",
    "sessions_clear_expired",
    "submission_revalidate",
    "submission_validate",
    "submissions_resend_pending",
]
