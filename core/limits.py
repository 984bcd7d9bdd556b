"""Limits on logging in and on creating players, shared by every entry point (API, pages, admin).

Why our own and not a library: the limits must hold per account *and* per address for three login
forms (``POST /api/v1/auth/token``, the login page, ``/admin/login/``) and also cap sign-ups and
guests per address, and they must keep working while Redis is down. django-axes covers only the
login part, records every attempt in PostgreSQL (a write per wrong password, which is what an
attacker sends most), and would be a second, differently keyed notion of "address" beside
``core.net``. This module is small, keeps its state in the Django cache (``config.cache``: Redis,
or process memory while Redis is down, as for DRF's throttles), and reads the address from
``core.net.client_network`` only, so a client cannot pick a new one with ``X-Forwarded-For``, nor
with another address of its IPv6 /64.

Logins (:func:`login_guard`): each account and each address has a count of failed logins. After
``free`` failures, every further failure closes the door for a back-off that doubles (1 s, 2 s,
4 s... up to ``longest``); a login tried while the door is closed is refused (429) without even
checking the password. A success clears the account's count (not the address's: one's own account
must not wash away the guesses made at others). While one login of an account or an address is
being checked, another one for the same waits for it (up to 2 s, then it is refused): parallel
guesses are counted one after the other and get no more tries than serial ones, while two honest
logins at the same moment (two tabs, two guests signing in to one account) both go through.

The per-account tier slows **unknown sources only**, so that a stranger's guesses cannot lock the owner
out: a login from a browser that logged in to the account before (a signed device cookie,
``DEVICE_COOKIE``, set on each successful login) or from an address (``core.net.client_network``) the
account logged in from in the last ``KNOWN_DAYS`` days neither waits for the account's turn nor is
refused while the account is closed, and neither its failures nor its success change the account's
count (the strangers' guesses stay counted). The per-address tier still holds for it.

Creations (:func:`creation_guard`): at most ``per_hour`` sign-ups, and guests, per address and hour,
counted atomically before the player is made.

``settings.THROTTLE`` (``API_THROTTLE``) switches all of it off, as it does DRF's throttles.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
import unicodedata
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core import signing
from django.core.cache import cache

from core.errors import ApplicationError
from core.net import client_network, network_of

logger = logging.getLogger(__name__)

BUSY_SECONDS = 10  # the longest a login check may hold its account's or address's turn
TURN_WAIT_SECONDS = 2.0  # how long a login waits for its turn before it is refused
TURN_POLL_SECONDS = 0.05


class Throttled(ApplicationError):
    """Too many tries: wait ``wait`` seconds (a whole number, at least 1)."""

    status_code = 429
    code = "throttled"

    def __init__(self, message: str, *, wait: int) -> None:
        super().__init__(message, details={"retry_after": wait})
        self.wait = wait


@dataclass(frozen=True)
class LoginLimit:
    name: str
    free: int  # failures without any wait
    longest: int  # seconds: the longest back-off
    forget_after: int = 24 * 3600  # seconds after the last failure when the count is dropped


ACCOUNT = LoginLimit("account", free=5, longest=15 * 60)
ADDRESS = LoginLimit("address", free=20, longest=15 * 60)


DEVICE_COOKIE = "dp_device"
DEVICE_COOKIE_SECONDS = 400 * 24 * 3600
DEVICE_SALT = "daily-patience.device"
DEVICE_ACCOUNTS = 8  # the accounts a browser is remembered for (the latest)
KNOWN_DAYS = 90  # how long an address an account logged in from stays known
KNOWN_ADDRESSES = 16  # the addresses remembered per account (the latest)


def enabled() -> bool:
    return bool(getattr(settings, "THROTTLE", True))


def account_key(username: str) -> str:
    """One key for every spelling of a name that logs in to the same account (case, width)."""
    return unicodedata.normalize("NFKC", str(username)).casefold().strip()


def _key(kind: str, value: str) -> str:
    return f"dp:limit:{kind}:" + hashlib.sha256(value.encode()).hexdigest()[:32]


def _seconds(wait: float) -> int:
    return max(1, int(wait + 0.999))


def _cache_call(name: str, *args: Any, default: Any = None, **kwargs: Any) -> Any:
    try:
        return getattr(cache, name)(*args, **kwargs)
    except Exception:  # config.cache already falls back to memory; any other cache failure is logged
        logger.warning("login limit: cache %s failed", name, exc_info=True)
        return default


class _LoginState:
    """One account's or address's failures and closed-until time, and its turn while a login is checked."""

    def __init__(self, limit: LoginLimit, value: str) -> None:
        self.limit = limit
        self.key = _key("login-" + limit.name, value)
        self.turn = self.key + ":turn"

    def take_turn(self) -> bool:
        """Wait (a little) for the account's or address's turn: checks of one take place one at a time."""
        for _ in range(max(1, round(TURN_WAIT_SECONDS / TURN_POLL_SECONDS))):  # counted: a frozen clock ends it too
            if _cache_call("add", self.turn, 1, BUSY_SECONDS, default=True):
                return True
            time.sleep(TURN_POLL_SECONDS)
        return False

    def give_turn_back(self) -> None:
        _cache_call("delete", self.turn)

    def read(self) -> tuple[int, float]:
        state = _cache_call("get", self.key)
        if isinstance(state, list | tuple) and len(state) == 2:
            return int(state[0]), float(state[1])
        return 0, 0.0

    def closed_for(self, now: float) -> float:
        return max(0.0, self.read()[1] - now)

    def failed(self, now: float) -> None:
        failures, _ = self.read()
        failures += 1
        closed_until = 0.0
        if failures >= self.limit.free:
            closed_until = now + min(float(self.limit.longest), 2.0 ** (failures - self.limit.free))
        _cache_call("set", self.key, [failures, closed_until], self.limit.forget_after)

    def clear(self) -> None:
        _cache_call("delete", self.key)


def _account_tag(username: str) -> str:
    return hashlib.sha256(("device " + account_key(username)).encode()).hexdigest()[:16]


def _device_tags(request: Any) -> list[str]:
    """The accounts (tags) this browser logged in to, from its signed device cookie ([] if none or forged)."""
    raw = getattr(request, "COOKIES", {}).get(DEVICE_COOKIE, "")
    if not raw:
        return []
    try:
        value = signing.loads(raw, salt=DEVICE_SALT, max_age=DEVICE_COOKIE_SECONDS)
    except (signing.BadSignature, ValueError, TypeError):
        return []
    tags = value.get("a") if isinstance(value, dict) else None
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def _known_key(username: str) -> str:
    return _key("known", account_key(username))


def _address_tag(request: Any) -> str:
    return hashlib.sha256(("known " + client_network(request)).encode()).hexdigest()[:16]


def source_known(*, request: Any, username: str) -> bool:
    """Did this browser, or this address, log in to the account before (see the module's docstring)?"""
    if _account_tag(username) in _device_tags(request):
        return True
    known = _cache_call("get", _known_key(username)) or []
    return isinstance(known, list) and _address_tag(request) in known


def _remember_source(*, request: Any, username: str) -> str:
    """Remember the address for the account; the device cookie's new value, to be set by the caller."""
    stored = _cache_call("get", _known_key(username)) or []
    tag = _address_tag(request)
    others = [t for t in stored if t != tag] if isinstance(stored, list) else []
    known = [*others[-(KNOWN_ADDRESSES - 1) :], tag]
    _cache_call("set", _known_key(username), known, KNOWN_DAYS * 24 * 3600)
    account = _account_tag(username)
    tags = [*[t for t in _device_tags(request) if t != account][-(DEVICE_ACCOUNTS - 1) :], account]
    return signing.dumps({"a": tags, "n": secrets.token_hex(4)}, salt=DEVICE_SALT)


def device_cookie_set(response: Any, outcome: LoginOutcome, *, secure: bool) -> None:
    """Set the device cookie a successful login earned (nothing after any other outcome)."""
    if outcome.device_cookie:
        response.set_cookie(
            DEVICE_COOKIE,
            outcome.device_cookie,
            max_age=DEVICE_COOKIE_SECONDS,
            httponly=True,
            samesite="Lax",
            secure=secure,
        )


class LoginOutcome:
    """Handed to the body of :func:`login_guard`: it says whether the credentials were right. After a
    success, ``device_cookie`` is the value to set (:func:`device_cookie_set`)."""

    def __init__(self) -> None:
        self.succeeded: bool | None = None
        self.device_cookie = ""

    def success(self) -> None:
        self.succeeded = True

    def failure(self) -> None:
        self.succeeded = False


def _refusal(wait: float) -> Throttled:
    seconds = _seconds(wait)
    return Throttled(f"Too many failed logins: try again in {seconds} seconds.", wait=seconds)


@contextmanager
def login_guard(*, request: Any, username: str) -> Iterator[LoginOutcome]:
    """Around one check of a password: raises :class:`Throttled` instead of entering while the
    account or the client's address is closed or busy; records the outcome the body reports
    (``outcome.success()`` / ``outcome.failure()``; an exception in the body counts as neither)."""
    outcome = LoginOutcome()
    if not enabled():
        yield outcome
        if outcome.succeeded is True:
            outcome.device_cookie = _remember_source(request=request, username=username)
        return
    account = _LoginState(ACCOUNT, account_key(username))
    known = source_known(request=request, username=username)
    # A known source is not slowed by the account's tier: only the address's applies to it.
    states = (
        [_LoginState(ADDRESS, client_network(request))]
        if known
        else [account, _LoginState(ADDRESS, client_network(request))]
    )
    with ExitStack() as turns:
        for state in states:
            if not state.take_turn():
                raise Throttled("Another login for this account or address is being checked: try again.", wait=1)
            turns.callback(state.give_turn_back)
        now = time.time()
        wait = max(state.closed_for(now) for state in states)
        if wait > 0:
            raise _refusal(wait)
        try:
            yield outcome
        finally:  # the body reports before it raises its own "wrong password" error
            now = time.time()
            if outcome.succeeded is True:
                if not known:  # a known source's success leaves the strangers' count as it is
                    account.clear()
                outcome.device_cookie = _remember_source(request=request, username=username)
            elif outcome.succeeded is False:
                for state in states:
                    state.failed(now)


@dataclass(frozen=True)
class CreationLimit:
    name: str
    setting: str
    default_per_hour: int
    what: str = ""  # in the refusal: "Too many {what} ..."

    @property
    def per_hour(self) -> int:
        return int(getattr(settings, self.setting, self.default_per_hour))


SIGNUP = CreationLimit("signup", "SIGNUP_LIMIT_PER_HOUR", 10, "new accounts")
GUEST = CreationLimit("guest", "GUEST_LIMIT_PER_HOUR", 30, "new guest players")
# Password-reset e-mails: per (client address, e-mail address asked for) (``who``), whether or not an
# account has it, and per client address for every e-mail address it asks for (a mail bomb from one
# client). Nothing counts per e-mail address alone: strangers asking for the owner's address from
# their own addresses never use up the owner's. Past either cap the page answers as always ("sent").
RESET = CreationLimit("reset", "PASSWORD_RESET_LIMIT_PER_HOUR", 5, "password reset e-mails")
RESET_SOURCE = CreationLimit("reset-source", "PASSWORD_RESET_SOURCE_LIMIT_PER_HOUR", 20, "password reset e-mails")


def creation_guard(*, request: Any, limit: CreationLimit, who: str | None = None) -> None:
    """Count one sign-up (or guest, or reset e-mail) from the client's address, or for ``who`` when
    given; :class:`Throttled` past the hour's limit."""
    if not enabled():
        return
    hour = int(time.time() // 3600)
    key = _key(f"create-{limit.name}-{hour}", client_network(request) if who is None else f"who:{who}")
    _cache_call("add", key, 0, 3600 + 60)
    count = _cache_call("incr", key, default=None)
    if count is None:  # the entry vanished in between (evicted): count this one as the first
        _cache_call("set", key, 1, 3600 + 60)
        count = 1
    if int(count) > limit.per_hour:
        wait = _seconds((hour + 1) * 3600 - time.time())
        source = "from your address" if who is None else "for this address"
        raise Throttled(f"Too many {limit.what} {source}: try again in {wait} seconds.", wait=wait)


def limits_forget(*, usernames: tuple[str, ...] = (), addresses: tuple[str, ...] = ()) -> None:
    """Drop the login and creation counts of these accounts and addresses (tests, and staff unlocking
    an account by hand: ``python manage.py shell -c 'from core.limits import limits_forget; ...'``)."""
    keys = [_key("login-account", account_key(name)) for name in usernames]
    keys += [_known_key(name) for name in usernames]
    hour = int(time.time() // 3600)
    for address in map(network_of, addresses):
        keys.append(_key("login-address", address))
        keys += [_key(f"create-{limit.name}-{hour}", address) for limit in (SIGNUP, GUEST, RESET, RESET_SOURCE)]
    keys += [key + ":turn" for key in keys if ":login-" in key]
    _cache_call("delete_many", keys)
