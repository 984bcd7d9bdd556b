"""Shared pytest configuration."""

import datetime as dt
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
import time_machine
from hypothesis import settings
from pytest_django import Settings

if TYPE_CHECKING:
    from django.test import Client

# CI: no deadline (a shared 2-core machine has noisy timings) and a fixed
# derivation of examples so that a red run can be reproduced.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

# pytester: tests/test_lanes.py runs pytest on small suites to check the hooks below.
pytest_plugins = ["pytester"]


# -- Lanes: `--fast`, and the tests that need PostgreSQL or Redis ----------------------------------------
# A test marked `postgres`, `redis` or `nginx` (pyproject.toml) is skipped, with the reason, where the
# service is absent (README's set-up: SQLite, no Redis, no nginx). In CI (CI set) with the service's
# variable set (nginx has none: .ci/run installs it), the service is expected: a test that would be
# skipped for lack of it fails instead, so that a broken set-up can not pass as a green run that left
# out the PostgreSQL, Redis and proxy tests.


def _postgres_here() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


def _redis_here() -> bool:
    return bool(os.environ.get("REDIS_URL"))


def _nginx_here() -> bool:
    from bench.stack import nginx_binary

    return nginx_binary() is not None


SERVICES = {  # marker: (the variable naming the service or None, whether it is here, the reason to skip)
    "postgres": ("DATABASE_URL", _postgres_here, "needs PostgreSQL: DATABASE_URL=postgres://..."),
    "redis": ("REDIS_URL", _redis_here, "needs Redis: REDIS_URL=redis://..."),
    "nginx": (None, _nginx_here, "needs nginx (Debian: apt-get install nginx)"),
}
# Fixtures that need a service: a test using one is marked with it.
SERVICE_FIXTURES = {"redis_client": "redis"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true", help="leave out the tests marked slow (the fast lane)")


def _missing_service(item: pytest.Item) -> tuple[str, bool] | None:
    """Why the test cannot run here, and whether that is an error (CI expected the service), or None."""
    for marker, (variable, here, reason) in SERVICES.items():
        mark = item.get_closest_marker(marker)
        if mark is None or here():
            continue
        if mark.kwargs.get("reason"):
            reason = f"{reason} ({mark.kwargs['reason']})"
        return reason, bool(os.environ.get("CI") and (variable is None or os.environ.get(variable)))
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--fast"):
        slow = [item for item in items if item.get_closest_marker("slow")]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if not item.get_closest_marker("slow")]
    for item in items:
        for fixture, marker in SERVICE_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)
        missing = _missing_service(item)
        if missing is not None and not missing[1]:
            item.add_marker(pytest.mark.skip(reason=missing[0]))  # reported at the test's own line


