"""Django settings for Daily Patience.

Everything that differs between a laptop, CI and production is read from the
environment (django-environ). With no environment at all the service runs on
embedded defaults: SQLite, a local-memory cache and Celery tasks executed in
process. See README.md, "Configuration", for the full table.
"""

from __future__ import annotations

from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import django_stubs_ext
import environ
from django.core.exceptions import ImproperlyConfigured
from redis.backoff import NoBackoff
from redis.retry import Retry

from config.logs import logging_config
from config.secret_strength import HOW_TO_MAKE_ONE, secret_problem
from config.sentry import init_sentry

# Django's generic classes (ModelAdmin[User], ModelForm[Challenge], fields) take type arguments at run
# time too, as the strict type check (mypy-apps.ini) asks.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

# --- Core -------------------------------------------------------------------

# Production unless debug is asked for: a process started with nothing configured refuses to run on the
# public development secrets. bin/serve, the tests (config/debug_settings.py) and a laptop's shell ask
# for it with DJANGO_DEBUG=true.
DEBUG = env.bool("DJANGO_DEBUG", default=False)

_DEV_SECRET_KEY = "django-insecure-dev-only-daily-patience-do-not-use-in-production"
_DEV_DAILY_SECRET = "dev-only-daily-secret-do-not-use-in-production"

SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false (the default: set DJANGO_DEBUG=true "
            "on a development machine). Make one with: " + HOW_TO_MAKE_ONE
        )
    SECRET_KEY = _DEV_SECRET_KEY
elif not DEBUG and (_weak := secret_problem(SECRET_KEY)):
    # It signs sessions, password reset links and CSRF tokens, and keys the stored hashes of addresses.
    raise ImproperlyConfigured(
        f"DJANGO_SECRET_KEY is too weak for production: {_weak}. It needs at least 32 random bytes; "
        "make one with: " + HOW_TO_MAKE_ONE
    )

# Server secret from which daily seeds are derived. A known value would let
# anyone compute future deals, so production refuses to start without one.
DAILY_SECRET = env.str("DAILY_SECRET", default="")
if not DAILY_SECRET:
    if not DEBUG:
        raise ImproperlyConfigured(
            "DAILY_SECRET must be set when DJANGO_DEBUG is false: daily seeds are "
            "derived from it, and the development default is public. Make one with: " + HOW_TO_MAKE_ONE
        )
    DAILY_SECRET = _DEV_DAILY_SECRET
elif not DEBUG and (_weak := secret_problem(DAILY_SECRET)):
    # Past seeds are published: a guessable secret is found offline from one of them, and with it
    # every future deal (config/secret_strength.py says what is measured).
    raise ImproperlyConfigured(
        f"DAILY_SECRET is too weak for production: {_weak}. It needs at least 32 random bytes; "
        "make one with: " + HOW_TO_MAKE_ONE
    )
if not DEBUG and DAILY_SECRET == SECRET_KEY:
    raise ImproperlyConfigured("DAILY_SECRET and DJANGO_SECRET_KEY must differ: make each with: " + HOW_TO_MAKE_ONE)

# The time zone in which a "day" of the daily challenge starts and ends.
DAILY_TIMEZONE = env.str("DAILY_TIMEZONE", default="UTC")
# The difficulty model fitted on past days (manage.py calibrate_difficulty; games.difficulty).
DIFFICULTY_MODEL = Path(env.str("DIFFICULTY_MODEL", default=str(BASE_DIR / "docs" / "difficulty" / "model.json")))
try:
    ZoneInfo(DAILY_TIMEZONE)
except (ZoneInfoNotFoundError, ValueError) as exc:
    raise ImproperlyConfigured(
        f"DAILY_TIMEZONE={DAILY_TIMEZONE!r} is not a known IANA time zone "
        "(examples: UTC, Europe/Paris, America/New_York)."
    ) from exc

ALLOWED_HOSTS = env.list(
    "DJANGO_ALLOWED_HOSTS",
    default=["localhost", "127.0.0.1", "[::1]"] if DEBUG else [],
)
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

