"""The lanes of the suite (conftest.py): `--fast` leaves the slow tests out, a test marked `postgres`,
`redis` or `nginx` is skipped with its reason where the service is absent, and in CI, where the
service's variable is set (nginx has none), a test skipped for lack of it is an error instead.

Each case runs pytest in a subprocess (so: slow) on a small suite that uses this project's conftest.py
and settings, with the environment of that case."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

SUITE = """
import pytest


@pytest.fixture
def redis_client():
    return None


@pytest.mark.postgres
def test_postgres():
    pass


@pytest.mark.redis(reason="a broker")
def test_redis():
    pass


def test_redis_client(redis_client):
    pass


@pytest.mark.slow
def test_slow():
    pass


def test_plain():
    pass
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeconftest((ROOT / "conftest.py").read_text())
    pytester.makeini(
        f"""
        [pytest]
        DJANGO_SETTINGS_MODULE = config.settings
        pythonpath = {ROOT}
        addopts = -p no:cacheprovider -p no:schemathesis -rs --strict-markers
        markers =
            slow: slow
            postgres: PostgreSQL
            redis: Redis
            throttled: throttled
            broker: broker
            nginx: nginx
        """
    )
    pytester.makepyfile(test_suite=SUITE)
    # README's set-up: SQLite (a file of this test's own), no Redis, not CI.
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{pytester.path / 'db.sqlite3'}")
    for name in ("REDIS_URL", "CI"):
        monkeypatch.delenv(name, raising=False)
    return pytester


def test_without_the_services_their_tests_are_skipped_with_the_reason(suite: pytest.Pytester) -> None:
    result = suite.runpytest_subprocess()
    result.assert_outcomes(passed=2, skipped=3)
    result.stdout.fnmatch_lines_random(
        [
            "*test_suite.py:*: needs PostgreSQL: DATABASE_URL=postgres://...",
            "*test_suite.py:*: needs Redis: REDIS_URL=redis://... (a broker)",
            "SKIPPED [1] test_suite.py: needs Redis: REDIS_URL=redis://...",
        ]
    )


def test_the_fast_lane_leaves_the_slow_tests_out(suite: pytest.Pytester) -> None:
    result = suite.runpytest_subprocess("--fast")
    result.assert_outcomes(passed=1, skipped=3, deselected=1)


def test_in_ci_a_service_named_but_missing_is_an_error_not_a_skip(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")  # DATABASE_URL is set, but to SQLite: PostgreSQL was expected
    result = suite.runpytest_subprocess()
    result.assert_outcomes(passed=2, skipped=2, errors=1)
    expected = "*needs PostgreSQL*: in CI with the service's variable set, a missing service is an error*"
    result.stdout.fnmatch_lines([expected])
    assert result.ret == pytest.ExitCode.TESTS_FAILED


NGINX_SUITE = """
import pytest


@pytest.mark.nginx(reason="the proxy")
def test_behind_the_proxy():
    pass
"""


@pytest.mark.parametrize("ci", [False, True])
def test_without_nginx_its_tests_are_skipped_and_in_ci_they_fail(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: bool
) -> None:
    (suite.path / "test_suite.py").unlink()
    suite.makepyfile(test_nginx=NGINX_SUITE)
    monkeypatch.setenv("NGINX", "")  # none, whether or not this machine has one
    if ci:
        monkeypatch.setenv("CI", "true")
    result = suite.runpytest_subprocess()
    if ci:
        result.assert_outcomes(errors=1)
        result.stdout.fnmatch_lines(["*needs nginx (Debian: apt-get install nginx) (the proxy)*an error*"])
    else:
        result.assert_outcomes(skipped=1)
        result.stdout.fnmatch_lines(["*test_nginx.py:*: needs nginx (Debian: apt-get install nginx) (the proxy)"])


NEAR_MIDNIGHT_PLUGIN = """
import datetime as dt

import pytest
import time_machine


@pytest.fixture(autouse=True)
def _half_a_second_before_midnight():
    today = dt.datetime.now(dt.UTC).date()
    with time_machine.travel(dt.datetime.combine(today, dt.time(23, 59, 59, 500000), tzinfo=dt.UTC), tick=True):
        yield
"""

ACROSS_MIDNIGHT = """
import datetime as dt
import time

import pytest


def _same_day_a_second_later():
    day = dt.datetime.now(dt.UTC).date()
    time.sleep(1)
    return dt.datetime.now(dt.UTC).date() == day


def test_plain():
    assert _same_day_a_second_later()


@pytest.mark.broker
def test_on_the_real_clock():
    assert _same_day_a_second_later()
"""


def test_no_test_runs_across_midnight(suite: pytest.Pytester) -> None:
    """A test that starts half a second before midnight (a plugin moves the clock there) ends on the date it
    started on: conftest moved its clock an hour back. One marked broker keeps the real clock and crosses."""
    suite.makepyfile(near_midnight=NEAR_MIDNIGHT_PLUGIN, test_suite=ACROSS_MIDNIGHT)
    result = suite.runpytest_subprocess("-p", "near_midnight", "-rf")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*FAILED test_suite.py::test_on_the_real_clock*"])


@pytest.mark.parametrize(
    ("at", "shift"),
    [("00:00:00", 1), ("00:19:59", 1), ("00:20:00", 0), ("12:00:00", 0), ("23:40:00", -1), ("23:59:59", -1)],
)
def test_the_clock_moves_an_hour_away_from_midnight_only_near_it(at: str, shift: int) -> None:
    from conftest import clock_shift

    day = dt.datetime(2026, 12, 5, tzinfo=dt.UTC)
    now = dt.datetime.combine(day.date(), dt.time.fromisoformat(at), tzinfo=dt.UTC)
    assert clock_shift(now, day, day + dt.timedelta(days=1)) == dt.timedelta(hours=shift)
