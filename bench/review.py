"""Game review benchmark: reviews per second on one core, and the time to review a day of N games.

    python bench/review.py [--deals 3] [--logs 4] [--win-share 0.3] [--day 10000] [--games a,b]

For every game, ``--deals`` deals the winnability study (docs/winnability) found winnable are solved
first, untimed: the day's solution, which the service passes to every review as it does. Each deal
then gets ``--logs`` players' logs: a share ``--win-share`` of wins (the solution with a few moves
tried and undone along the way), the rest the benches' playouts (bench/corpus.playout: 100 to 300
legal moves with undos and redeals mixed in, given up where they stop). Each log is reviewed by
``solver.review.review_game`` at the service's budget (config/settings.py REVIEW_*), in this process
pinned to one core. Prints the reviews per second, the mean, median, 95th percentile and longest
review, the outcomes, and what a day of ``--day`` finished games costs one solver core.

Figures depend on the machine and whatever else runs on it: compare runs on one machine only.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.corpus import playout  # noqa: E402
from engine import GAME_IDS  # noqa: E402
from solver import solve  # noqa: E402
from solver.review import Budget, review_game  # noqa: E402

# The service's defaults (config/settings.py REVIEW_PROBE_SECONDS, _NODES, REVIEW_PROBES, REVIEW_SECONDS).
SERVICE_BUDGET = Budget(probe_seconds=0.5, probe_nodes=200_000, probes=20, seconds=6.0)


def winnable_seeds(game: str, count: int) -> list[int]:
    rows = (json.loads(line) for line in (ROOT / "docs" / "winnability" / f"{game}.jsonl").open())
    return [row["seed"] for row in rows if row["status"] == "solved"][:count]


def with_undos(solution: list[str], rng: random.Random) -> list[str]:
    """The solution with a few single moves tried and taken back (a draw, then ``u``)."""
    log: list[str] = []
    for text in solution:
        if rng.random() < 0.03:
            log += ["s", "u"] if text != "s" else []
        log.append(text)
    return log


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=3, help="deals per game (default 3)")
    parser.add_argument("--logs", type=int, default=4, help="players' logs per deal (default 4)")
    parser.add_argument("--win-share", type=float, default=0.3)
    parser.add_argument("--day", type=int, default=10_000, help="finished games in the day priced (default 10,000)")
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--games", default=",".join(GAME_IDS), help="games to review (default: all)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rng = random.Random(args.seed)

    games: list[tuple[str, int, list[str], list[str]]] = []  # game, seed, solution, log
    chosen = [g for g in GAME_IDS if g in args.games.split(",")]
    for game in chosen:
        for seed in winnable_seeds(game, args.deals):
            solution = solve(game, seed, seconds=20).moves
            if not solution:
                continue  # the study's win not found again at this budget: leave the deal out
            for _ in range(args.logs):
                won = rng.random() < args.win_share
                log = with_undos(solution, rng) if won else playout(game, seed, rng.randint(100, 300), rng)
                games.append((game, seed, solution, log))
    print(
        f"{len(games)} games: {len({(g, s) for g, s, _, _ in games})} deals, {args.logs} logs each; "
        f"budget {SERVICE_BUDGET.to_json()}"
    )

    times: list[float] = []
    per_game: dict[str, list[float]] = {g: [] for g in chosen}
    outcomes: Counter[str] = Counter()
    probes = 0
    started = time.perf_counter()
    for game, seed, solution, log in games:
        t0 = time.perf_counter()
        review = review_game(game, seed, log, budget=SERVICE_BUDGET, solution=solution)
        spent = time.perf_counter() - t0
        times.append(spent)
        per_game[game].append(spent)
        outcomes[review.outcome] += 1
        probes += len(review.probes)
    wall = time.perf_counter() - started
    times.sort()
    mean = statistics.mean(times)
    print(
        f"reviews: {len(times) / wall:.2f} per second on one core; mean {mean:.2f} s, median "
        f"{statistics.median(times):.2f} s, p95 {times[int(0.95 * (len(times) - 1))]:.2f} s, "
        f"longest {times[-1]:.2f} s; {probes / len(times):.1f} solves a review"
    )
    print("per game (mean s): " + ", ".join(f"{g} {statistics.mean(v):.2f}" for g, v in per_game.items() if v))
    print(f"outcomes: {dict(outcomes)}")
    hours = args.day * mean / 3600
    print(
        f"a day of {args.day:,} finished games: {hours:.1f} h on one solver core "
        f"({'within' if hours <= 8 else 'NOT within'} a night of 8 h)"
    )


if __name__ == "__main__":
    main()