# --- HTTPS: secure by default outside debug ---------------------------------
# `manage.py check --deploy` is clean with DJANGO_DEBUG=false. Each can be switched off by the
# environment: the stack test and bench run over plain HTTP on 127.0.0.1 (no redirect, no secure
# cookies); behind a TLS-terminating proxy, set DJANGO_SECURE_PROXY_SSL_HEADER so that Django knows
# a request came in over HTTPS (else the redirect would loop).
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=not DEBUG)
# Probes and the scraper talk plain HTTP to the process itself: never redirected.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=0 if DEBUG else 365 * 24 * 60 * 60)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=not DEBUG)
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
# The header a trusted proxy sets to the scheme the client used, e.g. "X-Forwarded-Proto"
# (its value "https" then marks a secure request). Unset: no header is trusted. Set it only when
# every request reaches the service through that proxy, which must overwrite the header.
_PROXY_SSL_HEADER = env.str("DJANGO_SECURE_PROXY_SSL_HEADER", default="")
if _PROXY_SSL_HEADER:
    SECURE_PROXY_SSL_HEADER = ("HTTP_" + _PROXY_SSL_HEADER.upper().replace("-", "_"), "https")

# How many proxies of ours stand in front of the service and append to X-Forwarded-For (nginx: 1).
# The client's address is read that many entries from the header's right end, never from what a
# client can write into it (core.net.client_address); 0, the default, means the socket's peer.
NUM_PROXIES = env.int("DJANGO_NUM_PROXIES", default=0)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_prometheus",
    "games",
    "leaderboard",
    "leagues",
    "ratings",
    "follows",
    "habits",
    "solver_worker",
    "reviews",
    "accounts",
    "web",
]

MIDDLEWARE = [
    "config.logs.RequestIdMiddleware",  # first: every log line of a request carries its id
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "config.headers.SecurityHeadersMiddleware",  # Cache-Control on private API answers, CSP on pages
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Django's own, which API requests with a token skip (config/lean.py): they use none of the three.
    "config.lean.LeanSessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "config.lean.LeanAuthenticationMiddleware",
    "config.lean.LeanMessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
}
# Keep connections between requests (and between a worker's tasks): opening one costs more
# than a leaderboard read. Health checks drop a connection the server closed.
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DJANGO_CONN_MAX_AGE", default=60))
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Django's backend with a health check that costs no round trip, and one retry of a request's first
    # statement when it is safe to repeat (config/postgres/base.py).
    DATABASES["default"]["ENGINE"] = "config.postgres"
if DATABASES["default"]["ENGINE"] == "config.postgres":
    # A database that does not answer fails a request (and /readyz) in seconds, not minutes.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
        "connect_timeout", env.int("DATABASE_CONNECT_TIMEOUT", default=5)
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache and Celery: Redis when REDIS_URL is set, in process otherwise -----

REDIS_URL = env.str("REDIS_URL", default="")

# Redis is a cache and a broker, never a single point of failure: every client
# gives up after these timeouts (seconds) and does not retry on its own; the
# caller then takes its fallback (see core/circuit.py) and skips Redis for
# REDIS_RETRY_AFTER seconds before trying it again.
REDIS_SOCKET_TIMEOUT = env.float("REDIS_SOCKET_TIMEOUT", default=0.5)
REDIS_CONNECT_TIMEOUT = env.float("REDIS_CONNECT_TIMEOUT", default=0.5)
REDIS_RETRY_AFTER = env.float("REDIS_RETRY_AFTER", default=5.0)

# Used by every Redis client of the service (the cache here, the leaderboards'
# client, Celery's broker and result backend below).
REDIS_CLIENT_OPTIONS: dict[str, object] = {
    "socket_timeout": REDIS_SOCKET_TIMEOUT,
    "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
    "retry": Retry(NoBackoff(), 0),  # redis-py retries 3 times with backoff by default
}
# Sending a task gives up quickly when the broker is down: one connection retry
# at once, short socket timeouts. (A worker's own connection keeps retrying, as
# broker_connection_retry / broker_connection_max_retries say.)
CELERY_BROKER_CONNECTION_TIMEOUT = REDIS_CONNECT_TIMEOUT
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "socket_timeout": REDIS_SOCKET_TIMEOUT,
    "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.2,
    "interval_max": 0.2,
}
# The result backend (used by solver_worker's CLI, never by a request: sending
# a validation asks for no result) connects quickly but keeps Celery's default
# read timeout, which its result subscription needs.
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = REDIS_CONNECT_TIMEOUT

