"""An account's e-mail address: set only once its mailbox confirms it, changed only with the password,
and the old address told, with a way back (issue 51: a session alone must not be enough to take an
account by changing where its password resets go).

- A new address (on the account page, with the password; or given at sign-up) is not stored: a link
  is mailed to it (:func:`confirm_link_send`), and following it stores it (:func:`confirm_apply`). So
  ``User.email``, where reset links go, only ever holds an address whose mailbox answered. The link
  works for ``CONFIRM_DAYS`` days, while the account still has the address and password it had.
- The old address (if any) is told at once, with a way back (:func:`old_address_tell`): a link that,
  confirmed on its page (a POST, so that a mail scanner following links does nothing), puts the old
  address back, ends every session and API token, and sets a random password nobody knows, so that whoever
  changed it is out and the owner chooses a new password through a reset to the old address
  (:func:`way_back_apply`). It works for ``WAY_BACK_DAYS`` days.

The links are signed (``django.core.signing``, with ``SECRET_KEY``) and built from ``SITE_URL``.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.urls import reverse

from games import services
from games.models import ApiToken

CONFIRM_SALT = "daily-patience.email-confirm"
WAY_BACK_SALT = "daily-patience.email-way-back"
CONFIRM_DAYS = 3
WAY_BACK_DAYS = 14


def _password_tag(user: User) -> str:
    return hashlib.sha256(("email " + user.password).encode()).hexdigest()[:16]


def _url(name: str, token: str) -> str:
    site: str = settings.SITE_URL
    return site + reverse(name, kwargs={"token": token})


def confirm_link_send(*, user: User, email: str) -> None:
    """Mail the new address a link that stores it on the account once followed."""
    token = signing.dumps({"u": user.pk, "e": email, "f": user.email, "p": _password_tag(user)}, salt=CONFIRM_SALT)
    send_mail(
        "Daily Patience: confirm your e-mail address",
        f"Hello {user.get_username()},\n\n"
        f"To use this address for password resets on Daily Patience, follow this link within "
        f"{CONFIRM_DAYS} days:\n\n{_url('web:email_confirm', token)}\n\n"
        "If you did not ask for this, ignore this mail: nothing changes.\n",
        None,
        [email],
    )


def old_address_tell(*, user: User, old: str, new: str) -> None:
    """Tell the account's current address that it is being replaced (or removed), with the way back."""
    if not old:
        return
    token = signing.dumps({"u": user.pk, "e": old}, salt=WAY_BACK_SALT)
    change = f"changed to {new}" if new else "removed"
    send_mail(
        "Daily Patience: your e-mail address is being changed",
        f"Hello {user.get_username()},\n\n"
        f"The e-mail address of your Daily Patience account is being {change}.\n\n"
        f"If that was not you, follow this link within {WAY_BACK_DAYS} days to keep {old}: it logs "
        f"everybody out of the account, and you then choose a new password.\n\n"
        f"{_url('web:email_way_back', token)}\n",
        None,
        [old],
    )


def _load(token: str, *, salt: str, days: int) -> dict[str, Any] | None:
    try:
        value = signing.loads(token, salt=salt, max_age=days * 24 * 3600)
    except signing.BadSignature:
        return None
    return value if isinstance(value, dict) else None


def confirm_apply(*, token: str) -> User | None:
    """Store the address the link confirms; the account, or None when the link does not work (forged,
    expired, or the account's address or password changed since it was sent)."""
    value = _load(token, salt=CONFIRM_SALT, days=CONFIRM_DAYS)
    if value is None:
        return None
    with transaction.atomic():
        user = User.objects.select_for_update().filter(pk=int(value.get("u") or 0)).first()
        if user is None or services.player_is_guest(player=user):
            return None
        if user.email != value.get("f") or _password_tag(user) != value.get("p"):
            return None
        services.player_email_set(player=user, email=str(value.get("e") or ""))
    return user


def way_back_check(*, token: str) -> tuple[User, str] | None:
    """The account and the address a way-back link puts back, or None when it does not work."""
    value = _load(token, salt=WAY_BACK_SALT, days=WAY_BACK_DAYS)
    if value is None:
        return None
    user = User.objects.filter(pk=int(value.get("u") or 0)).first()
    if user is None or services.player_is_guest(player=user):
        return None
    return user, str(value.get("e") or "")


def way_back_apply(*, token: str) -> User | None:
    """Put the old address back, end every session and token, and set a password nobody knows."""
    found = way_back_check(token=token)
    if found is None:
        return None
    user, old = found
    with transaction.atomic():
        user = User.objects.select_for_update().get(pk=user.pk)
        user.email = old
        # A random password nobody knows (not an unusable one: Django's reset skips those): a new
        # session hash too, so every session of the account ends, and pending links die with it.
        user.set_password(secrets.token_urlsafe(32))
        user.save(update_fields=["email", "password"])
        ApiToken.objects.filter(user=user).delete()
    return user
