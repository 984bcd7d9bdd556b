"""The leaderboard's application errors (mapped to HTTP by config.exceptions)."""

from __future__ import annotations

from core.errors import NotFound
from games.errors import InvalidDate, UnknownGame

__all__ = ["BoardNotFound", "InvalidDate", "PlayerNotFound", "UnknownGame"]


class BoardNotFound(NotFound):
    pass


class PlayerNotFound(NotFound):
    pass
