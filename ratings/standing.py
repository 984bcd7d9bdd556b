"""Where a result stands among the day's players, as a share: "ahead of 73% of today's players"."""

from __future__ import annotations


def ahead_of_percent(*, rank: int, total: int) -> int | None:
    """The share (whole percent, rounded down) of the *other* players on the board at this moment that
    the result is ranked above; None when nobody else is on it (there is nobody to be ahead of)."""
    if total <= 1 or not 1 <= rank <= total:
        return None
    return (total - rank) * 100 // (total - 1)
