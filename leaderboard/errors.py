"""The leaderboard's application errors (mapped to HTTP by config.exceptions)."""

from __future__ import annotations

from config.exceptions import BadRequest, NotFound


class InvalidDate(BadRequest):
    code = "invalid_date"


class UnknownGame(BadRequest):
    code = "unknown_game"


class BoardNotFound(NotFound):
    pass


class PlayerNotFound(NotFound):
    pass
