"""Token authentication whose lookup is one cache read instead of a database query, against tokens
stored as digests only.

A token's key is shown once, in the answer that made it (``POST /auth/register``, ``POST /auth/token``);
the database keeps its SHA-256 digest (``games.models.ApiToken``), the cache a key derived from that
digest, the admin neither. A request's key is digested once, and the digest is what is looked up (the
primary key's index) and compared (:func:`hmac.compare_digest`): a database dump gives no key a client
could send, and how long a lookup takes says nothing about the stored digests (an attacker cannot choose
the digest of what he sends). Keys are 160 random bits (40 hex digits, the format clients know).

DRF's ``TokenAuthentication`` joins the token and its user in the database on every request: about
0.7 ms, the largest single cost of a moves batch. Here the token's user (id, username, active) is
kept in the cache for :data:`TOKEN_CACHE_SECONDS`; the user object built from it has every other
field deferred, so reading one (``email``, ``is_staff``...) loads it from the database as usual.

What may be stale, and for how long: a token deleted, or a user saved or deleted, drops the cached
entry at once (the signals below, for every process sharing the cache). A change that sends no
signal (``QuerySet.update`` or raw SQL on users or tokens), or one made while Redis is down (each
process then has its own memory cache), is seen within :data:`TOKEN_CACHE_SECONDS`.

Each process also holds what it read for :data:`TOKEN_LOCAL_SECONDS` (a Redis round trip is the largest
part of authenticating a request): a token deleted, or a user saved, in another process is seen there
within those seconds; in the same process at once.

Revoking a token (logout, a password change, a deletion in the admin) is therefore seen at once by the
process that revoked it and by every process reading the shared cache, and within
:data:`TOKEN_LOCAL_SECONDS` by another process that read the token in the seconds before.

Tokens do not live for ever: one older than ``API_TOKEN_DAYS`` (default 30) is refused (401) and
deleted. Each login (``POST /auth/token``) makes a new token (a stored digest cannot give the old one
back), so each client device has its own; a player keeps at most :data:`TOKENS_PER_USER`, the oldest
going first (:func:`token_for_login`). A password change deletes every token of the user (the save
that changes it sends the signal), and ``POST /auth/logout`` deletes the token it is sent with: each
drops its cache entry at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import logging
import secrets
import time
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import DEFAULT_DB_ALIAS
from django.db.models.signals import post_delete, post_save
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from games.models import ApiToken

logger = logging.getLogger(__name__)

TOKEN_CACHE_SECONDS = 60
TOKEN_LOCAL_SECONDS = 5
TOKENS_PER_USER = 10  # a player's devices; a login past it deletes the oldest token
_LOCAL_MAX = 20_000  # entries held in a process; past it the process's table starts again empty
_CACHED_FIELDS = ("id", "username", "is_active")
# This process's copies: cache key -> (monotonic expiry, the cached tuple). Plain dict operations are
# atomic under the GIL, which is all the threads of a worker share here.
_local: dict[str, tuple[float, tuple[Any, ...]]] = {}


def forget_local_tokens() -> None:
    """Drop this process's copies (tests start each with none)."""
    _local.clear()


def token_digest(key: str) -> str:
    """What is stored of a key: its SHA-256, in hex."""
    return hashlib.sha256(key.encode()).hexdigest()


def _token_cache_key(digest: str) -> str:
    # The token itself is a secret: the cache holds (a part of) its digest, never the key.
    return "dp:token:" + digest[:40]


def _user_from(values: tuple[Any, ...]) -> Any:
    user_model = get_user_model()
    return user_model.from_db(DEFAULT_DB_ALIAS, list(_CACHED_FIELDS), list(values))


def token_expired(created: dt.datetime) -> bool:
    return timezone.now() - created > dt.timedelta(days=settings.API_TOKEN_DAYS)


def _refuse_expired(digest: str) -> None:
    ApiToken.objects.filter(digest=digest).delete()  # its post_delete drops the cache entry
    raise exceptions.AuthenticationFailed(
        f"This token has expired (tokens last {settings.API_TOKEN_DAYS} days): "
        "log in again for a new one (POST /api/v1/auth/token)."
    )


