"""Players and guests: sign-up, a visitor's guest player, and its games claimed by an account."""

from __future__ import annotations

import functools
import secrets

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction

from core import names
from games import days, hooks
from games.auth import token_create
from games.errors import BadRequest, Conflict
from games.models import Attempt, Guest, PlayerNameKey, Result
from games.services.fairplay import result_fair_play_check_claimed

NAME_KEY_MAX_BYTES = 1100  # UTF-8: well within a PostgreSQL index entry (about 2,700 bytes)


def player_name_clean(*, username: str) -> str:
    """The name as it will be stored (NFKC, trimmed), validated in that form: a 400 with the reason
    for a name that is too long once normalised, holds characters a name may not, or has no keys."""
    if not isinstance(username, str):
        raise BadRequest("The username must be a string.")
    name = names.normalize(username)
    username_field = get_user_model()._meta.get_field("username")
    if not name:
        raise BadRequest("The username cannot be empty.")
    hidden = names.hidden_characters(name)
    if hidden:
        raise BadRequest(f"The username holds invisible or control characters ({', '.join(hidden[:5])}).")
    max_length = username_field.max_length or 150
    if len(name) > max_length:
        raise BadRequest(
            f"The username is {len(name)} characters long once normalised (NFKC); the most is {max_length}."
        )
    try:
        for validator in username_field.validators:
            validator(name)
    except DjangoValidationError as exc:
        shown = f" (it reads {name!r} once normalised)" if name != username.strip() else ""
        raise BadRequest(" ".join(exc.messages) + shown) from None
    if max(len(key.encode()) for key in names.name_keys(name)) > NAME_KEY_MAX_BYTES:
        raise BadRequest("The username is too long.")
    return name


def _name_taken(name: str) -> Conflict:
    return Conflict(f"The username {name!r} is taken.")


def _name_keys_create(*, user: User, name: str) -> None:
    """The player's name keys; Conflict, saying with which existing name, when one is taken. The
    unique columns decide: two names written at the same moment cannot both pass."""
    keys = names.name_keys(name)
    clash = PlayerNameKey.objects.filter(key__in=keys).select_related("user").order_by("key").first()
    if clash is not None:
        if clash.key.startswith("f:"):
            raise _name_taken(name)
        other = clash.user.get_username()
        raise Conflict(f"The username {name!r} looks too much like the existing name {other!r}: choose another.")
    try:
        with transaction.atomic():
            PlayerNameKey.objects.bulk_create([PlayerNameKey(user=user, key=key) for key in sorted(keys)])
    except IntegrityError:
        raise Conflict(f"The username {name!r} is taken, or looks too much like a name just taken.") from None


def player_create(*, username: str, password: str, guest: User | None = None, email: str = "") -> User:
    """A new player (a 400 for a bad name or weak password, a 409 for a taken or look-alike name).
    With ``guest``, the guest's games, leagues and results become the new player's in the same
    transaction (see :func:`guest_claim`): the sign-up and the claim succeed or fail together.
    ``email`` (optional, checked by the caller's form) is only ever used to reset a forgotten password."""
    name = player_name_clean(username=username)
    email = User.objects.normalize_email(email.strip()) if email else ""
    try:
        validate_password(password, user=User(username=name, email=email))
    except DjangoValidationError as exc:
        raise BadRequest(" ".join(exc.messages)) from None
    if User.objects.filter(username__iexact=name).exists():  # also players made before name keys
        raise _name_taken(name)
    with transaction.atomic():
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=name, email=email, password=password)
        except IntegrityError:
            raise _name_taken(name) from None
        _name_keys_create(user=user, name=name)
        if guest is not None:
            guest_claim(guest=guest, account=user, new_account=True)
    return user


def player_register(*, username: str, password: str) -> tuple[str, str]:
    """Create a player and return its stored name and an API token (see :func:`player_create`)."""
    with transaction.atomic():
        user = player_create(username=username, password=password)
        key = token_create(user=user)  # shown this once: only its digest is stored
    return user.get_username(), key


def guest_create() -> User:
    """A visitor who plays before signing up: a player named ``guest-`` and six hex digits, with no
    password (nobody can log in as it), marked by a Guest row. Its first attempt is ranked as anyone's."""

    for _ in range(20):
        username = f"guest-{secrets.token_hex(3)}"
        try:
            with transaction.atomic():
                user = User.objects.create_user(username=username)
                user.set_unusable_password()
                user.save(update_fields=["password"])
                Guest.objects.create(user=user)
                PlayerNameKey.objects.bulk_create(
                    [PlayerNameKey(user=user, key=key) for key in sorted(names.name_keys(username))]
                )
                return user
        except IntegrityError:
            continue  # that name (or a look-alike) is taken: draw another
    raise Conflict("no guest name is free right now: try again")  # pragma: no cover - 16 M names


