"""The OpenAPI schema documents every status an operation can answer, each error in the one error shape.

``ApiSchema`` (``DEFAULT_SCHEMA_CLASS``) adds to what a view's ``extend_schema``
declares the statuses that follow from how the view is built:

- 400 when the path has parameters or the operation takes a body (bad input),
- 401 when a credential is read (a wrong token is refused on any endpoint),
- 403 when a login is required (a session without one; a session's CSRF check),
- 404 when the path names something (it may not exist, or not be yours),
- 413 and 415 when the operation takes a body (too large, not JSON),
- 429 when requests are throttled.

Every 4xx response, added or declared, has the ``Error`` body
(``{"error": {"message", "code", "details"?}}``, see config/exceptions.py).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiResponse, extend_schema_serializer
from rest_framework import permissions, serializers


@extend_schema_serializer(component_name="ErrorDetail")
class ErrorDetailOutput(serializers.Serializer[Any]):
    message = serializers.CharField(help_text="What went wrong, for a person.")
    code = serializers.CharField(help_text="Stable and machine-readable: invalid, parse_error, not_found, ...")
    details = serializers.JSONField(required=False, help_text="More to say, e.g. per-field validation errors.")


@extend_schema_serializer(component_name="Error")
class ErrorOutput(serializers.Serializer[Any]):
    error = ErrorDetailOutput()


DESCRIPTIONS = {
    400: "bad input: the message says which and why",
    401: "the credentials are wrong (an unknown or malformed token), or a login is required",
    403: "not allowed: no login (session), a failed CSRF check, or not the owner",
    404: "not found, or not the caller's",
    409: "conflict with the stored state",
    413: "the request body is too large",
    415: "the request body is not JSON",
    429: "too many requests: retry after the Retry-After header's seconds",
}


class ApiSchema(AutoSchema):
    def _error_statuses(self) -> set[int]:
        view: Any = self.view
        takes_body = self.method in ("POST", "PUT", "PATCH") and self.get_request_serializer() is not None
        names_something = "{" in self.path
        codes: set[int] = set()
        if names_something or takes_body:
            codes.add(400)
        if view.get_authenticators():
            codes.add(401)
        if any(isinstance(p, permissions.IsAuthenticated) for p in view.get_permissions()):
            codes.add(403)
        if names_something:
            codes.add(404)
        if takes_body:
            codes.update((413, 415))
        if view.get_throttles():
            codes.add(429)
        return codes

    def _error_response(self, code: int, description: str | None = None) -> dict[str, Any]:
        response = OpenApiResponse(response=ErrorOutput, description=description or DESCRIPTIONS.get(code, "error"))
        # drf-spectacular leaves this method unannotated
        return dict(self._get_response_for_code(response, str(code), direction="response"))  # type: ignore[no-untyped-call]

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = dict(super()._get_response_bodies(direction))
        if direction != "response" or not self.path.startswith("/api/"):
            return responses
        for code in sorted(self._error_statuses()):
            responses.setdefault(str(code), self._error_response(code))
        for key, response in list(responses.items()):
            if key.startswith("4") and not response.get("content"):  # declared with a description only
                responses[key] = self._error_response(int(key), response.get("description"))
        return dict(sorted(responses.items()))
