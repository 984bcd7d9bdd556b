"""What "today" is, and seeds that follow from the server secret."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import math
import re
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import timezone


def today() -> dt.date:
    """The challenge day now: the date in DAILY_TIMEZONE (UTC unless configured)."""
    return timezone.now().astimezone(ZoneInfo(settings.DAILY_TIMEZONE)).date()


def is_over(day: dt.date) -> bool:
    """Whether ``day`` has ended: its ranked play is closed and its deal is public."""
    return day < today()


def next_day_starts_at(day: dt.date) -> dt.datetime:
    """When ``day`` is over and the next one begins, as an aware datetime."""
    zone = ZoneInfo(settings.DAILY_TIMEZONE)
    return dt.datetime.combine(day + dt.timedelta(days=1), dt.time(0), tzinfo=zone)


def after_the_day(day: dt.date, now: dt.datetime | None = None) -> dict[str, object]:
    """When what waits for the end of ``day`` is published (its games' reviews, its solution): the
    day's end, and the whole seconds still to go (0 once it is over)."""
    ready_at = next_day_starts_at(day)
    left = (ready_at - (now or timezone.now())).total_seconds()
    return {"ready_at": ready_at, "ready_in_seconds": max(0, math.ceil(left))}


def derive_seed(*, day: dt.date, game: str, attempt: int, secret: str | None = None) -> int:
    """An unsigned 64-bit seed nobody can predict without the server secret (HMAC-SHA256)."""
    key = (secret if secret is not None else settings.DAILY_SECRET).encode()
    message = f"daily-patience:{day.isoformat()}:{game}:{attempt}".encode()
    return int.from_bytes(hmac.new(key, message, hashlib.sha256).digest()[:8], "big")


_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def parse_day(text: str) -> dt.date:
    """A day written YYYY-MM-DD, and nothing else: ``date.fromisoformat`` alone also takes
    ``20261130`` and ``2026-W49-3``. ``ValueError`` otherwise."""
    if not isinstance(text, str) or not _DAY.fullmatch(text):
        raise ValueError(f"{text!r} is not a day written YYYY-MM-DD")
    return dt.date.fromisoformat(text)
