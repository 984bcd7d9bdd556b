"""Replay benchmark: a fixed corpus of engine-made logs replayed in one process on one core.

    python bench/replay.py [--logs 1000] [--rounds 5]

Each log is replayed from its deal (the shuffle included, no deal cache), as the
validation worker does. Prints moves per second and logs per second for the best
and the median round. Target (issue 2): at least 500,000 moves per second.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.corpus import corpus
from engine import replay
from engine.deal import _deal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logs", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core

    started = time.perf_counter()
    logs = corpus(args.logs)
    made = time.perf_counter() - started
    lengths = [log for _, _, log in logs]
    total = sum(map(len, lengths))
    kinds = Counter(
        "draw" if m == "s" else "undo" if m == "u" else "redeal" if m == "r" else "other"
        for _, _, log in logs
        for m in log
    )
    print(
        f"corpus: {len(logs)} logs, {total} moves ({dict(kinds)}), "
        f"{min(map(len, lengths))}..{max(map(len, lengths))} moves a log, made in {made:.1f} s"
    )

    rates = []
    for _ in range(args.rounds):
        _deal.cache_clear()
        t0 = time.perf_counter()
        for game, seed, log in logs:
            if replay(game, seed, log).error is not None:
                raise SystemExit(f"corpus log for {game} {seed} did not replay")
        rates.append(time.perf_counter() - t0)
    best, median = min(rates), statistics.median(rates)
    for label, seconds in (("best", best), ("median", median)):
        print(
            f"{label:>6}: {total / seconds:12,.0f} moves/s  {len(logs) / seconds:9,.0f} logs/s  "
            f"({seconds:.3f} s a round)"
        )
    print(f"target: 500,000 moves/s -> {'met' if total / median >= 500_000 else 'NOT met'}")


if __name__ == "__main__":
    main()