if REDIS_URL:
    CACHES = {
        "default": {
            # Falls back to process memory while Redis is down (config/cache.py).
            "BACKEND": "config.cache.FailoverRedisCache",
            "LOCATION": REDIS_URL,
            # Parallel stacks on one Redis database (tests, benchmarks) each take their own.
            "KEY_PREFIX": env.str("CACHE_KEY_PREFIX", default="dailypatience"),
            "OPTIONS": REDIS_CLIENT_OPTIONS,
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "dailypatience",
        }
    }
    # No broker: tasks run synchronously inside the calling process, and their
    # exceptions propagate to the caller.
    CELERY_BROKER_URL = "memory://"
    CELERY_RESULT_BACKEND = None
    CELERY_TASK_ALWAYS_EAGER = True
    CELERY_TASK_EAGER_PROPAGATES = True

# One worker per queue in production (docker-compose.yml): sub-second validations never wait behind
# the solver. A worker started without -Q consumes every queue (tests, laptops).
CELERY_QUEUE = env.str("CELERY_QUEUE", default="validation")
CELERY_SOLVER_QUEUE = env.str("CELERY_SOLVER_QUEUE", default="solver")
CELERY_TASK_DEFAULT_QUEUE = CELERY_QUEUE
# The still-winnable light's solves (sub-second, a player waiting on each) have a third queue: behind a
# burst of reviews on the solver queue they would come too late, and on the validation queue they would
# hold up results. A worker started without -Q consumes it too.
CELERY_WINNABLE_QUEUE = env.str("CELERY_WINNABLE_QUEUE", default="winnable")
# Preparing the coming days has a fourth queue and a worker of its own: nothing a player can send (reviews,
# the light) ever stands in front of a day's proof, however many there are.
CELERY_PREPARE_QUEUE = env.str("CELERY_PREPARE_QUEUE", default="prepare")
CELERY_TASK_QUEUES: dict[str, dict[str, str]] = {
    CELERY_QUEUE: {},
    CELERY_SOLVER_QUEUE: {},
    CELERY_WINNABLE_QUEUE: {},
    CELERY_PREPARE_QUEUE: {},
}
CELERY_TASK_ROUTES = {
    # Only sends one task per challenge still to prepare: quick, so it does not queue behind the solver.
    "solver_worker.prepare_upcoming_days": {"queue": CELERY_QUEUE},
    "solver_worker.prepare_challenge": {"queue": CELERY_PREPARE_QUEUE},
    # The tasks of reviews (reviews.tasks) keep the names they were first sent under: solver_worker.*.
    # Only creates review rows and sends their tasks; the reviews themselves run on the solver queue.
    "solver_worker.review_sweep": {"queue": CELERY_QUEUE},
    "solver_worker.winnable_position": {"queue": CELERY_WINNABLE_QUEUE},
    "solver_worker.*": {"queue": CELERY_SOLVER_QUEUE},
}
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = 240
CELERY_TASK_TIME_LIMIT = 300
CELERY_RESULT_EXPIRES = 24 * 60 * 60
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Beat is required in production (one instance): it keeps the coming days prepared and sends again
# what a broker outage left pending. Submissions a dead worker left pending are also sent again
# whenever a worker starts, and beat's start prepares the coming days at once (config/celery.py), so
# neither waits for an interval to pass. This is the one schedule: `manage.py keep_days_ready` (bin/serve,
# a deployment without beat) runs the same entries in process, each at its interval. Beat keeps its
# timers in its schedule file: on a volume in compose, so a deploy does not reset them.
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {
    # Keep today and the next PREPARE_AHEAD_DAYS days proven winnable and ready.
    "prepare-upcoming-days": {"task": "solver_worker.prepare_upcoming_days", "schedule": 60 * 60},
    # Submissions a lost task or a broker outage left pending are sent again. Every minute: a publish that
    # timed out on a starved machine (Redis slower than REDIS_SOCKET_TIMEOUT to answer; bench/day.py saw it
    # under load) leaves a player waiting for their result until this sweep, not for minutes.
    "resend-pending-submissions": {"task": "games.resend_pending_submissions", "schedule": 60},
    # Ranked attempts still open when their day ended are submitted as they stand.
    "close-expired-attempts": {"task": "games.close_expired_attempts", "schedule": 5 * 60},
    # Finished games of the days that are over get their review (solver queue).
    "review-finished-games": {"task": "solver_worker.review_sweep", "schedule": 5 * 60},
    # Guests nobody came back as, idle for GUEST_KEEP_DAYS days, are deleted.
    "delete-idle-guests": {"task": "games.delete_idle_guests", "schedule": 24 * 60 * 60},
    # The difficulty model fitted on the days over, into DIFFICULTY_MODEL (a day's end, in any zone, within 6 h).
    "calibrate-difficulty": {"task": "games.calibrate_difficulty", "schedule": 6 * 60 * 60},
    # Every upcoming ready challenge's solution replayed by the engine (manage.py check_challenges; a metric).
    "check-challenges": {"task": "solver_worker.check_challenges", "schedule": 60 * 60},
    # Opted-in players whose streak ends tonight are mailed at the time they chose, in their zone (once a day).
    "send-streak-reminders": {"task": "habits.send_streak_reminders", "schedule": 5 * 60},
    # Expired sessions deleted (manage.py clearsessions).
    "clear-expired-sessions": {"task": "games.clear_expired_sessions", "schedule": 24 * 60 * 60},
    # Redis boards a ban or a deletion could not rebuild (Redis down), rebuilt from PostgreSQL.
    "repair-boards": {"task": "leaderboard.repair_boards", "schedule": 60},
    # Each game's closed days rated, in order, once each (ratings.services).
    "rate-closed-days": {"task": "ratings.rate_closed_days", "schedule": 15 * 60},
}
# A day is rated once none of its ranked games is open or being checked, or this many hours after its end.
RATING_WAIT_HOURS = env.float("RATING_WAIT_HOURS", default=6.0)

