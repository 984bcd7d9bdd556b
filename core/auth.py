"""The signed-in player of a request, typed as the ``User`` the services take.

Django and DRF type ``request.user`` as ``User | AnonymousUser``; behind ``login_required`` or
``IsAuthenticated`` it is always a ``User``. ``request_player`` says so once, checked at run time:
a view that forgot its permission refuses the request (403) instead of passing an anonymous user on.
"""

from __future__ import annotations

from typing import Protocol

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied


class _Request(Protocol):  # Django's HttpRequest and DRF's Request alike
    @property
    def user(self) -> object: ...


def request_player(request: _Request) -> User:
    """``request.user`` of a request a login check has already let through."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("Sign in first.")
    return user
