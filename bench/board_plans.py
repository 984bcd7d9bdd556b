"""The query plans of a board's reads at 10,000 and 100,000 players: EXPLAIN ANALYZE of every statement.

    .venv/bin/python bench/board_plans.py [--players 10000,100000] [--guests 0.05] [--redis-db 12]

For each size, in a database of its own (``dailypatience_plans_<n>``, dropped first and at the end unless
``--keep``): migrates, seeds today's klondike with that many ranked results (bench/api.py's seeding, a
share of the players made guests: their results count but are on no public board), builds its Redis
board, then runs each read of the board endpoint as the service runs it and captures its statements:

- ``page (Redis)``: a page of 50 in the middle of the board, the ids from Redis, the rows from PostgreSQL;
- ``around (Redis)``: a player's neighbourhood (11 rows by id);
- ``page (database)``, ``rank (database)``: the fallback when Redis is down (count, window, rank);
- ``links``: the attempts of a page's results (a day that is over).

Each statement is run once, then under ``EXPLAIN (ANALYZE, BUFFERS)``, twice: on the statistics the seeding
left (a fresh database: none, unless autovacuum came first) and after ``ANALYZE``. Prints the execution time
of each and its plan's outline; the target is at most 1 ms of PostgreSQL for a Redis page whatever the
number of players (README's benchmark table). Talks only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.api import BENCH_ENV, PG, admin_sql, log, redis_cleanup, seed_board, setup_django  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", default="10000,100000", help="board sizes, comma-separated")
    parser.add_argument("--guests", type=float, default=0.05, help="share of the players who are guests")
    parser.add_argument("--redis-db", type=int, default=12)
    parser.add_argument("--keep", action="store_true", help="keep the databases")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # (one size, in a process of its own)
    args = parser.parse_args()
    if args.one is None:
        for size in [int(s) for s in args.players.split(",") if s]:
            command = [sys.executable, __file__, "--one", str(size), "--guests", str(args.guests)]
            command += ["--redis-db", str(args.redis_db)] + (["--keep"] if args.keep else [])
            subprocess.run(command, cwd=ROOT, check=True)
        return
    name = f"dailypatience_plans_{args.one}"
    run = uuid.uuid4().hex[:8]
    env = {
        **os.environ,
        **BENCH_ENV,
        "DATABASE_URL": f"{PG}/{name}",
        "REDIS_URL": f"redis://127.0.0.1:6379/{args.redis_db}",
        "CACHE_KEY_PREFIX": f"bench-plans-{run}",
        "LEADERBOARD_REDIS_PREFIX": f"bench-plans-{run}",
        "REDIS_SOCKET_TIMEOUT": "30",  # building a board of 100,000 in one MULTI takes longer than 0.5 s
    }
    admin_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    admin_sql(f"CREATE DATABASE {name}")
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"], cwd=ROOT, env=env, check=True)
        with redis_cleanup(env["REDIS_URL"]):
            analyse(args.one, args.guests, env)
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            admin_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def analyse(players: int, guests: float, env: dict[str, str]) -> None:
    setup_django(env)
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from games.models import Guest, Result
    from leaderboard.selectors import boards

    rng = random.Random(20261207)
    challenge = seed_board(players, rng)
    player_ids = list(Result.objects.filter(challenge=challenge).values_list("player_id", flat=True))
    Guest.objects.bulk_create(Guest(user_id=p) for p in rng.sample(player_ids, int(len(player_ids) * guests)))
    # (the guests' results are still on the Redis board built above: rebuild it as the service would)
    from leaderboard.services import leaderboard_rebuild

    leaderboard_rebuild(challenge_id=challenge.pk)
    middle = players // 2
    page = boards.leaderboard_page(challenge=challenge, offset=middle, limit=50, clean=True)
    someone = page.entries[25].player_id
    reads: dict[str, Callable[[], object]] = {
        "page (Redis)": lambda: boards.leaderboard_page(challenge=challenge, offset=middle, limit=50, clean=True),
        "around (Redis)": lambda: boards.leaderboard_around(challenge=challenge, player=someone, clean=True),
        "page (database)": lambda: boards._db_page(challenge=challenge, offset=middle, limit=50, clean=True),
        "rank (database)": lambda: boards._db_rank(challenge=challenge, player_id=someone, clean=True),
        "links": lambda: boards.result_attempts(result_ids=[e.result_id for e in page.entries]),
    }
    statements: list[tuple[str, str]] = []
    for label, read in reads.items():
        with CaptureQueriesContext(connection) as captured:
            read()
        selects = [q["sql"] for q in captured.captured_queries if q["sql"].lstrip().upper().startswith("SELECT")]
        statements += [(label, sql) for sql in selects]
    log(f"\n{players} players ({int(players * guests)} guests), {len(statements)} statements")
    for phase in ("statistics as seeded", "after ANALYZE"):
        if phase == "after ANALYZE":
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
        log(f"-- {phase}")
        for label, sql in statements:
            with connection.cursor() as cursor:
                cursor.execute(sql)  # once first: the first reader of freshly written rows sets their hint bits
                cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) {sql}")
                plan = [row[0] for row in cursor.fetchall()]
            execution = next((line for line in plan if line.startswith("Execution Time")), "")
            scans = sorted({line.strip().split(" on ")[1].split()[0] for line in plan if "Seq Scan on" in line})
            outline = " > ".join(line.strip().split("  (")[0].lstrip("-> ") for line in plan[:4])
            log(f"{label:<17} {execution:<28} seq scans: {', '.join(scans) or 'none':<24} {outline[:150]}")


if __name__ == "__main__":
    main()