# Beat's scheduler is Celery's default (its schedule file) stamping beat's heartbeat for /metrics
# (config/monitoring.py); its loop wakes at least every 15 s to do so.
CELERY_BEAT_SCHEDULER = "config.monitoring:HeartbeatScheduler"
CELERY_BEAT_MAX_LOOP_INTERVAL = 15
# How many days after today beat keeps prepared (solver_worker.prepare_upcoming_days).
PREPARE_AHEAD_DAYS = env.int("PREPARE_AHEAD_DAYS", default=7)
GUEST_KEEP_DAYS = env.int("GUEST_KEEP_DAYS", default=30)
# An API token older than this is refused and deleted; logging in again gives a new one (games.auth).
API_TOKEN_DAYS = env.int("API_TOKEN_DAYS", default=30)

# The solver's budget per seed when preparing a day, and how many seeds to try.
SOLVER_SECONDS = env.float("SOLVER_SECONDS", default=10.0)
SOLVER_MAX_SEEDS = env.int("SOLVER_MAX_SEEDS", default=20)
# A seed that budget leaves undecided, for a day at least SOLVER_LONG_AHEAD_DAYS after today, gets a long
# solve on the solver queue before it is passed over (0 turns it off; at most 900 s). Off on the embedded
# defaults, where there is no solver queue and the task would run in the preparing process.
SOLVER_LONG_SECONDS = env.float("SOLVER_LONG_SECONDS", default=300.0 if REDIS_URL else 0.0)
SOLVER_LONG_AHEAD_DAYS = env.int("SOLVER_LONG_AHEAD_DAYS", default=3)
# Game reviews (solver.review, reviews.services): the solver's budget per position probed and per
# review. bench/review.py measures a review's mean cost at these defaults (docs in README, "Game review").
REVIEW_PROBE_SECONDS = env.float("REVIEW_PROBE_SECONDS", default=0.5)
REVIEW_PROBE_NODES = env.int("REVIEW_PROBE_NODES", default=200_000)
REVIEW_PROBES = env.int("REVIEW_PROBES", default=20)
REVIEW_SECONDS = env.float("REVIEW_SECONDS", default=6.0)
# Reviews queued per sweep (beat every 5 minutes, each keep_days_ready round), and how far back
# (days since the attempt finished) the sweep looks.
REVIEW_SWEEP_LIMIT = env.int("REVIEW_SWEEP_LIMIT", default=2000)
REVIEW_LOOKBACK_DAYS = env.int("REVIEW_LOOKBACK_DAYS", default=7)
# Reviews of practice games are made when their player asks (POST /api/v1/attempts/{id}/review): at most
# this many a player (a guest) in any 24 hours, and an address in a UTC day. Ranked games need no asking.
REVIEW_REQUESTS_PER_DAY = env.int("REVIEW_REQUESTS_PER_DAY", default=5)
REVIEW_REQUESTS_PER_DAY_GUEST = env.int("REVIEW_REQUESTS_PER_DAY_GUEST", default=2)
REVIEW_REQUESTS_PER_ADDRESS_PER_DAY = env.int("REVIEW_REQUESTS_PER_ADDRESS_PER_DAY", default=20)
# The still-winnable light (reviews.winnable): the solver's budget per position. The node cap keeps
# an answer the same on a slow machine and bounds a task's time; README "Game review" has its latency.
WINNABLE_SECONDS = env.float("WINNABLE_SECONDS", default=0.5)
WINNABLE_NODES = env.int("WINNABLE_NODES", default=200_000)
# The light's fair shares: solves in flight (queued or running) at most per player, per guest, per client
# address (an IPv6 /64) and per address for its guests together; one per attempt always. A flood from one
# player keeps at most this many tasks ahead of anybody else's (README "Still winnable?").
WINNABLE_TASKS_PER_PLAYER = env.int("WINNABLE_TASKS_PER_PLAYER", default=2)
WINNABLE_TASKS_PER_GUEST = env.int("WINNABLE_TASKS_PER_GUEST", default=1)
WINNABLE_TASKS_PER_ADDRESS = env.int("WINNABLE_TASKS_PER_ADDRESS", default=4)
WINNABLE_GUEST_TASKS_PER_ADDRESS = env.int("WINNABLE_GUEST_TASKS_PER_ADDRESS", default=2)  # its guests together
# The memory bound of the solver's transposition table, in MiB, per solve (so per Celery
# worker process): the compiled core never allocates more for it (solver.core).
SOLVER_TABLE_MB = env.float("SOLVER_TABLE_MB", default=256.0)