class CachedTokenAuthentication(TokenAuthentication):
    model = ApiToken

    def authenticate_credentials(self, key: str) -> tuple[Any, ApiToken]:
        digest = token_digest(key)
        cache_key = _token_cache_key(digest)
        local = _local.get(cache_key)
        if local is not None and local[0] > time.monotonic():
            cached: Any = local[1]
        else:
            try:
                cached = cache.get(cache_key)
            except Exception:  # the cache is never needed: ask the database
                logger.warning("token cache unreadable", exc_info=True)
                cached = None
            if isinstance(cached, tuple):
                _remember_locally(cache_key, cached)
        if isinstance(cached, tuple) and len(cached) == len(_CACHED_FIELDS) + 2:
            *fields, created, stored = cached
            if not (isinstance(stored, str) and hmac.compare_digest(stored, digest)):
                raise exceptions.AuthenticationFailed("Invalid token.")
            user = _user_from(tuple(fields))
            if not user.is_active:
                raise exceptions.AuthenticationFailed("User inactive or deleted.")
            if token_expired(created):
                _refuse_expired(digest)
            return user, ApiToken(digest=digest, user=user, created=created)
        try:
            token = ApiToken.objects.select_related("user").get(digest=digest)
        except ApiToken.DoesNotExist:
            raise exceptions.AuthenticationFailed("Invalid token.") from None
        if not hmac.compare_digest(token.digest, digest):
            raise exceptions.AuthenticationFailed("Invalid token.")
        user = token.user
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        if token_expired(token.created):
            _refuse_expired(digest)
        entry = (*(getattr(user, f) for f in _CACHED_FIELDS), token.created, token.digest)
        _remember_locally(cache_key, entry)
        try:
            cache.set(cache_key, entry, TOKEN_CACHE_SECONDS)
        except Exception:
            logger.warning("token cache not written", exc_info=True)
        return user, token


def _remember_locally(cache_key: str, entry: tuple[Any, ...]) -> None:
    if len(_local) >= _LOCAL_MAX:
        _local.clear()
    _local[cache_key] = (time.monotonic() + TOKEN_LOCAL_SECONDS, entry)


def token_create(*, user: Any) -> str:
    """A new token for ``user``: its key, which is returned here once and stored nowhere."""
    key = secrets.token_hex(20)
    ApiToken.objects.create(digest=token_digest(key), user=user, created=timezone.now())
    return key


def token_for_login(user: Any) -> str:
    """A new token after a login (its key); the user's expired tokens, and the oldest past
    :data:`TOKENS_PER_USER`, are deleted."""
    key = token_create(user=user)
    tokens = ApiToken.objects.filter(user=user)
    oldest = timezone.now() - dt.timedelta(days=settings.API_TOKEN_DAYS)
    kept = tokens.order_by("-created", "-digest").values_list("digest", flat=True)[:TOKENS_PER_USER]
    tokens.exclude(digest__in=list(kept)).delete()  # each post_delete drops its cache entry
    tokens.filter(created__lt=oldest).delete()
    return key


def tokens_hash_plain() -> int:
    """Every token still in Django REST framework's plain table (``authtoken_token``: one an older release
    made, e.g. at a login on an old process during an upgrade) gets its digest row, and its plain row is
    deleted; its client keeps working. What migration games 0014 did once; returns how many."""
    from rest_framework.authtoken.models import Token

    moved = 0
    while rows := list(Token.objects.order_by("key").values_list("key", "user_id", "created")[:1000]):
        ApiToken.objects.bulk_create(
            [ApiToken(digest=token_digest(key), user_id=user, created=created) for key, user, created in rows],
            ignore_conflicts=True,
        )
        Token.objects.filter(key__in=[key for key, _user, _created in rows]).delete()
        moved += len(rows)
    return moved


def token_revoke(digest: str) -> None:
    """Logging out of the API: the token is deleted (its cache entry with it)."""
    ApiToken.objects.filter(digest=digest).delete()


def forget_token(digest: str) -> None:
    _local.pop(_token_cache_key(digest), None)
    try:
        cache.delete(_token_cache_key(digest))
    except Exception:
        logger.warning("token cache entry not dropped", exc_info=True)


def _token_deleted(sender: type, instance: ApiToken, **kwargs: Any) -> None:
    forget_token(instance.digest)


def _user_changed(sender: type, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    if getattr(instance, "_password", None) is not None:
        # set_password() then save(): AbstractBaseUser.save clears _password only after this signal.
        # A new password revokes every token of the user (each post_delete drops its cache entry).
        ApiToken.objects.filter(user_id=instance.pk).delete()
        return
    if update_fields is not None and not set(update_fields) & set(_CACHED_FIELDS):
        return  # e.g. a login's last_login: nothing the cache holds changed
    for digest in ApiToken.objects.filter(user_id=instance.pk).values_list("digest", flat=True):
        forget_token(digest)


def connect() -> None:
    """Called once from GamesConfig.ready()."""
    user_model = get_user_model()
    post_delete.connect(_token_deleted, sender=ApiToken, dispatch_uid="games.auth.token_deleted")
    post_save.connect(_user_changed, sender=user_model, dispatch_uid="games.auth.user_saved")
    # A user's deletion deletes its tokens first (cascade), each sending post_delete above.
