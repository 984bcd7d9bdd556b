"""The one place where errors become HTTP responses.

Every API error has the shape ``{"error": {"message": str, "code": str}}``,
plus ``"details"`` when there is more to say (per-field validation errors).
Services raise :class:`ApplicationError` subclasses and never build responses;
views let them propagate to :func:`api_exception_handler`.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.core.signals import got_request_exception
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from core.errors import ApplicationError

logger = logging.getLogger(__name__)


def error_body(message: str, code: str, details: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"message": message, "code": code}
    if details is not None:
        error["details"] = details
    return {"error": error}


def _first_message(detail: Any) -> str | None:
    """The first human-readable message found in a DRF error detail."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            message = _first_message(value)
            if message is not None:
                if key in ("non_field_errors", "detail"):
                    return message
                return f"{key}: {message}"
        return None
    if isinstance(detail, list):
        for value in detail:
            message = _first_message(value)
            if message is not None:
                return message
        return None
    return str(detail)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF EXCEPTION_HANDLER: wrap DRF's default handler into our JSON shape."""
    if isinstance(exc, ApplicationError):
        set_rollback()
        wait = getattr(exc, "wait", None)  # core.limits.Throttled
        headers = {"Retry-After": str(wait)} if wait else None
        return Response(error_body(exc.message, exc.code, exc.details), status=exc.status_code, headers=headers)

    # DRF's own handler already maps Django's Http404 and PermissionDenied to
    # NotFound and PermissionDenied; map them explicitly so the shape does not
    # depend on that detail.
    if isinstance(exc, RequestDataTooBig):
        set_rollback()
        return Response(
            error_body(f"the request body is larger than {settings.DATA_UPLOAD_MAX_MEMORY_SIZE} bytes", "too_large"),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        # Not an API exception: a bug. Log it, tell Django (so the test client
        # re-raises it), and answer in the same JSON shape.
        logger.exception("Unhandled error in API view", exc_info=exc)
        request = context.get("request")
        got_request_exception.send(sender=None, request=request)
        set_rollback()
        return Response(
            error_body("Internal server error.", "server_error"),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )

    assert isinstance(exc, exceptions.APIException)
    if isinstance(exc, exceptions.ValidationError):
        message = _first_message(exc.detail) or "Invalid input."
        response.data = error_body(message, "invalid", exc.get_full_details())
    else:
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        response.data = error_body(str(exc.detail), str(code))
    return response
