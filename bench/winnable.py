"""The still-winnable light's benchmark: how long the solver takes to answer one position of a past game.

    python bench/winnable.py [--deals 3] [--seconds 0.5] [--nodes 200000] [--http]

For every game, ``--deals`` deals the winnability study (docs/winnability) found winnable are solved
first, untimed. Each deal gives two positions a player might ask about: one on a winning track (the
solution cut at a random point between 10% and 90%) and one of a player wandering (a playout of
bench/corpus.playout, 100 to 300 legal moves with undos and redeals, cut at a random point). Each position
is answered as the task ``solver_worker.winnable_position`` (reviews.tasks) answers it, timed from the stored log:
replay the log, the position's cache key, ``reviews.winnable.position_verdict`` at the budget
(the service's defaults, config/settings.py WINNABLE_SECONDS and WINNABLE_NODES), in this process pinned to
one core. Prints the median, 95th percentile and longest answer, and the verdicts. An answer in the cache
costs none of this (a cache read).

``--http`` also asks ``GET /api/v1/attempts/{id}/winnable`` for each position through Django's whole stack
(a test database, SQLite in memory; tasks in process, as on the embedded defaults): the first ask (solved in
the request there; with a broker it is a cache read and a task sent) and a second one (from the cache).

Figures depend on the machine and whatever else runs on it: compare runs on one machine only.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.debug_settings")  # a laptop benchmark: debug asked for

import django  # noqa: E402

django.setup()

from bench.corpus import playout  # noqa: E402
from engine import GAME_IDS, Move, State, deal  # noqa: E402
from reviews.winnable import position_key, position_verdict  # noqa: E402
from solver import solve  # noqa: E402


def winnable_seeds(game: str, count: int) -> list[int]:
    rows = (json.loads(line) for line in (ROOT / "docs" / "winnability" / f"{game}.jsonl").open())
    return [row["seed"] for row in rows if row["status"] == "solved"][:count]


def answer(game: str, seed: int, log: list[str], seconds: float, nodes: int) -> tuple[str, float, int]:
    start = time.perf_counter()
    state = State(deal(game, seed))
    for text in log:
        state.play(Move.parse(text))
    position_key(game=game, state=state)
    verdict = position_verdict(state=state, seconds=seconds, nodes=nodes)
    return verdict.state, time.perf_counter() - start, verdict.nodes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=3, help="deals per game (default 3)")
    parser.add_argument("--seconds", type=float, default=None, help="the budget (default WINNABLE_SECONDS)")
    parser.add_argument("--nodes", type=int, default=None, help="the node cap (default WINNABLE_NODES)")
    parser.add_argument("--seed", type=int, default=28)
    parser.add_argument("--http", action="store_true", help="also time the API's answers (see above)")
    args = parser.parse_args()
    from django.conf import settings

    seconds = settings.WINNABLE_SECONDS if args.seconds is None else args.seconds
    nodes = settings.WINNABLE_NODES if args.nodes is None else args.nodes
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rng = random.Random(args.seed)
    positions: list[tuple[str, str, int, list[str]]] = []
    for game in GAME_IDS:
        for seed in winnable_seeds(game, args.deals):
            solution = solve(game, seed, seconds=20).moves or []
            if solution:
                cut = rng.randint(len(solution) // 10, len(solution) * 9 // 10)
                positions.append(("winning track", game, seed, solution[:cut]))
            wander = playout(game, seed, rng.randint(100, 300), rng)
            positions.append(("wandering", game, seed, wander[: rng.randint(len(wander) // 10, len(wander))]))
    times: list[float] = []
    verdicts: Counter[tuple[str, str]] = Counter()
    for kind, game, seed, log in positions:
        state, took, searched = answer(game, seed, log, seconds, nodes)
        times.append(took)
        verdicts[(kind, state)] += 1
        print(f"{game:15} {seed:>20} {kind:13} {len(log):>4} moves  {state:9} {searched:>8} nodes  {took:6.3f} s")
    times.sort()
    p95 = times[max(0, round(0.95 * len(times)) - 1)]
    print(
        f"\n{len(times)} positions at {seconds} s / {nodes:,} nodes: median {statistics.median(times):.3f} s, "
        f"95th percentile {p95:.3f} s, longest {times[-1]:.3f} s, mean {statistics.mean(times):.3f} s"
    )
    for (kind, state), n in sorted(verdicts.items()):
        print(f"  {kind:13} {state:9} {n}")
    if args.http:
        http(positions)


def summary(times: list[float]) -> str:
    times = sorted(times)
    p95 = times[max(0, round(0.95 * len(times)) - 1)]
    return f"median {statistics.median(times):.3f} s, 95th percentile {p95:.3f} s, longest {times[-1]:.3f} s"


def http(positions: list[tuple[str, str, int, list[str]]]) -> None:
    import datetime as dt

    from django.db import connection
    from django.test.utils import setup_test_environment
    from rest_framework.test import APIClient
    from rest_framework.throttling import SimpleRateThrottle

    from games import services
    from games.models import Challenge
    from games.tests.factories import make_user, token_for

    SimpleRateThrottle.allow_request = lambda self, request, view: True  # type: ignore[method-assign]
    logging.getLogger("celery").setLevel(logging.WARNING)  # a line per task otherwise
    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)
    first: list[float] = []
    again: list[float] = []
    for i, (_kind, game, seed, log) in enumerate(positions):
        challenge = Challenge.objects.create(
            date=dt.date(2020, 1, 1) + dt.timedelta(days=i), game=game, seed=seed, status=Challenge.Status.READY
        )
        player = make_user()
        attempt = services.attempt_start(player=player, challenge=challenge)
        services.attempt_append_moves(attempt_id=attempt.pk, player=player, start=0, moves=log)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player)}")
        for times in (first, again):
            start = time.perf_counter()
            response = client.get(f"/api/v1/attempts/{attempt.pk}/winnable")
            times.append(time.perf_counter() - start)
            assert response.status_code == 200, response.content
    print(f"\nthrough the API, first ask (solved in the request, tasks in process): {summary(first)}")
    print(f"through the API, asked again (from the cache): {summary(again)}")


if __name__ == "__main__":
    main()
