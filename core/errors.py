"""The application's error root: the business rules said no.

Services raise these and never build responses; ``config.exceptions`` maps each to its HTTP
status in one exception handler. This module sits below every app, so any app may raise them.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any


class ApplicationError(Exception):
    """Root of the application's own errors (the business rules said no).

    Subclasses set ``status_code`` and ``code``; the message is for a person.
    """

    status_code: int = HTTPStatus.BAD_REQUEST
    code: str = "invalid"

    def __init__(self, message: str, *, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class BadRequest(ApplicationError):
    status_code = HTTPStatus.BAD_REQUEST
    code = "invalid"


class Forbidden(ApplicationError):
    status_code = HTTPStatus.FORBIDDEN
    code = "forbidden"


class NotFound(ApplicationError):
    status_code = HTTPStatus.NOT_FOUND
    code = "not_found"


class Conflict(ApplicationError):
    status_code = HTTPStatus.CONFLICT
    code = "conflict"
