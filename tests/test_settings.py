"""Settings read from the environment, as the README documents them.

Each case runs Django's settings in a fresh interpreter with a controlled
environment, so that the outcome does not depend on how the suite was started.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from pytest_django import Settings

BASE_DIR = Path(__file__).resolve().parent.parent

# Everything the settings read; removed from the child's environment unless a
# test sets it.
SETTINGS_VARS = (
    "DJANGO_DEBUG",
    "DJANGO_SECRET_KEY",
    "DJANGO_ALLOWED_HOSTS",
    "DATABASE_URL",
    "REDIS_URL",
    "DAILY_TIMEZONE",
    "DAILY_SECRET",
    "REDIS_SOCKET_TIMEOUT",
    "REDIS_CONNECT_TIMEOUT",
    "REDIS_RETRY_AFTER",
    "DATABASE_CONNECT_TIMEOUT",
    "DJANGO_SECURE_SSL_REDIRECT",
    "DJANGO_SECURE_HSTS_SECONDS",
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "DJANGO_SECURE_HSTS_PRELOAD",
    "DJANGO_SECURE_COOKIES",
    "DJANGO_SECURE_PROXY_SSL_HEADER",
    "METRICS_TOKEN",
    "LOG_FORMAT",
    "SENTRY_DSN",
)

# secrets.token_urlsafe(48), as README says to make one.
STRONG_DAILY_SECRET = "q3Vx9_LmT0bKcZr7YwHf2NdPaJ8uEsGi4oXkRvC1tQy6Bn-WhMz5lDjAeUgFpI0S"
STRONG_SECRET_KEY = "W7pLq2_ZxK9vRt4mYc0NbHs8JdGf3uEaQ6oTi1kXlV5wS-nCyMr0DhPzBg7jUeAF"

DUMP_SETTINGS = """
import json, django
django.setup()
from django.conf import settings
from config.celery import app
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "SECRET_KEY": settings.SECRET_KEY,
    "ALLOWED_HOSTS": settings.ALLOWED_HOSTS,
    "DB_ENGINE": settings.DATABASES["default"]["ENGINE"],
    "DB_NAME": str(settings.DATABASES["default"]["NAME"]),
    "DB_HOST": settings.DATABASES["default"].get("HOST", ""),
    "CACHE_BACKEND": settings.CACHES["default"]["BACKEND"],
    "CACHE_LOCATION": settings.CACHES["default"].get("LOCATION", ""),
    "DAILY_TIMEZONE": settings.DAILY_TIMEZONE,
    "DAILY_SECRET": settings.DAILY_SECRET,
    "celery_main": app.main,
    "celery_eager": app.conf.task_always_eager,
    "celery_eager_propagates": app.conf.task_eager_propagates,
    "celery_broker": app.conf.broker_url,
    "celery_backend": app.conf.result_backend,
}))
"""


def run_python(code: str, *, fresh: bool = False, **env_vars: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter on ``config.settings``, with debug asked for as bin/serve and the
    tests ask for it (``fresh``: with nothing configured at all, as on a new machine), then ``env_vars``."""
    env = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARS}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    if not fresh:
        env["DJANGO_DEBUG"] = "true"
    env.update(env_vars)
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def dump_settings(*, fresh: bool = False, **env_vars: str) -> dict[str, object]:
    result = run_python(DUMP_SETTINGS, fresh=fresh, **env_vars)
    assert result.returncode == 0, result.stderr
    dumped: dict[str, object] = json.loads(result.stdout)
    return dumped


@pytest.mark.slow
def test_nothing_configured_is_production_and_refuses_the_development_secrets() -> None:
    """DJANGO_DEBUG defaults to false: a process started with nothing set (a worker, gunicorn, a forgotten
    variable) does not run on the public development secrets, from which anyone computes every deal."""
    result = run_python("import django; django.setup()", fresh=True)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false" in result.stderr
    assert "DJANGO_DEBUG=true" in result.stderr  # how a development machine asks for debug
    s = dump_settings(fresh=True, DJANGO_SECRET_KEY=STRONG_SECRET_KEY, DAILY_SECRET=STRONG_DAILY_SECRET)
    assert s["DEBUG"] is False and s["ALLOWED_HOSTS"] == []


