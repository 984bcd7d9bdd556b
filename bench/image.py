"""Klondike's image game (``solver.abstract``) on the winnability study's Klondike deals.

    python bench/image.py [--games klondike,klondike-3] [--status solved,unsolvable,unknown]
                          [--seconds 10] [--limit N] [--table-mb 1024] [--out FILE.jsonl]

For each study deal of the given final status (the study's last verdict that decided it, else
``unknown``): the image search's verdict, positions and seconds (the compiled core, one process).
A won image's line is realized (``abstract.realize``) and replayed by the engine. The tallies end
with the two checks that must stay at zero: a deal the study won whose image is lost, a deal the
study proved lost whose image is won (or whose realized line the engine accepts); and how many
won images did not realize into a win the engine accepts.
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from engine import deal
from solver.abstract import realize
from solver.core import Compiled
from solver.log import to_log, wins
from solver.state import SearchState
from study.rows import study_rows

STUDY = pathlib.Path(__file__).resolve().parents[1] / "docs" / "winnability"


def final_verdicts(game: str) -> dict[int, str]:
    """Each seed's verdict in the study: the row that counts (``study_rows``)."""
    rows = study_rows(str(STUDY / f"{game}.jsonl"), game)
    return {seed: str(row.get("status")) for (_, seed), row in rows.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", default="klondike,klondike-3")
    ap.add_argument("--status", default="unknown")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--table-mb", type=float, default=1024.0)
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    core = Compiled(args.table_mb)
    out = open(args.out, "a") if args.out else None  # noqa: SIM115 (closed at exit)
    for game in args.games.split(","):
        verdicts = final_verdicts(game)
        for status in args.status.split(","):
            seeds = sorted(s for s, v in verdicts.items() if v == status)
            if args.limit:
                seeds = seeds[: args.limit]
            tally: collections.Counter[str] = collections.Counter()
            t0 = time.perf_counter()
            for seed in seeds:
                d = deal(game, seed)
                res = core.image(SearchState(d), deadline=time.perf_counter() + args.seconds)
                tally[res.status] += 1
                real = False
                if res.status == "won":
                    line = realize(SearchState(d), res.line)
                    real = line is not None and wins(d, to_log(d, line), limit=False)
                    tally["unrealized"] += not real
                tally["won, but the study proved it lost"] += res.status == "won" and status == "unsolvable"
                tally["lost, but the study won it"] += res.status == "lost" and status == "solved"
                row = {"game": game, "seed": seed, "study": status, "image": res.status, "realized": real}
                row |= {"positions": res.positions, "seconds": round(res.seconds, 4)}
                if out:
                    print(json.dumps(row), file=out, flush=True)
            wall = time.perf_counter() - t0
            print(f"{game:12} study {status:10} {len(seeds):6} deals  {dict(tally)}  {wall:.0f} s", flush=True)


if __name__ == "__main__":
    main()
