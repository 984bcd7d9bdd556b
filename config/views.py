"""Project-level views: the liveness probe and JSON error pages for /api/."""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from django.views.decorators.http import require_safe
from rest_framework import exceptions
from rest_framework.request import Request
from rest_framework.views import APIView

from config.exceptions import error_body

logger = logging.getLogger(__name__)


@require_safe
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness and readiness: the process answers and the database is reachable."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        logger.exception("healthz: database unreachable")
        return JsonResponse({"status": "error", "database": "unreachable"}, status=503)
    return JsonResponse({"status": "ok"})


class ApiNotFound(APIView):
    """Catch-all for unknown paths under /api/: a JSON 404, whatever the method."""

    authentication_classes: list[type] = []
    permission_classes: list[type] = []
    schema = None  # not part of the OpenAPI document

    def initial(self, request: Request, *args: object, **kwargs: object) -> None:
        raise exceptions.NotFound(f"No API endpoint at {request.path}.")


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
