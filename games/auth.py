"""Token authentication whose lookup is one cache read instead of a database query.

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

Tokens do not live for ever: one older than ``API_TOKEN_DAYS`` (default 30) is refused (401) and
deleted, and logging in again (``POST /auth/token``) gives a new one (:func:`token_for_login`). A
password change deletes every token of the user (the save that changes it sends the signal), and
``POST /auth/logout`` deletes the token it is sent with: each drops its cache entry at once.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
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
from rest_framework.authtoken.models import Token

logger = logging.getLogger(__name__)

TOKEN_CACHE_SECONDS = 60
TOKEN_LOCAL_SECONDS = 5
_LOCAL_MAX = 20_000  # entries held in a process; past it the process's table starts again empty
_CACHED_FIELDS = ("id", "username", "is_active")
# This process's copies: cache key -> (monotonic expiry, the cached tuple). Plain dict operations are
# atomic under the GIL, which is all the threads of a worker share here.
_local: dict[str, tuple[float, tuple[Any, ...]]] = {}


def forget_local_tokens() -> None:
    """Drop this process's copies (tests start each with none)."""
    _local.clear()


def _token_cache_key(key: str) -> str:
    # The token itself is a secret: the cache holds a digest of it, never the key.
    return "dp:token:" + hashlib.sha256(key.encode()).hexdigest()[:40]


def _user_from(values: tuple[Any, ...]) -> Any:
    user_model = get_user_model()
    return user_model.from_db(DEFAULT_DB_ALIAS, list(_CACHED_FIELDS), list(values))


def token_expired(created: dt.datetime) -> bool:
    return timezone.now() - created > dt.timedelta(days=settings.API_TOKEN_DAYS)


def _refuse_expired(key: str) -> None:
    Token.objects.filter(key=key).delete()  # its post_delete drops the cache entry
    raise exceptions.AuthenticationFailed(
        f"This token has expired (tokens last {settings.API_TOKEN_DAYS} days): "
        "log in again for a new one (POST /api/v1/auth/token)."
    )


class CachedTokenAuthentication(TokenAuthentication):
    def authenticate_credentials(self, key: str) -> tuple[Any, Token]:
        cache_key = _token_cache_key(key)
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
        if isinstance(cached, tuple) and len(cached) == len(_CACHED_FIELDS) + 1:
            *fields, created = cached
            user = _user_from(tuple(fields))
            if not user.is_active:
                raise exceptions.AuthenticationFailed("User inactive or deleted.")
            if token_expired(created):
                _refuse_expired(key)
            return user, Token(key=key, user=user, created=created)
        user, token = super().authenticate_credentials(key)  # the database's answer, errors included
        if token_expired(token.created):
            _refuse_expired(key)
        entry = (*(getattr(user, f) for f in _CACHED_FIELDS), token.created)
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


def token_for_login(user: Any) -> Token:
    """The user's token after a login: the one it has while it lasts, else a new one."""
    token, created = Token.objects.get_or_create(user=user)
    if not created and token_expired(token.created):
        token.delete()
        token = Token.objects.create(user=user)
    return token


def token_revoke(key: str) -> None:
    """Logging out of the API: the token is deleted (its cache entry with it)."""
    Token.objects.filter(key=key).delete()


def forget_token(key: str) -> None:
    _local.pop(_token_cache_key(key), None)
    try:
        cache.delete(_token_cache_key(key))
    except Exception:
        logger.warning("token cache entry not dropped", exc_info=True)


def _token_deleted(sender: type, instance: Token, **kwargs: Any) -> None:
    forget_token(instance.key)


def _user_changed(sender: type, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    if getattr(instance, "_password", None) is not None:
        # set_password() then save(): AbstractBaseUser.save clears _password only after this signal.
        # A new password revokes every token of the user (each post_delete drops its cache entry).
        Token.objects.filter(user_id=instance.pk).delete()
        return
    if update_fields is not None and not set(update_fields) & set(_CACHED_FIELDS):
        return  # e.g. a login's last_login: nothing the cache holds changed
    for key in Token.objects.filter(user_id=instance.pk).values_list("key", flat=True):
        forget_token(key)


def connect() -> None:
    """Called once from GamesConfig.ready()."""
    user_model = get_user_model()
    post_delete.connect(_token_deleted, sender=Token, dispatch_uid="games.auth.token_deleted")
    post_save.connect(_user_changed, sender=user_model, dispatch_uid="games.auth.user_saved")
    # A user's deletion deletes its tokens first (cascade), each sending post_delete above.
