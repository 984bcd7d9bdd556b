"""Shared pytest configuration."""

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

# CI: no deadline (a shared 2-core machine has noisy timings) and a fixed
# derivation of examples so that a red run can be reproduced.
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


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
def _fast_password_hashing(settings: pytest.FixtureRequest) -> None:
    """PBKDF2's deliberate slowness is for production; tests create many users."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # type: ignore[attr-defined]


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

    yield
    for alias in caches:
        if isinstance(caches[alias], LocMemCache):
            caches[alias].clear()
