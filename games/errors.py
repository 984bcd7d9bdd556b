"""The games app's application errors, mapped to HTTP in config.exceptions."""

from __future__ import annotations

from core.errors import BadRequest, Conflict, Forbidden, NotFound

__all__ = ["BadRequest", "Conflict", "DayOver", "IllegalMove", "InvalidDate", "NotFound", "PlayerBanned", "UnknownGame"]


class InvalidDate(BadRequest):
    """A day in a path that is not written YYYY-MM-DD (or is no date)."""

    code = "invalid_date"


class UnknownGame(BadRequest):
    code = "unknown_game"


class IllegalMove(BadRequest):
    """A move the position forbids; details carry SPEC section 6's index, move and reason."""

    code = "illegal_move"


class DayOver(Conflict):
    """A ranked attempt's day has ended: it takes no more moves, hints or last batches."""

    code = "day_over"


class PlayerBanned(Forbidden):
    """A banned player (``models.PlayerBan``) asked for something a ban takes away: a ranked game."""

    code = "player_banned"