def pytest_runtest_setup(item: pytest.Item) -> None:
    missing = _missing_service(item)
    if missing is not None and missing[1]:
        pytest.fail(
            f"{missing[0]}: in CI with the service's variable set, a missing service is an error, not a skip",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def _no_throttling(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Request rates are limited in service, not in tests (except where a test asks for it)."""
    if "throttled" in request.keywords:
        return
    from django.conf import settings as django_settings
    from rest_framework.throttling import SimpleRateThrottle

    monkeypatch.setattr(SimpleRateThrottle, "allow_request", lambda self, request, view: True)
    monkeypatch.setattr(django_settings, "THROTTLE", False)  # core.limits: logins, sign-ups, guests


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings: Settings) -> None:
    """PBKDF2's deliberate slowness is for production; tests create many users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _tasks_in_process(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tasks run in the test's process unless the test talks to the real broker (mark: broker)."""
    if "broker" in request.keywords:
        yield
        return
    from config.celery import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture(autouse=True)
def _circuits_closed() -> Iterator[None]:
    """A test that made Redis or the broker fail does not leave the next one skipping them."""
    from core.circuit import reset_all

    reset_all()
    yield
    reset_all()


@pytest.fixture(autouse=True)
def _fresh_local_cache() -> Iterator[None]:
    """Each test starts with an empty in-process cache. SQLite reuses row ids after a rollback, so a
    position snapshot cached by one test would otherwise be found under the same attempt id by the
    next. (A Redis cache is shared with the broker and the boards and is left alone: PostgreSQL never
    reuses an id.)"""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    from core.held import forget_held
    from games.auth import forget_local_tokens
    from games.services.positions import forget_local_positions

    yield
    for alias in caches:
        if isinstance(caches[alias], LocMemCache):
            caches[alias].clear()
    forget_local_positions()  # the process's own copies, for the same reason
    forget_local_tokens()
    forget_held()


@pytest.fixture(autouse=True)
def _counts_not_held(request: pytest.FixtureRequest, settings: Settings) -> None:
    """A test sees the counts as they are (the process holds them a few seconds in service; a test that
    checks that is marked ``held_counts``)."""
    if "held_counts" not in request.keywords:
        settings.COUNTS_SECONDS = 0
        settings.LEADERBOARD_PAGE_HOLD_SECONDS = 0  # the boards' public top pages, the same way


@pytest.fixture
def admin_client(db: None) -> "Client":
    """A client logged in as a superuser (pytest-django's fixture, with the host the settings allow)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    get_user_model().objects.create_superuser("root", "root@example.com", "not-a-common-pass-42")
    client = Client(HTTP_HOST="localhost")
    client.login(username="root", password="not-a-common-pass-42")
    return client


# -- The clock: no test runs across midnight ----------------------------------------------------------
# A test that sets up today's challenge on the real clock and plays it a few seconds later fails when
# the challenge day ends in between (409 day_over, or tomorrow's deal is not open). Tests that are about
# day boundaries move the clock themselves (time_machine); every other test, when it starts within
# NEAR_MIDNIGHT of a challenge day's start or end (``games.days``: midnight in DAILY_TIMEZONE), runs on
# a clock moved an hour away from it, forward after the start and back before the end, so the day it
# starts on stays the day it ends on. Elsewhere in the day the clock is left alone. Tests that talk to
# other processes (mark: broker) keep the real clock, which those share.
NEAR_MIDNIGHT = dt.timedelta(minutes=20)


def clock_shift(now: dt.datetime, starts_at: dt.datetime, ends_at: dt.datetime) -> dt.timedelta:
    """How far a test starting at ``now``, in the day from ``starts_at`` to ``ends_at``, moves its clock:
    none, or an hour away from the day's nearer edge."""
    if now - starts_at < NEAR_MIDNIGHT:
        return dt.timedelta(hours=1)
    if ends_at - now <= NEAR_MIDNIGHT:
        return -dt.timedelta(hours=1)
    return dt.timedelta(0)


# The suite's clocks are written in UTC (time_machine travels to 23:59 UTC to test a day's end), so
# every test runs on a UTC challenge day whatever DAILY_TIMEZONE the environment sets; the
# tests of other zones set theirs (e.g. test_the_day_ends_at_midnight_in_the_configured_zone). The
# environment is pinned too, for the tests that start the service's own processes.
@pytest.fixture(autouse=True)
def _utc_challenge_day(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.DAILY_TIMEZONE = "UTC"
    monkeypatch.setenv("DAILY_TIMEZONE", "UTC")


@pytest.fixture(autouse=True)
def _away_from_midnight(request: pytest.FixtureRequest, _utc_challenge_day: None) -> Iterator[None]:
    from django.utils import timezone

    from games import days

    now, day = timezone.now(), days.today()
    shift = clock_shift(now, days.next_day_starts_at(day - dt.timedelta(days=1)), days.next_day_starts_at(day))
    if not shift or "broker" in request.keywords:
        yield
        return
    with time_machine.travel(now + shift, tick=True):
        yield
