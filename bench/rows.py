"""Lemma B's image game of the two-deck suit games (``_core.rows``, an experiment: docs/solver.md,
"Known limits"): proofs of loss only.

    python bench/rows.py oracle GAME [--count 200] [--passes P]
    python bench/rows.py study GAME [--status unsolvable] [--limit 10] [--seconds 10]
    python bench/rows.py seeds GAME [--start 1] [--limit 100] [--seconds 3]

``oracle``: random small positions (the pruning rules' oracle); each verdict against the engine's own
exhaustive search, counted by (truth, image). A won position whose image is lost would be a bug.
``study``/``seeds``: the image search on study deals of a final status, or on consecutive seeds.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import pathlib
import random
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from engine import deal
from solver import _core
from solver.core import Options
from solver.state import SearchState
from solver.tests.test_search_helpers import brute_force, random_endgame

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from image import final_verdicts

STATUS = ("won", "lost", "unknown")


def run(game: str, seeds: list[int], seconds: float, table_mb: float) -> None:
    tally: collections.Counter[str] = collections.Counter()
    for seed in seeds:
        t = time.perf_counter()
        out = _core.rows(SearchState(deal(game, seed)), Options(seconds, -1, table_mb))
        tally[STATUS[out.status]] += 1
        print(seed, STATUS[out.status], out.nodes, f"{time.perf_counter() - t:.2f}s", flush=True)
    print(game, dict(tally))


def oracle(game: str, count: int, passes: int | None) -> None:
    rng = random.Random(f"rows-{game}-{passes}")
    seen: collections.Counter[object] = collections.Counter()
    for _ in range(count):
        d = random_endgame(game, rng, rng.randint(8, 20), rng.choice((0.2, 0.4, 0.6)), columns=rng.choice((2, 3, 4)))
        if passes:
            d = dataclasses.replace(d, rules=dataclasses.replace(d.rules, passes=passes))
        try:
            out = _core.rows(SearchState(d), Options(20, 2_000_000, 64))
        except ValueError:
            seen["refused"] += 1
            continue
        truth = brute_force(d, limit=200_000)
        seen[truth, STATUS[out.status]] += 1
        if truth is True and out.status == 1:
            print("A WON POSITION'S IMAGE IS LOST:", d)
    print(game, passes, dict(seen))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("oracle", "study", "seeds"))
    ap.add_argument("game")
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--passes", type=int, default=None)
    ap.add_argument("--status", default="unsolvable")
    ap.add_argument("--start", type=int, default=1)
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--table-mb", type=float, default=2048.0)
    args = ap.parse_args()
    if args.what == "oracle":
        oracle(args.game, args.count, args.passes)
    elif args.what == "study":
        seeds = sorted(s for s, v in final_verdicts(args.game).items() if v == args.status)
        run(args.game, random.Random(1).sample(seeds, min(args.limit, len(seeds))), args.seconds, args.table_mb)
    else:
        run(args.game, list(range(args.start, args.start + args.limit)), args.seconds, args.table_mb)


if __name__ == "__main__":
    main()