def player_email_set(*, player: User, email: str) -> None:
    """A player's e-mail address for password resets ("" removes it). A guest has none: it has no
    password to reset, and signs up instead."""
    if player_is_guest(player=player):
        raise BadRequest("A guest has no e-mail address: sign up first.")
    player.email = User.objects.normalize_email(email.strip()) if email else ""
    player.save(update_fields=["email"])


def player_email_normalize(*, email: str) -> str:
    """An e-mail address as it is stored (the domain lower-cased, trimmed); "" for none."""
    return User.objects.normalize_email(email.strip()) if email else ""


def player_is_guest(*, player: User | AnonymousUser) -> bool:
    return isinstance(player, User) and Guest.objects.filter(user_id=player.pk).exists()


def guest_claim(*, guest: User, account: User, new_account: bool = False) -> int:
    """The guest's games become the account's, once it signs up or logs in; the guest is deleted.

    Signing up (``new_account``: the account is the guest under a name, made in this transaction)
    keeps every result as it was, ranked ones and so the streak included. Logging in to an account
    that exists: an attempt stays ranked only if it is of today's challenge and the account has no
    ranked attempt on that challenge yet: a visitor cannot get a second ranked go at a deal by
    playing it as a guest and then logging in to an account that already played it, nor keep only
    the best of several guests' past days. Otherwise it becomes practice (and leaves the board). An open attempt
    whose challenge the account also has open is dropped. The apps above move what they hold of
    the guest (leagues owned and joined: ``hooks.guest_claimed``) in the same transaction. A ranked
    result that moves is judged again by SPEC section 7's rule, with the account as its player
    (``fairplay.result_fair_play_check_claimed``): a hold it finds is added, one found before stays.

    Races, and the order of the locks: the account's row first, so claims into one account (two
    guests logging in at the same moment) take turns and the second sees the first's ranked
    attempts; then the guest's attempts, which a validation locks too (after its submission) before
    it stores a result (``submission_validate``), so a result lands on the player that owns the
    attempt when it is stored, never on a deleted guest; then the guest's rows (user and Guest), so
    a guest claimed twice at once moves once, and a row that another transaction would make to point
    at the guest (statistics for a result just validated) waits for its deletion. A validation never
    waits for the guest's row while it holds an attempt the claim waits for: no deadlock.
    Returns the attempts moved.
    """
    if guest.pk == account.pk:
        return 0

    today = days.today()
    moved = 0
    touched: set[int] = set()
    if not Guest.objects.filter(user_id=guest.pk).exists():
        return 0
    with transaction.atomic():
        User._default_manager.select_for_update().filter(pk=account.pk).values_list("pk").first()
        guest_attempts = list(
            Attempt.objects.select_for_update(of=("self",))
            .filter(player_id=guest.pk)
            .select_related("challenge")
            .order_by("pk")
        )
        # The guest's user row: nothing can point a new row at it until it is gone, so its deletion
        # below cannot fail on such a row.
        User._default_manager.select_for_update().filter(pk=guest.pk).values_list("pk").first()
        if Guest.objects.select_for_update().filter(user_id=guest.pk).values_list("pk").first() is None:
            return 0  # claimed already, by a claim that held the locks first
        for attempt in guest_attempts:
            mine = Attempt.objects.filter(player_id=account.pk, challenge_id=attempt.challenge_id)
            if attempt.finished_at is None and mine.filter(finished_at__isnull=True).exists():
                attempt.delete()
                continue
            past = attempt.challenge.date != today and not new_account
            if attempt.ranked and (past or mine.filter(ranked=True).exists()):
                attempt.ranked = False
            attempt.player_id = account.pk
            attempt.save(update_fields=["player", "ranked"])
            Result.objects.filter(submission__attempt=attempt).update(player_id=account.pk, ranked=attempt.ranked)
            claimed = Result.objects.filter(submission__attempt=attempt, ranked=True).first()
            if claimed is not None:  # judged again, the account as its player (SPEC section 7)
                result_fair_play_check_claimed(result=claimed, attempt=attempt)
            touched.add(attempt.challenge_id)
            moved += 1
        # Not send_robust: a receiver's failure undoes the claim rather than lose the guest's leagues.
        hooks.guest_claimed.send(sender=None, guest_id=guest.pk, account_id=account.pk)
        User._default_manager.filter(pk=guest.pk).delete()
        account_id = account.pk
        for challenge_id in touched:
            transaction.on_commit(
                functools.partial(hooks.send, hooks.results_changed, challenge_id=challenge_id, player_id=account_id)
            )
    return moved
