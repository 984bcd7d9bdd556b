"""The leagues' application errors, mapped to HTTP in config.exceptions."""

from __future__ import annotations

from core.errors import BadRequest, Conflict, Forbidden, NotFound


class LeagueNotFound(NotFound):
    """Unknown, or not one of the caller's leagues: the two are not told apart."""


class NotLeagueOwner(Forbidden):
    code = "not_owner"


class InvalidLeagueName(BadRequest):
    pass


class TooManyLeagues(Conflict):
    code = "league_limit"


class LeagueFull(Conflict):
    code = "league_full"


class OwnerCannotLeave(Conflict):
    code = "owner_cannot_leave"