# --- Auth -------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    {"NAME": "core.passwords.GameWordsValidator"},  # "solitaire", "klondike1": the site's own words
]

# --- Internationalisation ---------------------------------------------------

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files (WhiteNoise) ----------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))  # collectstatic's target
# In debug, serve straight from the apps' static folders (no collectstatic
# needed); in production, from STATIC_ROOT with hashed, compressed names.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage" if DEBUG else "config.storage.StaticStorage"
        )
    },
}

# --- REST API ---------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "games.auth.CachedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["config.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["config.parsers.StrictJSONParser"],
    "DEFAULT_SCHEMA_CLASS": "config.schema.ApiSchema",
    "EXCEPTION_HANDLER": "config.exceptions.api_exception_handler",
    "NUM_PROXIES": NUM_PROXIES,  # DRF's throttles read the client address as core.net does
    "DEFAULT_THROTTLE_CLASSES": [
        "core.throttling.AnonRateThrottle",
        "core.throttling.UserRateThrottle",
        "core.throttling.ScopedRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env.str("API_THROTTLE_ANON", default="600/min"),
        "user": env.str("API_THROTTLE_USER", default="2400/min"),
        "auth": env.str("API_THROTTLE_AUTH", default="30/min"),
        # The still-winnable light, per player (a guest less), and per client address (an IPv6 /64): a move
        # and a poll or two each.
        "winnable": env.str("API_THROTTLE_WINNABLE", default="120/min"),
        "winnable_guest": env.str("API_THROTTLE_WINNABLE_GUEST", default="60/min"),
        "winnable_address": env.str("API_THROTTLE_WINNABLE_ADDRESS", default="300/min"),
        # A page of a review's win (frames, cached), per client address.
        "review_win": env.str("API_THROTTLE_REVIEW_WIN", default="60/min"),
    },
}
THROTTLE = env.bool("API_THROTTLE", default=True)
# How long a process holds the day's counts of players and winners (/daily, the home page): the same for
# every caller, so not counted again on every request (games.selectors.challenge_counts).
COUNTS_SECONDS = env.float("COUNTS_SECONDS", default=10.0)
# bench/endpoints.py's calibration endpoint (config/bench.py): a bare view that writes to any attempt.
# For benchmarks only; outside debug it refuses to start unless throttling is off too (a bench's set-up).
BENCH_FLOOR = env.bool("BENCH_FLOOR", default=False)
if BENCH_FLOOR and THROTTLE and not DEBUG:
    raise ImproperlyConfigured("BENCH_FLOOR is for benchmarks (API_THROTTLE=false): never set it in production")
