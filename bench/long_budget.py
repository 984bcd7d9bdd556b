"""How fair would the daily draws be if an undecided seed got a long budget before it is skipped?

    python bench/long_budget.py [--games josephine,forty-thieves] [--days 30] [--first 2027-01-01]
                                [--seconds 10] [--long 300] [--rate N] [--max-seeds 20]
                                [--secret S] [--out FILE.jsonl]

A day's deal is the first seed derived from the secret (``games.days.derive_seed``) that the solver
proves winnable (``solver_worker.services.challenge_prepare``). For every day of the period and every
game this replays that draw: each seed gets the ordinary budget (``--seconds``); a seed left undecided
gets the long one (``--long``) as ``SOLVER_LONG_SECONDS`` gives it when a day is prepared far enough
ahead. One pass gives both policies: without the long budget a day's draw goes on past every
undecided seed; with it the draw stops at the first undecided seed the long solve wins.

Budgets are node budgets (nodes a second, ``RATES`` or ``--rate``, times the seconds; the wall-clock
limit is set ten times wider), so the figures do not move with the machine's load. Per game it prints the seeds
drawn and the seeds skipped as proven lost and as undecided, under each policy, and how many long
solves ran and what they decided. ``--out`` appends one JSON line per seed solved.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import GAME_IDS
from solver import solve

# Nodes a second of the compiled core on the study's undecided deals of these games (CPU time of a 10 s
# solve, one core); other games take DEFAULT_RATE.
RATES = {"josephine": 2_800_000, "forty-thieves": 1_700_000}
DEFAULT_RATE = 2_500_000
DEV_SECRET = "dev-only-daily-secret-do-not-use-in-production"  # config/settings.py's development secret


def derive(*, secret: str, day: dt.date, game: str, attempt: int) -> int:
    """``games.days.derive_seed`` without Django's settings (the secret is given)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.debug_settings")
    from games.days import derive_seed

    return derive_seed(day=day, game=game, attempt=attempt, secret=secret)


def budget(seconds: float, rate: int) -> dict[str, float | int]:
    return {"seconds": seconds * 10, "max_nodes": max(1, int(seconds * rate))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="josephine,forty-thieves")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--first", default="2027-01-01")
    parser.add_argument("--seconds", type=float, default=10.0, help="the ordinary budget (SOLVER_SECONDS)")
    parser.add_argument("--long", type=float, default=300.0, help="the long budget (SOLVER_LONG_SECONDS)")
    parser.add_argument(
        "--rate", type=int, default=None, help="nodes a second for every game (default: the measured RATES)"
    )
    parser.add_argument("--max-seeds", type=int, default=20)
    parser.add_argument("--secret", default=DEV_SECRET)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    unknown_games = [g for g in games if g not in GAME_IDS]
    if unknown_games:
        print(f"unknown game(s) {', '.join(unknown_games)}: expected some of {', '.join(GAME_IDS)}", file=sys.stderr)
        return 2
    first = dt.date.fromisoformat(args.first)
    out = open(args.out, "a") if args.out else None  # noqa: SIM115 (closed at the end of the run)
    print(
        f"{args.days} days from {first}, {args.seconds:g} s then {args.long:g} s for an undecided seed, "
        f"as node budgets at {args.rate or 'the measured'} nodes/s"
    )
    header = (
        f"{'game':<16}{'policy':>8}{'drawn':>7}{'lost':>6}{'unknown':>9}{'unknown share':>15}"
        f"{'long solves':>13}{'won':>5}{'lost':>6}{'cpu s':>8}"
    )
    print(header)
    print("-" * len(header))
    for game in games:
        rate = args.rate or RATES.get(game, DEFAULT_RATE)
        plain = {"drawn": 0, "lost": 0, "unknown": 0}
        longer = {"drawn": 0, "lost": 0, "unknown": 0}
        long_runs = {"solves": 0, "solved": 0, "unsolvable": 0}
        started = time.process_time()
        for n in range(args.days):
            day = first + dt.timedelta(days=n)
            long_done = False  # the long policy's draw for this day has ended
            for attempt in range(args.max_seeds):
                seed = derive(secret=args.secret, day=day, game=game, attempt=attempt)
                quick = solve(game, seed, **budget(args.seconds, rate))  # type: ignore[arg-type]
                row = {"game": game, "day": day.isoformat(), "attempt": attempt, "seed": seed, "quick": quick.status}
                plain["drawn"] += 1
                if not long_done:
                    longer["drawn"] += 1
                if quick.status == "solved":
                    long_done = True
                    if out:
                        print(json.dumps(row), file=out, flush=True)
                    break
                if quick.status == "unsolvable":
                    plain["lost"] += 1
                    if not long_done:
                        longer["lost"] += 1
                else:
                    plain["unknown"] += 1
                    if not long_done:
                        slow = solve(game, seed, **budget(args.long, rate))  # type: ignore[arg-type]
                        row["long"] = slow.status
                        long_runs["solves"] += 1
                        if slow.status == "solved":
                            long_runs["solved"] += 1
                            long_done = True
                        elif slow.status == "unsolvable":
                            long_runs["unsolvable"] += 1
                            longer["lost"] += 1
                        else:
                            longer["unknown"] += 1
                if out:
                    print(json.dumps(row), file=out, flush=True)
        cpu = time.process_time() - started
        for policy, counts in (("plain", plain), ("long", longer)):
            share = counts["unknown"] / counts["drawn"] if counts["drawn"] else 0.0
            extra = (
                f"{long_runs['solves']:>13}{long_runs['solved']:>5}{long_runs['unsolvable']:>6}"
                if policy == "long"
                else f"{'':>13}{'':>5}{'':>6}"
            )
            print(
                f"{game:<16}{policy:>8}{counts['drawn']:>7}{counts['lost']:>6}{counts['unknown']:>9}"
                f"{share:>14.1%} {extra}{cpu:>8.0f}"
            )
        sys.stdout.flush()
    if out:
        out.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
