"""The follows' application errors, mapped to HTTP in config.exceptions."""

from __future__ import annotations

from core.errors import BadRequest, Conflict, Forbidden, NotFound


class PlayerToFollowNotFound(NotFound):
    """No such player, a guest, or an account that is closed (banned): the three look the same."""


class CannotFollowSelf(BadRequest):
    code = "follow_self"


class GuestCannotFollow(Forbidden):
    code = "guest_cannot_follow"


class TooManyFollows(Conflict):
    code = "follow_limit"
