"""How far complete search goes (issue 12, item 4): the core's complete depth-first search alone,
with a large node cap and table, on deals the solver left undecided.

    python bench/complete.py [--games josephine,forty-thieves,maria,forty-and-eight] [--deals 20]
                             [--nodes 50000000] [--mb 2048] [--seconds 3600] [--prune] [--dominate]
                             [--study docs/winnability]

For each game, the first ``--deals`` seeds that the study file ``<study>/<game>.jsonl`` records
as undecided are searched to the end or to ``--nodes`` nodes (one core, one table of ``--mb`` MB
per deal): it prints each deal's verdict (won, proven lost, or capped), nodes, the positions the
table held and the entries it had to replace, then per game the distribution of the finished
searches' sizes and how many ran into the cap (``--nodes 0``: no node cap, only ``--seconds``).
``--prune`` runs never-all-up at every position entered, as the schedule's complete search does in
the one-card games (``SolveOptions.prune``); ``--dominate`` leaves out positions that dead weight
in the waste finds no better than one in the table (``solver.reference.dead_weight``). A win is
replayed by the engine before it counts.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import deal as make_deal
from solver import core
from solver.log import to_log, wins
from solver.search import SOLVED, UNKNOWN
from solver.state import SearchState
from study.rows import study_rows

TWO_DECK = "josephine,forty-thieves,maria,forty-and-eight"


def undecided_seeds(path: str, game: str, count: int) -> list[int]:
    """The first ``count`` seeds of a study file that no row of it decided (won or proven lost)."""
    rows = study_rows(path, game)  # the row that counts per seed: a decided one beats an undecided one
    return sorted(seed for (_, seed), row in rows.items() if row.get("status") == "unknown")[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=TWO_DECK)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=50_000_000)
    parser.add_argument("--mb", type=float, default=2048.0)
    parser.add_argument("--seconds", type=float, default=3600.0, help="per deal")
    parser.add_argument("--prune", action="store_true", help="never-all-up at every position entered")
    parser.add_argument(
        "--dominate", action="store_true", help="dead weight in the waste: leave out dominated positions"
    )
    parser.add_argument("--study", default="docs/winnability")
    args = parser.parse_args()
    core.require()
    cap = f"{args.nodes:,} nodes" if args.nodes else "no node cap"
    pruned = (", never-all-up at every position" if args.prune else "") + (
        ", dead weight in the waste" if args.dominate else ""
    )
    print(f"complete search alone, {cap}, {args.seconds:g} s, table {args.mb:.0f} MB{pruned}, one core\n", flush=True)
    summary = []
    for game in args.games.split(","):
        seeds = undecided_seeds(os.path.join(args.study, f"{game}.jsonl"), game, args.deals)
        finished: list[int] = []
        capped = 0
        verdicts = {"won": 0, "lost": 0}
        for seed in seeds:
            deal = make_deal(game, seed)
            started = time.perf_counter()
            out = core.Compiled(args.mb).search(
                SearchState(deal),
                deadline=time.perf_counter() + args.seconds,
                max_nodes=args.nodes or None,
                prune=args.prune,
                dominate=args.dominate,
            )
            seconds = time.perf_counter() - started
            if out.status == UNKNOWN:
                capped += 1
                verdict = "capped"
            else:
                if out.status == SOLVED and not wins(deal, to_log(deal, out.path), limit=False):
                    raise SystemExit(f"{game} {seed}: the core's win does not replay in the engine")
                verdict = "won" if out.status == SOLVED else "lost"
                verdicts[verdict] += 1
                finished.append(out.nodes)
            print(
                f"  {game:>16} {seed}: {verdict:>6}  {out.nodes:>12,} nodes  {out.stored:>11,} positions  "
                f"{out.evictions:>10,} replaced  {seconds:6.1f} s",
                flush=True,
            )
        sizes = f"{min(finished):,} / {int(statistics.median(finished)):,} / {max(finished):,}" if finished else "-"
        summary.append(
            f"| {game} | {len(seeds)} | {len(finished)} ({verdicts['won']} won, {verdicts['lost']} lost) "
            f"| {sizes} | {capped} |"
        )
    print("\n| game | deals | finished | nodes of the finished: min / median / max | at the cap |")
    print("|---|---|---|---|---|")
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
