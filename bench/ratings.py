"""Ratings benchmark: the time to rate one game's day of N players, per OpenSkill model, on one core.

    .venv/bin/python bench/ratings.py [--players 500,1000,2000,10000,50000] [--full-max 10000]
    .venv/bin/python bench/ratings.py --service 10000     # and the service on PostgreSQL, whole


Each field is a day's match as ratings.services builds it: every player one team, ranked 1..N with a
tie every tenth place, from ratings spread as after some days (mu 15..35, sigma 2..8, a fixed draw).
Prints the seconds of ``model.rate`` for the model the service uses (Weng-Lin Bradley-Terry with
partial pairing, ``BradleyTerryPart``) and for Plackett-Luce, the library's full many-player model
(quadratic in N: it is run only up to ``--full-max`` players, and beyond that the printed figure is the
quadratic extrapolation of the largest field it ran, marked ~).

``--service N`` then times ``ratings.services.rating_day_rate`` whole, on PostgreSQL: it creates the
database ``dailypatience_bench_ratings`` on 127.0.0.1 (dropped first if it exists, and at the end),
migrates it, stores a past day's klondike with N ranked results (rows made directly), and rates the
day twice over: a first day (every rating new) and a second one (every rating read, locked, updated).

Figures depend on the machine and whatever else runs on it: compare runs on one machine only.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from openskill.models import BradleyTerryPart, PlackettLuce


def field(model: object, n: int) -> tuple[list[list[object]], list[float]]:
    draw = random.Random(n)
    teams = [[model.rating(mu=draw.uniform(15, 35), sigma=draw.uniform(2, 8))] for _ in range(n)]  # type: ignore[attr-defined]
    ranks = [float(i - (i % 10 == 1)) for i in range(1, n + 1)]  # place 11 ties with 10, 21 with 20...
    return teams, ranks


def seconds(model: object, n: int) -> float:
    teams, ranks = field(model, n)
    start = time.perf_counter()
    model.rate(teams, ranks=ranks)  # type: ignore[attr-defined]
    return time.perf_counter() - start


ROOT = Path(__file__).resolve().parent.parent
DB_NAME = "dailypatience_bench_ratings"
PG = "postgres://postgres@127.0.0.1:5432"


def service(n: int) -> None:
    """Rate two days of n players through the service, on a fresh PostgreSQL database."""
    subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", DB_NAME], check=True)
    subprocess.run(["createdb", "-h", "127.0.0.1", "-U", "postgres", DB_NAME], check=True)
    try:
        os.environ.update(DATABASE_URL=f"{PG}/{DB_NAME}", DJANGO_DEBUG="true", DJANGO_SETTINGS_MODULE="config.settings")
        os.environ.pop("REDIS_URL", None)
        sys.path.insert(0, str(ROOT))
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from django.core.management import call_command
        from django.utils import timezone

        from games import days
        from games.models import Attempt, Challenge, Result, Submission
        from ratings.services import rating_day_rate

        call_command("migrate", verbosity=0)
        users = get_user_model().objects.bulk_create(
            [get_user_model()(username=f"bench{i}", password="!") for i in range(n)], batch_size=5000
        )
        draw = random.Random(n)
        for back in (2, 1):
            day = days.today() - dt.timedelta(days=back)
            challenge = Challenge.objects.create(date=day, game="klondike", seed=back, status="ready", difficulty=2)
            now = timezone.now()
            attempts = Attempt.objects.bulk_create(
                [Attempt(player=u, challenge=challenge, ranked=True, finished_at=now) for u in users], batch_size=5000
            )
            subs = Submission.objects.bulk_create(
                [Submission(attempt=a, status="valid", validated_at=now) for a in attempts], batch_size=5000
            )
            Result.objects.bulk_create(
                [
                    Result(
                        submission=s,
                        player=u,
                        challenge=challenge,
                        ranked=True,
                        won=(won := draw.random() < 0.4),
                        score=draw.randrange(50, 700),
                        moves=draw.randrange(80, 300),
                        foundation_cards=52 if won else 20,
                        play_time_ms=draw.randrange(60_000, 900_000),
                        finished_at=now,
                    )
                    for s, u in zip(subs, users, strict=True)
                ],
                batch_size=5000,
            )
            start = time.perf_counter()
            rating_day_rate(game="klondike", day=day, now=now + dt.timedelta(days=3))
            what = "first day (ratings new)" if back == 2 else "second day (ratings updated)"
            print(f"service, {n} players, {what}: {time.perf_counter() - start:.2f} s")
        from django.db import connections

        connections.close_all()
    finally:
        subprocess.run(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--if-exists", DB_NAME], check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", default="500,1000,2000,10000,50000")
    parser.add_argument("--full-max", type=int, default=10000)
    parser.add_argument("--service", type=int, default=0, help="also rate a day of this many players, whole")
    args = parser.parse_args()
    sizes = [int(x) for x in args.players.split(",")]
    print(f"{'players':>8} {'BradleyTerryPart s':>19} {'PlackettLuce s':>15}")
    last_full: tuple[int, float] | None = None
    for n in sizes:
        part = seconds(BradleyTerryPart(), n)
        if n <= args.full_max:
            full = seconds(PlackettLuce(), n)
            last_full = (n, full)
            full_text = f"{full:.3f}"
        elif last_full is not None:
            full_text = f"~{last_full[1] * (n / last_full[0]) ** 2:.0f}"
        else:
            full_text = "-"
        print(f"{n:>8} {part:>19.3f} {full_text:>15}")
    if args.service:
        service(args.service)


if __name__ == "__main__":
    main()
