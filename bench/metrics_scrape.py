"""What a /metrics scrape costs, part by part, on a database holding many results.

    .venv/bin/python bench/metrics_scrape.py [--results 100000] [--scrapes 30] [--redis-db 15] [--keep]

1. Creates the database ``dailypatience_metrics_bench`` (dropped first), migrates it and seeds today's
   klondike with ``--results`` ranked results (bench/api.py's seeding), 1 % of them held for a fair-play
   check (half with an open fair-play case, half orphaned), then ANALYZE.
2. Computes the service's figures (config.metrics.ServiceCollector) ``--scrapes`` times in this process,
   each part timed on its own: the broker's one Redis pipeline (queues, heartbeats, task counters), the
   submissions, the held results, the challenges. Prints each part's median and the whole scrape's.
3. Drops the database unless ``--keep``; deletes the Redis keys it created (nothing is flushed).

Figures depend on the machine and on whatever else runs on it: compare runs on one machine only.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import bench.api as api  # noqa: E402

DB = "dailypatience_metrics_bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=100_000)
    parser.add_argument("--scrapes", type=int, default=30)
    parser.add_argument("--redis-db", type=int, default=15)
    parser.add_argument("--keep", action="store_true", help="keep the database")
    args = parser.parse_args()

    redis_url = f"redis://127.0.0.1:6379/{args.redis_db}"
    env = {
        **api.BENCH_ENV,
        "DATABASE_URL": f"{api.PG}/{DB}",
        "REDIS_URL": redis_url,
        "CACHE_KEY_PREFIX": "bench-metrics",
        "METRICS_TOKEN": "bench",
        "REDIS_SOCKET_TIMEOUT": "10",  # building a board of this many results at once
    }
    api.DB_NAME = DB  # create_database's name (bench/api.py)
    os.environ.update(env)
    api.create_database(env)
    try:
        with api.redis_cleanup(redis_url):
            api.setup_django(env)
            measure(args)
    finally:
        if not args.keep:
            api.admin_sql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")


def measure(args: argparse.Namespace) -> None:
    from django.db import connection

    from config import monitoring
    from config.metrics import ServiceCollector
    from games.models import FairPlayCase, Result

    challenge = api.seed_board(args.results, random.Random(52))
    held = list(
        Result.objects.filter(challenge=challenge).order_by("?").values_list("pk", flat=True)[: args.results // 100]
    )
    Result.objects.filter(pk__in=held).update(held=True)
    FairPlayCase.objects.bulk_create(
        FairPlayCase(result_id=pk, kind=FairPlayCase.Kind.PACE, holds=True, reason="bench")
        for pk in held[: len(held) // 2]
    )
    for name in ("solver_worker.prepare_challenge", "games.validate_submission", "games.close_expired_attempts"):
        monitoring.record_task(task=name, state="SUCCESS", seconds=0.05)
    monitoring.stamp_beat()
    monitoring.stamp_queues(["validation", "solver", "winnable", "prepare"])
    with connection.cursor() as cursor:
        # Made over the last 24 hours and validated a second later, as in service (bulk_create stamped them
        # all now, or at their finish later today: every one "recent" for the validation latency's window).
        cursor.execute(
            "UPDATE games_submission SET created_at = now() - random() * interval '1 day', validated_at = NULL"
        )
        cursor.execute("UPDATE games_submission SET validated_at = created_at + interval '1 second'")
        cursor.execute("ANALYZE")
    api.log(f"{len(held)} results held ({len(held) - len(held) // 2} of them orphaned)")

    collector = ServiceCollector()
    parts = {
        "broker (Redis pipeline)": collector._broker,
        "submissions": collector._submissions,
        "held results": collector._held,
        "challenges": collector._challenges,
        "whole scrape": collector.collect,
    }
    for label, part in parts.items():
        list(part())  # warm: connections, plans
        times = []
        for _ in range(args.scrapes):
            started = time.perf_counter()
            list(part())
            times.append(time.perf_counter() - started)
        api.log(f"{label:26} median {statistics.median(times) * 1000:7.2f} ms   max {max(times) * 1000:7.2f} ms")


if __name__ == "__main__":
    main()
