"""Attacker tests of the login and creation limits (core.limits) on every way in: the token API, the
login page, /admin/login/, sign-ups and guests. The clock moves with time-machine, never by sleeping."""

from __future__ import annotations

import datetime as dt
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection, connections
from django.test import Client
from pytest_django import Settings
from rest_framework.throttling import SimpleRateThrottle

from core import limits
from games.models import Guest
from games.tests.factories import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.throttled]

PASSWORD = "not-a-common-pass-42"  # the factories' password
ADDRESSES = ("127.0.0.1", "203.0.113.7", "203.0.113.8", "198.51.100.1", "2001:db8:51::1", "2001:db8:52::1")
RUN = uuid.uuid4().hex[:8]  # throwaway names unique to the run: a shared Redis keeps counts for a day
NOBODY = tuple(f"nobody-{RUN}-{i}" for i in range(30))
NAMES = ("victim", "other", "mallory", f"x-{RUN}", *NOBODY)


@pytest.fixture(autouse=True)
def _fresh_limits(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Only these accounts' and addresses' counts are dropped (the cache may be a shared Redis);
    DRF's request-rate throttles are off here, to see core.limits alone."""
    monkeypatch.setattr(SimpleRateThrottle, "allow_request", lambda self, request, view: True)
    limits.limits_forget(usernames=NAMES, addresses=ADDRESSES)
    yield
    limits.limits_forget(usernames=NAMES, addresses=ADDRESSES)


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(dt.datetime(2030, 1, 2, 10, 0, tzinfo=dt.UTC), tick=False) as traveller:
        yield traveller


def token_login(username: str, password: str, **headers: Any) -> Any:
    return Client().post(
        "/api/v1/auth/token", {"username": username, "password": password}, content_type="application/json", **headers
    )


def test_a_rotated_forwarded_for_does_not_pass_the_token_login_limit(clock: time_machine.Traveller) -> None:
    """The issue's probe: 45 wrong passwords, each with a new X-Forwarded-For, then the right one."""
    make_user("victim")
    statuses = [token_login("victim", f"guess{i}", HTTP_X_FORWARDED_FOR=f"10.0.{i}.{i}").status_code for i in range(45)]
    assert statuses[:5] == [401] * 5  # five free tries
    assert statuses.count(401) <= 6 and statuses[-1] == 429
    refused = token_login("victim", PASSWORD, HTTP_X_FORWARDED_FOR="10.9.9.9")
    assert refused.status_code == 429  # while the door is closed, even the right password waits
    body = refused.json()["error"]
    assert body["code"] == "throttled" and "try again in" in body["message"]
    assert int(refused["Retry-After"]) == body["details"]["retry_after"] >= 1
    clock.shift(dt.timedelta(seconds=body["details"]["retry_after"]))
    assert token_login("victim", PASSWORD).status_code == 200  # the owner gets in after the back-off


def test_the_back_off_doubles_and_a_success_clears_the_account(clock: time_machine.Traveller) -> None:
    make_user("victim")
    waits = []
    for _ in range(4):
        for _ in range(6):  # whatever the attacker sends while closed is refused, not counted
            response = token_login("victim", "wrong")
            if response.status_code == 429:
                break
        waits.append(int(response["Retry-After"]))
        clock.shift(dt.timedelta(seconds=waits[-1]))
        assert token_login("victim", "wrong").status_code == 401  # one more try after each wait
    assert waits == sorted(waits) and waits[-1] >= 4 * waits[0]
    clock.shift(dt.timedelta(seconds=3600))
    assert token_login("victim", PASSWORD).status_code == 200
    assert [token_login("victim", "wrong").status_code for _ in range(5)] == [401] * 5  # counting anew


def test_case_and_width_variants_of_a_name_share_its_limit(clock: time_machine.Traveller) -> None:
    make_user("victim")
    for name in ("victim", "VICTIM", "Victim", "\uff56\uff49\uff43\uff54\uff49\uff4d", " victim"):  # full width
        token_login(name, "wrong")
    assert token_login("vIcTiM", "wrong").status_code == 429


def test_one_address_guessing_many_accounts_is_limited_per_address(clock: time_machine.Traveller) -> None:
    make_user("other")
    statuses = [token_login(NOBODY[i], "wrong").status_code for i in range(25)]
    assert statuses[:20] == [401] * 20 and statuses[-1] == 429
    assert token_login("other", PASSWORD).status_code == 429  # this address waits, whoever it names
    other_address = token_login("other", PASSWORD, REMOTE_ADDR="203.0.113.7")
    assert other_address.status_code == 200  # another client is not locked out


def test_behind_one_proxy_only_the_proxys_entry_counts(settings: Settings, clock: time_machine.Traveller) -> None:
    """DJANGO_NUM_PROXIES=1: the address is the last X-Forwarded-For entry (the proxy's own); what a
    client puts before it changes nothing, while two clients the proxy names are two addresses."""
    settings.NUM_PROXIES = 1
    for i in range(25):
        token_login(NOBODY[i], "wrong", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}, 203.0.113.7")
    assert token_login(f"x-{RUN}", "y", HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7").status_code == 429
    assert token_login(f"x-{RUN}", "y", HTTP_X_FORWARDED_FOR="203.0.113.8").status_code == 401


def test_the_login_page_is_limited_with_a_readable_message(clock: time_machine.Traveller) -> None:
    make_user("victim")
    client = Client()
    for i in range(5):
        page = client.post(
            "/accounts/login/", {"username": "victim", "password": f"guess{i}"}, HTTP_X_FORWARDED_FOR=f"10.1.{i}.1"
        )
        assert page.status_code == 200 and "correct username and password" in page.content.decode()
    page = client.post("/accounts/login/", {"username": "victim", "password": PASSWORD})
    assert page.status_code == 429
    assert "Too many failed logins: try again in" in page.content.decode()
    assert "_auth_user_id" not in client.session
    clock.shift(dt.timedelta(seconds=60))
    assert client.post("/accounts/login/", {"username": "victim", "password": PASSWORD}).status_code == 302


def test_the_admin_login_is_limited_too(clock: time_machine.Traveller) -> None:
    get_user_model().objects.create_superuser("victim", password=PASSWORD)
    client = Client()
    for i in range(5):
        client.post("/admin/login/", {"username": "victim", "password": f"guess{i}"})
    page = client.post("/admin/login/", {"username": "victim", "password": PASSWORD})
    assert "Too many failed logins: try again in" in page.content.decode()
    assert "_auth_user_id" not in client.session
    clock.shift(dt.timedelta(seconds=60))
    assert client.post("/admin/login/", {"username": "victim", "password": PASSWORD}).status_code == 302


def test_the_three_ways_in_share_one_account_limit(clock: time_machine.Traveller) -> None:
    get_user_model().objects.create_superuser("victim", password=PASSWORD)
    Client().post("/admin/login/", {"username": "victim", "password": "a"})
    Client().post("/admin/login/", {"username": "victim", "password": "b"})
    Client().post("/accounts/login/", {"username": "victim", "password": "c"})
    token_login("victim", "d")
    token_login("victim", "e")
    assert token_login("victim", PASSWORD).status_code == 429


def test_parallel_guesses_get_no_more_tries_than_serial_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """While one password check of an account is running, the others at the same moment wait for
    it, and are refused when it takes longer than the wait (here 0.2 s, not 2 s)."""
    monkeypatch.setattr(limits, "TURN_WAIT_SECONDS", 0.2)
    request = type("R", (), {"META": {"REMOTE_ADDR": "203.0.113.8"}})()
    inside, release = threading.Event(), threading.Event()
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def slow_check() -> None:
        with limits.login_guard(request=request, username="victim") as outcome:
            inside.set()
            release.wait(10)
            outcome.failure()

    def guess() -> None:
        barrier.wait()
        try:
            with limits.login_guard(request=request, username="victim") as outcome:
                outcome.failure()
            outcomes.append("checked")
        except limits.Throttled:
            outcomes.append("refused")

    first = threading.Thread(target=slow_check)
    first.start()
    assert inside.wait(10)
    threads = [threading.Thread(target=guess) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    release.set()
    first.join(10)
    assert outcomes == ["refused"] * 6


@pytest.mark.django_db(transaction=True)
def test_two_honest_logins_at_the_same_moment_both_go_through() -> None:
    """The second waits for the first's check (two tabs, two guests logging in to one account)."""
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent connections (PostgreSQL)")
    make_user("victim")
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def log_in() -> None:
        try:
            barrier.wait(10)
            statuses.append(token_login("victim", PASSWORD).status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=log_in) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert statuses == [200, 200]


def test_sign_ups_are_limited_per_address(settings: Settings) -> None:
    settings.SIGNUP_LIMIT_PER_HOUR = 3
    api = [
        Client().post(
            "/api/v1/auth/register",
            {"username": f"new{i}", "password": "a long passphrase 42"},
            content_type="application/json",
            HTTP_X_FORWARDED_FOR=f"10.2.{i}.1",
        )
        for i in range(3)
    ]
    assert [r.status_code for r in api] == [201] * 3
    refused = Client().post(
        "/api/v1/auth/register",
        {"username": "new9", "password": "a long passphrase 42"},
        content_type="application/json",
    )
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "throttled"
    page = Client().post(
        "/accounts/signup/",
        {"username": "new8", "password1": "a long passphrase 42", "password2": "a long passphrase 42"},
    )
    assert page.status_code == 429 and "Too many new accounts from your address" in page.content.decode()
    assert not get_user_model().objects.filter(username__in=["new8", "new9"]).exists()
    elsewhere = Client().post(
        "/api/v1/auth/register",
        {"username": "new7", "password": "a long passphrase 42"},
        content_type="application/json",
        REMOTE_ADDR="203.0.113.7",
    )
    assert elsewhere.status_code == 201


def test_guests_are_limited_per_address(settings: Settings) -> None:
    settings.GUEST_LIMIT_PER_HOUR = 2
    statuses = [
        Client().post("/accounts/guest/", {"next": "/"}, HTTP_X_FORWARDED_FOR=f"10.3.{i}.1").status_code
        for i in range(4)
    ]
    assert statuses == [302, 302, 429, 429]
    page = Client().post("/accounts/guest/", {"next": "/"})
    assert "Too many new guest players from your address" in page.content.decode()
    assert Guest.objects.count() == 2


def test_the_limits_hold_with_the_cache_failing(monkeypatch: pytest.MonkeyPatch, clock: time_machine.Traveller) -> None:
    """A cache that raises (beyond config.cache's own fallback) is logged and never a 500."""
    make_user("victim")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    for name in ("get", "set", "add", "delete", "incr"):
        monkeypatch.setattr(cache, name, broken)  # the cache core.limits keeps its counts in
    assert token_login("victim", "wrong").status_code == 401
    assert token_login("victim", PASSWORD).status_code == 200


def test_drf_throttles_read_the_address_as_core_net_does(settings: Settings) -> None:
    from django.conf import settings as live
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from core.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

    assert live.REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] == [
        "core.throttling.AnonRateThrottle",
        "core.throttling.UserRateThrottle",
        "core.throttling.ScopedRateThrottle",
    ]
    factory = APIRequestFactory()
    for proxies, header, expected in (
        (0, "1.2.3.4", "127.0.0.1"),
        (1, "6.6.6.6, 203.0.113.7", "203.0.113.7"),
        (2, "203.0.113.7", "127.0.0.1"),
        (1, "", "127.0.0.1"),
    ):
        settings.NUM_PROXIES = proxies
        request = Request(factory.get("/", HTTP_X_FORWARDED_FOR=header))
        for throttle in (AnonRateThrottle, UserRateThrottle, ScopedRateThrottle):
            assert throttle.__new__(throttle).get_ident(request) == expected, (proxies, header)


def test_an_ipv6_slash_64_is_one_address_for_sign_ups(settings: Settings) -> None:
    """Issue 51, "Addresses are counted per /128": four IPv6 addresses of one /64 made 40 accounts in
    an hour against a limit of 10. Every address of a /64 is one client; the next /64 is another."""
    settings.SIGNUP_LIMIT_PER_HOUR = 10
    statuses = [
        Client()
        .post(
            "/api/v1/auth/register",
            {"username": f"v6-{RUN}-{i}", "password": "a long passphrase 42"},
            content_type="application/json",
            REMOTE_ADDR=f"2001:db8:51:0:{i % 4}::{i + 1}",
        )
        .status_code
        for i in range(14)
    ]
    assert statuses == [201] * 10 + [429] * 4
    other = Client().post(
        "/api/v1/auth/register",
        {"username": f"v6-{RUN}-other", "password": "a long passphrase 42"},
        content_type="application/json",
        REMOTE_ADDR="2001:db8:52::1",
    )
    assert other.status_code == 201


def test_an_ipv6_slash_64_is_one_address_for_login_guesses(clock: time_machine.Traveller) -> None:
    """Wrong passwords from every address of a /64 close that /64, not only the addresses they came from."""
    for i in range(limits.ADDRESS.free + 1):
        token_login(NOBODY[i], "wrong", REMOTE_ADDR=f"2001:db8:51::{i + 1:x}")
    refused = token_login("victim", PASSWORD, REMOTE_ADDR="2001:db8:51::ffff")
    assert refused.status_code == 429


def test_drf_throttles_key_an_ipv6_client_by_its_slash_64() -> None:
    from rest_framework.request import Request
    from rest_framework.test import APIRequestFactory

    from core.throttling import AnonRateThrottle, ScopedRateThrottle, UserRateThrottle

    factory = APIRequestFactory()
    for throttle in (AnonRateThrottle, UserRateThrottle, ScopedRateThrottle):
        idents = {
            throttle.__new__(throttle).get_ident(Request(factory.get("/", REMOTE_ADDR=address)))
            for address in ("2001:db8:51::1", "2001:db8:51:0:ffff:1:2:3", "2001:db8:51::abcd")
        }
        assert idents == {"2001:db8:51::/64"}


# -- accounts a stranger cannot lock (issue 51, item 5) -------------------------------------------------


def test_a_stranger_cannot_lock_the_owner_out_of_a_known_browser_or_address(clock: time_machine.Traveller) -> None:
    """Issue 51, "Strangers lock accounts": 10 wrong passwords in about 40 s, then one every 15 minutes,
    kept the owner's right password at 429 on the API and the login page. The per-account tier now
    slows unknown sources only: the owner's browser (a signed device cookie from an earlier login) and
    an address the owner logged in from pass while the account is closed to everybody else."""
    make_user("victim")
    browser = Client(REMOTE_ADDR="198.51.100.1")  # the owner's laptop at home, logged in before
    assert browser.post("/accounts/login/", {"username": "victim", "password": PASSWORD}).status_code == 302
    device = browser.cookies[limits.DEVICE_COOKIE].value
    browser.logout()  # (the test client drops every cookie here; a browser keeps this one)
    browser.cookies[limits.DEVICE_COOKIE] = device
    for i in range(10):
        token_login("victim", f"guess{i}", REMOTE_ADDR="203.0.113.8")
        clock.shift(dt.timedelta(seconds=4))
    assert token_login("victim", PASSWORD, REMOTE_ADDR="203.0.113.7").status_code == 429  # unknown: closed
    # The same browser on another network: its device cookie vouches for it.
    browser.defaults["REMOTE_ADDR"] = "203.0.113.7"
    page = browser.post("/accounts/login/", {"username": "victim", "password": PASSWORD})
    assert page.status_code == 302 and "_auth_user_id" in browser.session
    # An API client with no cookie, from the address the owner logged in from.
    for _ in range(3):
        clock.shift(dt.timedelta(minutes=15))
        token_login("victim", "guess", REMOTE_ADDR="203.0.113.8")  # one try every 15 minutes keeps the lock
    assert token_login("victim", PASSWORD, REMOTE_ADDR="203.0.113.8").status_code == 429  # still closed to others
    assert token_login("victim", PASSWORD, REMOTE_ADDR="198.51.100.1").status_code == 200


def test_a_forged_or_another_accounts_device_cookie_does_not_open_the_door(clock: time_machine.Traveller) -> None:
    make_user("victim")
    make_user("mallory")
    attacker = Client(REMOTE_ADDR="203.0.113.8")
    assert attacker.post("/accounts/login/", {"username": "mallory", "password": PASSWORD}).status_code == 302
    attacker.logout()
    for i in range(10):
        token_login("victim", f"guess{i}", REMOTE_ADDR="203.0.113.7")
    attacker.defaults["REMOTE_ADDR"] = "203.0.113.7"
    assert attacker.post("/accounts/login/", {"username": "victim", "password": PASSWORD}).status_code == 429
    attacker.cookies[limits.DEVICE_COOKIE] = "victim:forged"
    assert attacker.post("/accounts/login/", {"username": "victim", "password": PASSWORD}).status_code == 429
