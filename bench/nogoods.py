"""Learned deadlocks (nogoods), measured: the core's complete search (never all up at every
position, dead weight in the waste: the schedule's) with and without them, at a node budget.

    SOLVER_NOGOODS is read by the core (csrc/nogood.c): "min,mul,pids,floor,tops" (a subtree of at
    least ``min`` nodes is projected; its proof gets ``floor + mul x`` the subtree's nodes; at most
    ``pids`` projections are stored; ``tops``: the columns' top cards count as touched).

    python bench/nogoods.py --games forty-thieves --seeds 1-100 --nodes 250000 --config 50,4,16,2000,1
                            [--sample 10]

For each deal the search without nogoods; then, on every deal it leaves open and on the first
``--sample`` it decides, the search with them, whose budget counts the projections' own nodes.
Prints each deal's verdicts, nodes and the core's nogood figures, then per game the decided counts.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import deal as make_deal
from solver import core
from solver.search import SOLVED, UNSOLVABLE, SearchOutcome
from solver.state import SearchState

NAMES = {SOLVED: "won", UNSOLVABLE: "lost"}


def searched(game: str, seed: int, nodes: int, config: str | None) -> tuple[SearchOutcome, str, float]:
    if config:
        os.environ["SOLVER_NOGOODS"] = config
    else:
        os.environ.pop("SOLVER_NOGOODS", None)
    with tempfile.TemporaryFile() as err:
        saved = os.dup(2)
        os.dup2(err.fileno(), 2)
        started = time.perf_counter()
        try:
            out = core.Compiled(256).search(
                SearchState(make_deal(game, seed)),
                deadline=time.perf_counter() + 3600,
                max_nodes=nodes,
                prune=True,
                dominate=True,
            )
        finally:
            seconds = time.perf_counter() - started
            os.dup2(saved, 2)
            os.close(saved)
        err.seek(0)
        figures = err.read().decode().strip().removeprefix("nogoods: ")
    return out, figures, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="josephine,forty-thieves")
    parser.add_argument("--seeds", default="1-100")
    parser.add_argument("--nodes", type=int, default=250_000)
    parser.add_argument("--config", default="50,4,16,2000,1")
    parser.add_argument("--sample", type=int, default=10)
    args = parser.parse_args()
    core.require()
    first, last = (int(x) for x in args.seeds.split("-"))
    for game in args.games.split(","):
        decided = [0, 0]
        sampled = 0
        for seed in range(first, last + 1):
            base, _, s0 = searched(game, seed, args.nodes, None)
            is_open = base.status not in NAMES
            decided[0] += not is_open
            if not is_open and sampled >= args.sample:
                decided[1] += 1  # (not run again: counted as decided)
                continue
            sampled += not is_open
            out, figures, s1 = searched(game, seed, args.nodes, args.config)
            decided[1] += out.status in NAMES
            if not is_open and NAMES.get(out.status) != NAMES[base.status]:
                print(f"  {game} {seed}: REGRESSION {NAMES[base.status]} -> {NAMES.get(out.status, 'open')}")
            print(
                f"  {game:>16} {seed:>3}: {NAMES.get(base.status, 'open'):>5} {base.nodes:>9,} ({s0:5.1f} s) -> "
                f"{NAMES.get(out.status, 'open'):>5} {out.nodes:>9,} ({s1:5.1f} s)  {figures}",
                flush=True,
            )
        print(
            f"{game}: decided by the complete search at {args.nodes:,} nodes: {decided[0]} -> {decided[1]}", flush=True
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
