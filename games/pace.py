"""Is this the pace of a person? The judge of a ranked game's play, from the server's own clock.

Every stored batch of moves is recorded on its attempt with the server's receipt time
(``Attempt.batches``: [milliseconds since the attempt started, moves stored]). A ranked result whose
receipts no person at the table could have produced is held for a fair-play check (``games.services.fairplay``).
The judge is conservative on purpose: it holds only play faster than the site's own table sends
moves when a machine drives it (the browser tests, figures in README "Fair play"), so no person
playing by hand, in the browser or through the API, is ever held by it.

What is counted: the moves of the final log except draws and redeals (turning the stock is no
decision: an API client may draw a whole stock in one batch) and the finishing run (the trailing moves
onto the foundations, which the table sends by itself, all at once, when only those are left). Two rules:

- **Moves ahead of the clock** (a leaky bucket). Each batch pours its counted moves in, and the
  bucket drains ``RATE`` moves a second; it must never hold more than ``BURST``: a few moves at once
  (a run dragged through empty columns is several moves in one batch), then at most ``RATE`` moves a
  second for as long as one plays. A whole game sent in one batch, at once or after any wait, is far
  above it; so is the site's own table clicked by a machine for more than a few seconds.
- **Batches faster than the table.** With at least ``MIN_BATCHES`` batches, the median gap between
  consecutive receipts must not be below ``MIN_GAP_MS``: one request per move, sent as fast as the
  network allows, is.

And for a won game, over the whole game (:func:`whole_game_verdict`):

- **A person's pace.** The counted moves must not average more than ``PERSON_RATE`` a second over the
  game's play time (the server's, start to finish): a line known in advance and sent under the two
  rules above (``BURST`` at once, then ``RATE`` a second) still wins faster than anybody deciding
  the moves could.
- **The day's winners.** Once a day's challenge has ``DAY_WINNERS`` counted wins, a win in less than
  ``DAY_FRACTION`` of their median play time is held too.

Pure: no Django. The numbers are module constants, documented in README.
"""

from __future__ import annotations

import datetime as dt
import re
import statistics
from collections.abc import Sequence

BURST = 30  # moves at once: above the table's largest batch (a run card by card through 11 empty columns: 23)
RATE = 6.0  # moves per second, on average from the start
MIN_BATCHES = 20  # batches before their cadence is judged
MIN_GAP_MS = 50  # the median gap between batches below which the table never sends them
PERSON_RATE = 2.0  # counted moves per second over a whole won game: a quick person makes one or two
DAY_WINNERS = 20  # counted wins of the day before their median play time is a yardstick
DAY_FRACTION = 0.1  # a win faster than this share of the day's median winning time is held

_TO_FOUNDATION = re.compile(r"(?:w|t\d+)f\d+")
_NO_DECISION = frozenset({"s", "r"})


def batch_receipt(*, started_at: dt.datetime, now: dt.datetime, count: int) -> list[int]:
    """A stored batch as the judge reads it: [ms since the attempt started, by the server's clock at
    receipt, moves stored]. Written by the one append of the log (``games.services.moves.log_append``)."""
    return [max(0, (now - started_at) // dt.timedelta(milliseconds=1)), count]


def finishing_run_start(log: Sequence[str]) -> int:
    """The index where the log's trailing run of moves onto the foundations begins (its length when
    the log does not end with one)."""
    start = len(log)
    while start > 0 and _TO_FOUNDATION.fullmatch(log[start - 1]):
        start -= 1
    return start


def counted_moves(log: Sequence[str]) -> int:
    """The moves of a log the judge counts: draws, redeals and the finishing run aside."""
    return sum(1 for move in log[: finishing_run_start(log)] if move not in _NO_DECISION)


def whole_game_verdict(*, log: Sequence[str], play_time_ms: int, day_median_ms: int | None = None) -> str | None:
    """Why this won game, over its whole play time, went faster than a person's (a sentence), or None.

    ``day_median_ms`` is the median play time of the day's counted wins of the same challenge, given
    once there are ``DAY_WINNERS`` of them (None before).
    """
    counted = counted_moves(log)
    seconds = max(0, play_time_ms) / 1000
    if counted > PERSON_RATE * seconds:
        return (
            f"{counted} moves (draws and the finishing run aside) in {seconds:.2f} s: "
            f"more than a person's {PERSON_RATE:g} a second over a whole game"
        )
    if day_median_ms is not None and play_time_ms < DAY_FRACTION * day_median_ms:
        return (
            f"won in {seconds:.2f} s, under {DAY_FRACTION:.0%} of the day's median winning time "
            f"({day_median_ms / 1000:.1f} s)"
        )
    return None


def pace_verdict(*, log: Sequence[str], batches: Sequence[Sequence[int]]) -> str | None:
    """Why this play is faster than a person's (a sentence for the player and for staff), or None.

    ``batches`` are the attempt's receipts in order. An attempt without receipts (stored before they
    were recorded) or whose receipts do not add up to its log is not judged: there is nothing sound
    to judge it by.
    """
    if not batches or sum(int(b[1]) for b in batches) != len(log):
        return None
    counted_end = finishing_run_start(log)
    stored = 0
    level = 0.0  # counted moves in the bucket
    last_ms = 0
    times: list[int] = []
    for at_ms, count in batches:
        decisions = sum(1 for move in log[stored : min(stored + count, counted_end)] if move not in _NO_DECISION)
        stored += count
        if decisions == 0:
            continue
        times.append(at_ms)
        level = max(0.0, level - RATE * max(0, at_ms - last_ms) / 1000) + decisions
        last_ms = max(last_ms, at_ms)
        if level > BURST:
            return (
                f"{at_ms / 1000:.2f} s after the start, {level:.0f} moves (draws aside) had arrived "
                f"faster than a person plays them (at most {BURST} at once, then {RATE:g} a second)"
            )
    if len(times) >= MIN_BATCHES:
        gaps = [b - a for a, b in zip([0, *times], times, strict=False)]
        median = statistics.median(gaps)
        if median < MIN_GAP_MS:
            return (
                f"{len(times)} batches of moves arrived a median {median:.0f} ms apart: "
                f"faster than the table sends them (never under {MIN_GAP_MS} ms)"
            )
    return None
