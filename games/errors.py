"""The games app's application errors, mapped to HTTP in config.exceptions."""

from __future__ import annotations

from rest_framework import status

from config.exceptions import ApplicationError


class NotFound(ApplicationError):
    status_code = status.HTTP_404_NOT_FOUND
    code = "not_found"


class Conflict(ApplicationError):
    status_code = status.HTTP_409_CONFLICT
    code = "conflict"


class IllegalMove(ApplicationError):
    """A move the position forbids; details carry SPEC section 6's index, move and reason."""

    status_code = status.HTTP_400_BAD_REQUEST
    code = "illegal_move"


class BadRequest(ApplicationError):
    status_code = status.HTTP_400_BAD_REQUEST
    code = "invalid"
