"""Middleware that API requests carrying a token skip: the session, the session's user, messages.

An ``/api/`` request with ``Authorization: Token ...`` is authenticated by its token alone: DRF's
``TokenAuthentication`` comes first and either accepts the token or refuses the request (401), so the
session is never read and no message is shown. Loading those for it cost each request a little (the
messages' storage, the session's cookie): these subclasses pass such a request straight on, and do
all they did for every other one, which keeps everything as it was for a browser (a cookie's session,
an admin page). Django's CSRF middleware stays as it is for every request (``check --deploy`` asks for
it by name, and for the API's views, CSRF-exempt, it does next to nothing; DRF checks CSRF itself for a
session's user). A request that sends a token and a session cookie is authenticated by the token,
never by the cookie.
tests/test_lean_middleware.py holds it to that.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.middleware import AuthenticationMiddleware
from django.contrib.messages.middleware import MessageMiddleware
from django.contrib.sessions.middleware import SessionMiddleware
from django.http import HttpRequest


def token_api_request(request: HttpRequest) -> bool:
    """An API request with a token (as DRF's TokenAuthentication reads the header), decided once."""
    decided = getattr(request, "_dp_token_api", None)
    if decided is None:
        parts = request.META.get("HTTP_AUTHORIZATION", "").split()
        decided = bool(parts) and parts[0].lower() == "token" and request.path_info.startswith("/api/")
        request._dp_token_api = decided  # type: ignore[attr-defined]
    return bool(decided)


class LeanSessionMiddleware(SessionMiddleware):
    def __call__(self, request: HttpRequest) -> Any:
        if token_api_request(request):
            return self.get_response(request)
        return super().__call__(request)


class LeanAuthenticationMiddleware(AuthenticationMiddleware):
    def __call__(self, request: HttpRequest) -> Any:
        if token_api_request(request):
            return self.get_response(request)
        return super().__call__(request)


class LeanMessageMiddleware(MessageMiddleware):
    def __call__(self, request: HttpRequest) -> Any:
        if token_api_request(request):
            return self.get_response(request)
        return super().__call__(request)
