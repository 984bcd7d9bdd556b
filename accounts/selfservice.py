"""A player deleting their own account: the checks both entry points (the API and the page) make.

The password is asked for (a guest has none: its session is its only key) and checked under the
login limits of ``core.limits`` (per account and per address, with back-off), so this is no way
around them to guess a password; and the deletion must be confirmed.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from accounts.services import Deletion, player_delete
from core import limits
from core.errors import BadRequest, Forbidden
from games.models import Guest


class ConfirmationRequired(BadRequest):
    code = "confirmation_required"


class WrongPassword(Forbidden):
    code = "wrong_password"


def account_delete_self(*, request: Any, player: User, password: str, confirmed: bool) -> Deletion:
    """Delete ``player``'s own account once the password is right and the deletion confirmed."""
    if not confirmed:
        raise ConfirmationRequired(
            "Deleting your account erases your games, results and leagues for good: confirm it (confirm: true)."
        )
    if not Guest.objects.filter(user_id=player.pk).exists():
        with limits.login_guard(request=request, username=player.get_username()) as outcome:
            if player.check_password(password):
                outcome.success()
            else:
                outcome.failure()
        if outcome.succeeded is not True:
            raise WrongPassword("That is not your password: your account was not deleted.")
    return player_delete(player=player, by=player)
