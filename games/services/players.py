"""Players and guests: sign-up, a visitor's guest player, and its games claimed by an account."""

from __future__ import annotations

import functools
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from games import days, hooks
from games.errors import BadRequest, Conflict
from games.models import Attempt, Guest, Result


def player_register(*, username: str, password: str) -> str:
    """Create a player and return an API token. A taken name is a 409, a weak password a 400."""
    User = get_user_model()
    username_field = User._meta.get_field("username")
    try:
        for validator in username_field.validators:
            validator(username)
        validate_password(password, user=User(username=username))
    except DjangoValidationError as exc:
        raise BadRequest(" ".join(exc.messages)) from None
    if User.objects.filter(username__iexact=username).exists():
        raise Conflict(f"the username {username!r} is taken")
    try:
        with transaction.atomic():
            user = User.objects.create_user(username=username, password=password)
            token = Token.objects.create(user=user)
    except IntegrityError:
        raise Conflict(f"the username {username!r} is taken") from None
    return token.key


def guest_create() -> AbstractBaseUser:
    """A visitor who plays before signing up: a player named ``guest-`` and six hex digits, with no
    password (nobody can log in as it), marked by a Guest row. Its first attempt is ranked as anyone's."""
    User = get_user_model()
    for _ in range(20):
        username = f"guest-{secrets.token_hex(3)}"
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=username)
                user.set_unusable_password()
                user.save(update_fields=["password"])
                Guest.objects.create(user=user)
                return user
        except IntegrityError:
            continue  # that name is taken: draw another
    raise Conflict("no guest name is free right now: try again")  # pragma: no cover - 16 M names


def player_is_guest(player: AbstractBaseUser) -> bool:
    return bool(player.is_authenticated) and Guest.objects.filter(user_id=player.pk).exists()


def guest_claim(*, guest: AbstractBaseUser, account: AbstractBaseUser) -> int:
    """The guest's games become the account's, once it signs up or logs in; the guest is deleted.

    An attempt stays ranked only if it is of today's challenge and the account has no ranked
    attempt on that challenge yet: a visitor cannot get a second ranked go at a deal by playing it
    as a guest and then logging in to an account that already played it, nor keep only the best
    of several guests' days. Otherwise it becomes practice (and leaves the board). An open attempt
    whose challenge the account also has open is dropped. Returns the attempts moved.
    """
    if not Guest.objects.filter(user_id=guest.pk).exists() or guest.pk == account.pk:
        return 0
    today = days.today()
    moved = 0
    touched: set[int] = set()
    with transaction.atomic():
        guest_attempts = Attempt.objects.select_for_update(of=("self",)).filter(player_id=guest.pk)
        for attempt in guest_attempts.select_related("challenge"):
            mine = Attempt.objects.filter(player_id=account.pk, challenge_id=attempt.challenge_id)
            if attempt.finished_at is None and mine.filter(finished_at__isnull=True).exists():
                attempt.delete()
                continue
            if attempt.ranked and (attempt.challenge.date != today or mine.filter(ranked=True).exists()):
                attempt.ranked = False
            attempt.player_id = account.pk
            attempt.save(update_fields=["player", "ranked"])
            Result.objects.filter(submission__attempt=attempt).update(player_id=account.pk, ranked=attempt.ranked)
            touched.add(attempt.challenge_id)
            moved += 1
        get_user_model().objects.filter(pk=guest.pk).delete()
        account_id = account.pk
        for challenge_id in touched:
            transaction.on_commit(
                functools.partial(hooks.send, hooks.results_changed, challenge_id=challenge_id, player_id=account_id)
            )
    return moved
