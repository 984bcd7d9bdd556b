"""Values a process holds for a few seconds: answers that are the same for every caller (the day's counts,
``/daily``), computed once per process per few seconds instead of on every request.

Each process holds its own copy, so two processes may answer a few seconds apart; nothing held here may
be something a caller must see at once (a player's own data, a permission, a decision). ``seconds`` of 0
or less computes every time (the tests' default: conftest.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")

_MAX = 1024  # values a process holds; past it the table starts again empty
_held: dict[Hashable, tuple[float, object]] = {}


def held(key: Hashable, seconds: float, compute: Callable[[], T], *, keep: Callable[[T], bool] | None = None) -> T:
    """The value held under ``key`` if it is younger than ``seconds``, else ``compute()``, then held
    (unless ``keep`` says not to hold that value: an answer still changing by the second, such as a
    day whose deals are still being prepared)."""
    if seconds <= 0:
        return compute()
    now = time.monotonic()
    entry = _held.get(key)
    if entry is not None and entry[0] > now:
        return entry[1]  # type: ignore[return-value]
    value = compute()
    if keep is not None and not keep(value):
        return value
    if len(_held) >= _MAX:
        _held.clear()
    _held[key] = (now + seconds, value)
    return value


def forget_held() -> None:
    """Drop every held value (tests start each with none)."""
    _held.clear()