@pytest.mark.slow
def test_embedded_defaults_in_debug() -> None:
    s = dump_settings()
    assert s["DEBUG"] is True
    assert s["DB_ENGINE"] == "django.db.backends.sqlite3"
    assert s["DB_NAME"] == str(BASE_DIR / "db.sqlite3")
    assert s["CACHE_BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert s["DAILY_TIMEZONE"] == "UTC"
    assert s["DAILY_SECRET"]
    assert "127.0.0.1" in s["ALLOWED_HOSTS"]  # type: ignore[operator]


@pytest.mark.slow
def test_celery_runs_tasks_in_process_without_redis() -> None:
    s = dump_settings()
    assert s["celery_main"] == "dailypatience"
    assert s["celery_eager"] is True
    assert s["celery_eager_propagates"] is True
    assert s["celery_broker"] == "memory://"


@pytest.mark.slow
def test_database_and_redis_from_environment() -> None:
    s = dump_settings(
        DATABASE_URL="postgres://someone@db.example:5432/patience",
        REDIS_URL="redis://cache.example:6379/3",
    )
    assert s["DB_ENGINE"] == "config.postgres"  # Django's, with a check without a round trip
    assert s["DB_NAME"] == "patience"
    assert s["DB_HOST"] == "db.example"
    assert s["CACHE_BACKEND"] == "config.cache.FailoverRedisCache"
    assert s["CACHE_LOCATION"] == "redis://cache.example:6379/3"
    assert s["celery_eager"] is False
    assert s["celery_broker"] == "redis://cache.example:6379/3"
    assert s["celery_backend"] == "redis://cache.example:6379/3"


@pytest.mark.slow
def test_production_refuses_to_start_without_secret_key() -> None:
    result = run_python("import django; django.setup()", DJANGO_DEBUG="false", DAILY_SECRET="x")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false" in result.stderr


@pytest.mark.slow
def test_production_refuses_to_start_without_daily_secret() -> None:
    result = run_python("import django; django.setup()", DJANGO_DEBUG="false", DJANGO_SECRET_KEY=STRONG_SECRET_KEY)
    assert result.returncode != 0
    assert "DAILY_SECRET must be set when DJANGO_DEBUG is false" in result.stderr


@pytest.mark.parametrize(
    "secret",
    [
        "server-secret",  # short, and words
        "dev-only-daily-secret-do-not-use-in-production",  # the public development default
        "correct horse battery staple and then some more words to be long",  # a passphrase
        "change-me-to-a-long-random-secret-before-going-to-production",  # a placeholder
        "k" * 80,  # long, one character
        "Tr0ub4dor&3" * 6,  # long, a pattern typed again
        "3f9a" * 16,  # hex-looking, repeated
        "8c1d3e7f0b5a9c2e4d6f8a1b3c5d7e9f",  # token_hex(16): 16 random bytes, not 32
        "Zk3_pQ9vLw2mX7tR0aBn5cYd8eHf1gJs",  # token_urlsafe(24): 24 random bytes
    ],
)
@pytest.mark.slow
def test_production_refuses_a_weak_daily_secret(secret: str) -> None:
    result = run_python(
        "import django; django.setup()", DJANGO_DEBUG="false", DJANGO_SECRET_KEY=STRONG_SECRET_KEY, DAILY_SECRET=secret
    )
    assert result.returncode != 0
    assert "DAILY_SECRET is too weak for production" in result.stderr
    assert "secrets.token_urlsafe(48)" in result.stderr  # how to make a good one
    assert secret not in result.stderr  # the refusal does not print the secret


@pytest.mark.parametrize(
    "key",
    [
        "x",  # issue 52: DJANGO_SECRET_KEY=x started
        "k" * 50,
        "django-insecure-dev-only-daily-patience-do-not-use-in-production",  # the public development key
        "a-production-like-secret-key-with-many-different-characters",  # words
    ],
)
@pytest.mark.slow
def test_production_refuses_a_weak_secret_key(key: str) -> None:
    result = run_python("import django; django.setup()", DJANGO_DEBUG="false", DJANGO_SECRET_KEY=key)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY is too weak for production" in result.stderr, result.stderr
    assert len(key) < 5 or key not in result.stderr  # the refusal does not print it


@pytest.mark.slow
def test_production_refuses_one_secret_for_both() -> None:
    result = run_python(
        "import django; django.setup()",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=STRONG_DAILY_SECRET,
        DAILY_SECRET=STRONG_DAILY_SECRET,
    )
    assert result.returncode != 0 and "DAILY_SECRET and DJANGO_SECRET_KEY must differ" in result.stderr


def test_generated_secrets_pass_the_strength_check() -> None:
    """The check refuses weak secrets, not the ones README tells how to make (hex or base 64): made
    here as secrets.token_urlsafe and token_hex make them, from a seeded generator (reproducible)."""
    import base64
    import random

    from config.secret_strength import secret_problem

    rng = random.Random(27)
    for _ in range(3000):
        for size in (48, 32):
            secret = base64.urlsafe_b64encode(rng.randbytes(size)).rstrip(b"=").decode()
            assert secret_problem(secret) is None, secret
        secret = rng.randbytes(32).hex()
        assert secret_problem(secret) is None, secret


@pytest.mark.slow
def test_debug_still_starts_on_the_embedded_default_secret() -> None:
    """bin/serve runs in debug on the embedded development secret: no refusal there."""
    s = dump_settings(DJANGO_DEBUG="true")
    assert s["DEBUG"] is True and s["DAILY_SECRET"] == "dev-only-daily-secret-do-not-use-in-production"
    s = dump_settings(DJANGO_DEBUG="true", DAILY_SECRET="short")
    assert s["DAILY_SECRET"] == "short"


@pytest.mark.slow
def test_production_starts_with_its_secrets() -> None:
    s = dump_settings(
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=STRONG_SECRET_KEY,
        DAILY_SECRET=STRONG_DAILY_SECRET,
        DJANGO_ALLOWED_HOSTS="patience.example,www.patience.example",
        DAILY_TIMEZONE="Europe/Paris",
    )
    assert s["DEBUG"] is False
    assert s["SECRET_KEY"] == STRONG_SECRET_KEY
    assert s["DAILY_SECRET"] == STRONG_DAILY_SECRET
    assert s["ALLOWED_HOSTS"] == ["patience.example", "www.patience.example"]
    assert s["DAILY_TIMEZONE"] == "Europe/Paris"


@pytest.mark.slow
def test_unknown_daily_timezone_is_refused() -> None:
    result = run_python("import django; django.setup()", DAILY_TIMEZONE="Mars/Olympus_Mons")
    assert result.returncode != 0
    assert "DAILY_TIMEZONE='Mars/Olympus_Mons' is not a known IANA time zone" in result.stderr


@pytest.mark.slow
def test_django_system_checks_pass_in_production_mode() -> None:
    result = run_python(
        "from django.core.management import execute_from_command_line;"
        " execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'ERROR'])",
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY=STRONG_SECRET_KEY,
        DAILY_SECRET=STRONG_DAILY_SECRET,
    )
    assert result.returncode == 0, result.stdout + result.stderr


PRODUCTION_ENV: dict[str, Any] = {  # unpacked into run_python (a bool keyword too)
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": STRONG_SECRET_KEY,
    "DAILY_SECRET": STRONG_DAILY_SECRET,
    "DJANGO_ALLOWED_HOSTS": "patience.example",
    "DATABASE_URL": "postgres://someone@db.example:5432/patience",
    "REDIS_URL": "redis://cache.example:6379/3",
}

CHECK_DEPLOY = (
    "from django.core.management import execute_from_command_line;"
    " execute_from_command_line(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])"
)


@pytest.mark.slow
def test_check_deploy_is_clean_in_production_mode() -> None:
    """No warning at all (HSTS, SSL redirect, secure cookies...) with production defaults."""
    result = run_python(CHECK_DEPLOY, **PRODUCTION_ENV)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "System check identified no issues" in output
    assert "WARNINGS" not in output and "security.W" not in output


@pytest.mark.slow
def test_check_deploy_warns_when_https_is_switched_off() -> None:
    """The test above can fail: switching the defaults off brings the warnings back."""
    result = run_python(
        CHECK_DEPLOY,
        **PRODUCTION_ENV,
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_SECURE_HSTS_SECONDS="0",
        DJANGO_SECURE_COOKIES="false",
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W016"):
        assert warning in output, output
    # Insecure session cookies: W012 names Django's SessionMiddleware, W010 the sessions app (what it
    # says when the middleware is config.lean's subclass, as here).
    assert "security.W012" in output or "security.W010" in output, output


HTTPS_SETTINGS = """
import json, django
django.setup()
from django.conf import settings
print(json.dumps({
    "redirect": settings.SECURE_SSL_REDIRECT,
    "hsts": settings.SECURE_HSTS_SECONDS,
    "subdomains": settings.SECURE_HSTS_INCLUDE_SUBDOMAINS,
    "preload": settings.SECURE_HSTS_PRELOAD,
    "session_secure": settings.SESSION_COOKIE_SECURE,
    "csrf_secure": settings.CSRF_COOKIE_SECURE,
    "proxy_header": settings.SECURE_PROXY_SSL_HEADER,
}))
"""


@pytest.mark.slow
def test_https_settings_follow_debug_and_the_environment() -> None:
    def dump(**env_vars: Any) -> Any:
        result = run_python(HTTPS_SETTINGS, **env_vars)
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    assert dump() == {
        "redirect": False,
        "hsts": 0,
        "subdomains": False,
        "preload": False,
        "session_secure": False,
        "csrf_secure": False,
        "proxy_header": None,
    }
    assert dump(**PRODUCTION_ENV) == {
        "redirect": True,
        "hsts": 31536000,
        "subdomains": True,
        "preload": True,
        "session_secure": True,
        "csrf_secure": True,
        "proxy_header": None,
    }
    assert dump(
        **PRODUCTION_ENV,
        DJANGO_SECURE_SSL_REDIRECT="false",
        DJANGO_SECURE_COOKIES="false",
        DJANGO_SECURE_HSTS_SECONDS="3600",
        DJANGO_SECURE_HSTS_PRELOAD="false",
        DJANGO_SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
    ) == {
        "redirect": False,
        "hsts": 3600,
        "subdomains": True,
        "preload": False,
        "session_secure": False,
        "csrf_secure": False,
        "proxy_header": ["HTTP_X_FORWARDED_PROTO", "https"],
    }


@pytest.mark.django_db
def test_ssl_redirect_spares_the_probes_and_trusts_only_the_configured_proxy_header(
    settings: Settings, client: Client
) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = None
    settings.ALLOWED_HOSTS = ["testserver"]
    response = client.get("/api/v1/health")
    assert response.status_code == 301
    assert response["Location"] == "https://testserver/api/v1/health"
    # A forged header is not trusted unless the setting names it.
    assert client.get("/api/v1/health", HTTP_X_FORWARDED_PROTO="https").status_code == 301
    assert client.get("/healthz").status_code in (200, 503)  # probes over plain HTTP: never redirected
    assert client.get("/readyz").status_code in (200, 503)
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert client.get("/api/v1/health", HTTP_X_FORWARDED_PROTO="https").status_code == 200


@pytest.mark.slow
def test_no_missing_migrations() -> None:
    result = run_python(
        "from django.core.management import execute_from_command_line;"
        " execute_from_command_line(['manage.py', 'makemigrations', '--check', '--dry-run'])"
    )
    assert result.returncode == 0, result.stdout + result.stderr


REDIS_TIMEOUTS = """
import json, django
django.setup()
from django.conf import settings
from django.core.cache import cache
from config.celery import app
from leaderboard import redis_store
pool = cache._cache._get_connection_pool(True)
board = redis_store.get_client().connection_pool
print(json.dumps({
    "cache": [pool.connection_kwargs["socket_timeout"], pool.connection_kwargs["socket_connect_timeout"],
              pool.connection_kwargs["retry"].get_retries()],
    "board": [board.connection_kwargs["socket_timeout"], board.connection_kwargs["socket_connect_timeout"],
              board.connection_kwargs["retry"].get_retries()],
    "broker": [app.conf.broker_transport_options["socket_timeout"],
               app.conf.broker_transport_options["socket_connect_timeout"],
               app.conf.broker_transport_options["max_retries"], app.conf.broker_connection_timeout],
    "retry_after": settings.REDIS_RETRY_AFTER,
    "db_connect_timeout": settings.DATABASES["default"]["OPTIONS"]["connect_timeout"],
}))
"""


@pytest.mark.slow
def test_every_redis_client_has_short_timeouts_and_no_retries_of_its_own() -> None:
    env: dict[str, Any] = {
        "REDIS_URL": "redis://cache.example:6379/3",
        "DATABASE_URL": "postgres://someone@db.example:5432/p",
    }
    result = run_python(REDIS_TIMEOUTS, **env)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "cache": [0.5, 0.5, 0],
        "board": [0.5, 0.5, 0],
        "broker": [0.5, 0.5, 1, 0.5],
        "retry_after": 5.0,
        "db_connect_timeout": 5,
    }
    result = run_python(
        REDIS_TIMEOUTS,
        REDIS_SOCKET_TIMEOUT="0.2",
        REDIS_CONNECT_TIMEOUT="0.3",
        REDIS_RETRY_AFTER="9",
        DATABASE_CONNECT_TIMEOUT="2",
        **env,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "cache": [0.2, 0.3, 0],
        "board": [0.2, 0.3, 0],
        "broker": [0.2, 0.3, 1, 0.3],
        "retry_after": 9.0,
        "db_connect_timeout": 2,
    }
