"""Project-level views: the liveness and readiness probes, and JSON error pages for /api/."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.core.cache import caches
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.urls import Resolver404, resolve
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_safe
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.views import APIView

from config.exceptions import error_body
from config.metrics import operator_allowed

logger = logging.getLogger(__name__)


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers and the database is reachable. (Readiness: /readyz.)"""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.exception("healthz: database unreachable")
        return JsonResponse({"status": "error", "database": "unreachable"}, status=503)
    return JsonResponse({"status": "ok"})


def _check_database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return "ok"


def _check_cache() -> str:
    backend = caches["default"]
    ping = getattr(backend, "ping", None)
    if ping is None:
        return "ok (process memory)"
    ping()
    return "ok"


def _check_broker() -> str:
    from config.celery import app

    if app.conf.task_always_eager or str(app.conf.broker_url).startswith("memory://"):
        return "ok (tasks run in process)"
    timeout = float(getattr(settings, "REDIS_CONNECT_TIMEOUT", 1.0))
    with app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=timeout)
        conn.default_channel.client.ping()
    return "ok"


_migrated: list[bool] = []  # once every migration of this code is applied, it stays so for the process


def _check_migrations() -> str:
    """Down while a migration this code ships is not applied to the database (a deploy whose one-off
    migrate step has not run, or failed): new code on the old schema answers 500s. Once all are applied
    the answer is kept for the process; until then each probe asks again (the loader reads the files)."""
    if _migrated:
        return "ok"
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        names = ", ".join(f"{m.app_label}.{m.name}" for m, _ in plan[:5])
        raise RuntimeError(f"{len(plan)} migration(s) not applied: {names}{', ...' if len(plan) > 5 else ''}")
    _migrated.append(True)
    return "ok"


READINESS_CHECKS: dict[str, Callable[[], str]] = {
    "database": _check_database,
    "migrations": _check_migrations,
    "cache": _check_cache,
    "broker": _check_broker,
}


@require_safe
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: 503 naming the dependencies that are down; with the metrics token (``Authorization:
    Bearer $METRICS_TOKEN``, as /metrics), each one's "ok" or why not.

    Every check is bounded by the short Redis timeouts (REDIS_SOCKET_TIMEOUT,
    REDIS_CONNECT_TIMEOUT) and the database's connect timeout. The service
    keeps serving with Redis down (its fallbacks), but a load balancer may
    prefer an instance whose dependencies all answer.
    """
    checks: dict[str, str] = {}
    down: list[str] = []
    for name, check in READINESS_CHECKS.items():
        try:
            checks[name] = check()
        except Exception as exc:  # any failure of a dependency is "down", with its reason
            logger.warning("readyz: %s is down: %s", name, exc)
            checks[name] = f"down: {type(exc).__name__}: {exc}"[:300]
            down.append(name)
    body: dict[str, object] = {"status": "unavailable" if down else "ok", "down": down}
    if operator_allowed(request) is True:  # the reasons name hosts, ports and errors: operators only
        body["checks"] = checks
    return JsonResponse(body, status=503 if down else 200)


class ApiNotFound(APIView):
    """Catch-all for unknown paths under /api/: a JSON 404, whatever the method."""

    authentication_classes: list[type] = []
    permission_classes: list[type] = []
    schema = None  # not part of the OpenAPI document

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        raise exceptions.NotFound(f"No API endpoint at {request.path}.")


NO_PAGE = "no-page"


@csrf_exempt  # a POST to nowhere is a 404, as before the route existed, not a CSRF 403
def no_page(request: HttpRequest) -> HttpResponse:
    """Catch-all for unknown paths outside /api/: the site's own 404 page, also under DEBUG (where
    Django's handler404 is not used and a new user running bin/serve would get the technical page).

    Being a route, it would stop CommonMiddleware's APPEND_SLASH redirect (which only fires when the
    path resolves to nothing): so it redirects itself when the path with a slash is a real page."""
    path = request.path_info
    if settings.APPEND_SLASH and not path.endswith("/"):
        try:
            match = resolve(path + "/")
        except Resolver404:
            match = None
        if match is not None and match.url_name != NO_PAGE and getattr(match.func, "should_append_slash", True):
            return HttpResponsePermanentRedirect(request.get_full_path(force_append_slash=True))
    return render(request, "404.html", {"request_path": request.path}, status=404)


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


# Django-level error pages (used when DEBUG is false, for errors outside DRF
# views): JSON under /api/, Django's default pages elsewhere.


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(error_body("Bad request.", "bad_request"), status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(
            error_body("You do not have permission to perform this action.", "permission_denied"),
            status=403,
        )
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(error_body(f"No API endpoint at {request.path}.", "not_found"), status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return JsonResponse(error_body("Internal server error.", "server_error"), status=500)
    return defaults.server_error(request)
