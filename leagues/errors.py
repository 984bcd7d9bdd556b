"""The leagues' application errors, mapped to HTTP in config.exceptions."""

from __future__ import annotations

from rest_framework import status

from config.exceptions import ApplicationError


class LeagueNotFound(ApplicationError):
    """Unknown, or not one of the caller's leagues: the two are not told apart."""

    status_code = status.HTTP_404_NOT_FOUND
    code = "not_found"


class NotLeagueOwner(ApplicationError):
    status_code = status.HTTP_403_FORBIDDEN
    code = "not_owner"


class InvalidLeagueName(ApplicationError):
    status_code = status.HTTP_400_BAD_REQUEST
    code = "invalid"


class TooManyLeagues(ApplicationError):
    status_code = status.HTTP_409_CONFLICT
    code = "league_limit"


class LeagueFull(ApplicationError):
    status_code = status.HTTP_409_CONFLICT
    code = "league_full"


class OwnerCannotLeave(ApplicationError):
    status_code = status.HTTP_409_CONFLICT
    code = "owner_cannot_leave"
