"""The leaderboard's application errors (mapped to HTTP by config.exceptions)."""

from __future__ import annotations

from rest_framework import status

from config.exceptions import ApplicationError


class InvalidDate(ApplicationError):
    status_code = status.HTTP_400_BAD_REQUEST
    code = "invalid_date"


class UnknownGame(ApplicationError):
    status_code = status.HTTP_400_BAD_REQUEST
    code = "unknown_game"


class BoardNotFound(ApplicationError):
    status_code = status.HTTP_404_NOT_FOUND
    code = "not_found"


class PlayerNotFound(ApplicationError):
    status_code = status.HTTP_404_NOT_FOUND
    code = "not_found"
