"""Replay API benchmark: what ``GET /attempts/{id}/replay`` costs the server for a 5,000-move log.

    .venv/bin/python bench/replay_api.py [--moves 5000] [--rounds 5]

In one process, through Django's test client (the whole request: middleware, authentication, view,
JSON rendering), on a throwaway SQLite database and the in-process cache (REDIS_URL unset), with
throttling off. A legal random playout of ``--moves`` moves of klondike seed 2 is stored as one
practice attempt, then, each round with the cache cleared first:

- ``page 0, cold``: the deal and the first 100 moves;
- ``next page``: page 1, from the position page 0 left in the cache;
- ``last page, cold``: the cache cleared again, the last page: a replay of the whole log from the deal;
- ``cached page``: the last page again;
- ``whole log (before)``: what the endpoint did before it was paged (every frame of the log,
  through its serializer), for comparison; and ``GET /api/v1/health``, the cheapest request, for scale.

``--review-win`` times ``GET /attempts/{id}/review/win?page=N`` the same way instead: a review row
whose line is the playout's first ``--moves`` - 100 moves and whose win is the last 100 (the frames cost
the same whether or not the line wins), on a finished game of yesterday.

Prints the best and the median round's server CPU time (``time.process_time``) per request and the
answer's size. Target (issue 27): a few ms of CPU and a bounded answer per request.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--review-win", action="store_true", help="time .../review/win instead of .../replay")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="dp-replay-bench-")
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.debug_settings",  # in process, on SQLite: debug asked for
            "DATABASE_URL": f"sqlite:///{workdir}/bench.sqlite3",
            "API_THROTTLE": "false",
            "REDIS_URL": "",
        }
    )
    import django

    django.setup()
    from django.core.cache import cache
    from django.core.management import call_command
    from django.test import Client

    from bench.corpus import playout
    from games import days, selectors
    from games.apis import ReplayOutput
    from games.models import Attempt
    from games.tests.factories import make_challenge, make_user, token_for

    call_command("migrate", "--no-input", verbosity=0)
    challenge = make_challenge(game="klondike", seed=2, day=days.today())
    user = make_user("bench")
    log = playout("klondike", 2, args.moves, random.Random(5))
    attempt = Attempt.objects.create(player=user, challenge=challenge, ranked=False, moves=log)
    client = Client(HTTP_HOST="localhost", HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    last = selectors.attempt_replay_page(attempt=attempt, page=0)["pages"] - 1
    path = f"/api/v1/attempts/{attempt.pk}/replay"
    if args.review_win:
        import datetime as dt

        from django.utils import timezone

        from reviews.models import GameReview

        yesterday = make_challenge(game="klondike", seed=2, day=days.today() - dt.timedelta(days=1))
        attempt = Attempt.objects.create(
            player=user, challenge=yesterday, ranked=True, moves=log, finished_at=timezone.now()
        )
        start = max(0, len(log) - 100)
        GameReview.objects.create(
            attempt=attempt,
            status=GameReview.Status.DONE,
            data={"line": log[:start], "win": log[start:], "win_from": start},
        )
        path = f"/api/v1/attempts/{attempt.pk}/review/win"

    def timed(page: int) -> tuple[float, int]:
        started = time.process_time()
        answer = client.get(f"{path}?page={page}")
        assert answer.status_code == 200, answer.content
        return (time.process_time() - started) * 1000, len(answer.content)

    def health() -> tuple[float, int]:
        started = time.process_time()
        answer = client.get("/api/v1/health")
        return (time.process_time() - started) * 1000, len(answer.content)

    def whole() -> tuple[float, int]:
        from rest_framework.renderers import JSONRenderer

        started = time.process_time()
        frames = selectors.log_frames(game="klondike", seed=2, moves=log)
        body = JSONRenderer().render(ReplayOutput({"moves": log, "frames": frames}).data)
        return (time.process_time() - started) * 1000, len(body)

    timed(0)  # warm up: imports, the deal's cache, the first query
    rows: dict[str, list[tuple[float, int]]] = {}
    for _ in range(args.rounds):
        cache.clear()
        rows.setdefault("page 0, cold", []).append(timed(0))
        rows.setdefault("next page", []).append(timed(1))
        cache.clear()
        rows.setdefault("last page, cold (whole log replayed)", []).append(timed(last))
        rows.setdefault("cached page", []).append(timed(last))
        rows.setdefault("whole log (before)", []).append(whole())
        rows.setdefault("GET /api/v1/health (for scale)", []).append(health())

    endpoint = "review/win" if args.review_win else "replay"
    print(
        f"GET /attempts/{{id}}/{endpoint} of a {len(log)}-move log ({last + 1} pages of "
        f"{selectors.REPLAY_PAGE_MOVES} moves), {args.rounds} rounds, CPU ms per request:"
    )
    for name, values in rows.items():
        cpu = sorted(v[0] for v in values)
        print(
            f"  {name:40s} best {cpu[0]:7.2f} ms  median {statistics.median(cpu):7.2f} ms  "
            f"answer {values[0][1] / 1024:7.1f} KiB"
        )


if __name__ == "__main__":
    main()
