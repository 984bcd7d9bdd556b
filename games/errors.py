"""The games app's application errors, mapped to HTTP in config.exceptions."""

from __future__ import annotations

from config.exceptions import BadRequest, Conflict, NotFound

__all__ = ["BadRequest", "Conflict", "DayOver", "IllegalMove", "NotFound"]


class IllegalMove(BadRequest):
    """A move the position forbids; details carry SPEC section 6's index, move and reason."""

    code = "illegal_move"


class DayOver(Conflict):
    """A ranked attempt's day has ended: it takes no more moves, hints or last batches."""

    code = "day_over"