if not THROTTLE:  # e.g. for a load benchmark from one address; also switches off core.limits
    REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] = []
# Logins are limited per account and per address with back-off, new accounts and guests per address
# and hour (core.limits), on every entry point: the API, the pages and the admin.
SIGNUP_LIMIT_PER_HOUR = env.int("SIGNUP_LIMIT_PER_HOUR", default=10)
GUEST_LIMIT_PER_HOUR = env.int("GUEST_LIMIT_PER_HOUR", default=30)
PASSWORD_RESET_LIMIT_PER_HOUR = env.int("PASSWORD_RESET_LIMIT_PER_HOUR", default=5)

# --- E-mail (password resets) -------------------------------------------------
# EMAIL_URL (django-environ): smtp+tls://user:password@host:587 (smtp:// plain, smtp+ssl:// for 465).
# Unset: printed to standard error in debug (Django's console backend), SMTP on localhost:25 otherwise.
# The tests' runner swaps in Django's in-memory outbox whatever this says.
_email = env.email_url("EMAIL_URL", default="consolemail://" if DEBUG else "smtp://localhost:25")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = int(_email.get("EMAIL_PORT") or 25)
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = bool(_email.get("EMAIL_USE_TLS", False))
EMAIL_USE_SSL = bool(_email.get("EMAIL_USE_SSL", False))
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="Daily Patience <noreply@localhost>")
# The site's own address, for links in e-mails (password resets, e-mail changes): never the request's
# Host header, which a client chooses (an allowed host with a port of its own would pass into a mail).
SITE_URL = env.str("SITE_URL", default="http://localhost:8000").rstrip("/")
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
# A reset link works once (the token hashes the password) and for this long.
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_SECONDS", default=3600)

# A move log is at most 5,000 short strings: no API body needs more than this.
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=256 * 1024)

SPECTACULAR_SETTINGS = {
    "TITLE": "Daily Patience API",
    "DESCRIPTION": "Daily solitaire challenges: deals, attempts, submissions and leaderboards.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc assets come from drf-spectacular-sidecar, served
    # locally as static files: no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # One enum component for the game ids, wherever they appear (paths and bodies).
    "ENUM_NAME_OVERRIDES": {"GameEnum": "engine.GAME_IDS"},
}

# --- Logging, metrics, errors -------------------------------------------------

# Text by default; LOG_FORMAT=json writes one JSON object per line, with request and task ids
# (config/logs.py). Celery's worker and beat log through this too (config/celery.py).
LOG_FORMAT = env.str("LOG_FORMAT", default="text")
LOGGING = logging_config(fmt=LOG_FORMAT, level=env.str("DJANGO_LOG_LEVEL", default="INFO"))

# /metrics (config/metrics.py): with a token, only "Authorization: Bearer <token>"; without one,
# served in debug only (404 otherwise).
METRICS_TOKEN = env.str("METRICS_TOKEN", default="")
METRICS_WINDOW_SECONDS = env.float("METRICS_WINDOW_SECONDS", default=300.0)
PROMETHEUS_METRIC_NAMESPACE = ""

# Sentry: off unless SENTRY_DSN is set (config/sentry.py).
SENTRY_DSN = env.str("SENTRY_DSN", default="")
init_sentry(
    dsn=SENTRY_DSN,
    environment=env.str("SENTRY_ENVIRONMENT", default="development" if DEBUG else "production"),
    traces_sample_rate=env.float("SENTRY_TRACES_SAMPLE_RATE", default=0.0),
)
