"""Proofs of loss by searching a smaller game: two card-removal relaxations, measured.

    python bench/relaxations.py [--game forty-thieves] [--status unknown] [--limit 20] [--nodes 1000000]
                                [--kind ranks|suits]

Taking cards out of a one-pass deal of the same-suit games (Forty Thieves, Josephine, Lucas,
Limited, Forty and Eight) gives a position that is won whenever the deal is: every card a
remaining card can be built onto is still there (``ranks``: the cards below rank k of every suit
are put on the foundations, and a card builds only onto the rank above; ``suits``: whole suits
go, and a card builds only onto its own suit), a removed card only uncovers cards and empties
columns sooner, and the talon keeps its order. So a winning line of the deal, with the removed
cards' moves left out, wins the smaller position, and an exhaustive search that finds the
smaller position lost proves the deal lost, in far fewer positions.

For each of the study's deals of ``--status`` (``unknown``: what the solver left open;
``solved``: deals known won, where a proof would be a bug), ``ranks`` searches the position
without ranks below k for k = 12, 11, ... down to 1 (the whole deal but the aces) and prints the
first k where the search does not win within ``--nodes`` (lost, or open); ``suits`` searches
every choice of three suits and prints how many were won, lost and left open. The summary line
says how many deals any relaxation proved lost.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import deal
from solver.core import Compiled
from solver.search import SOLVED, UNSOLVABLE
from solver.state import SearchState
from study.rows import study_rows

STUDY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "winnability")


def without(st: SearchState, lowest: list[int]) -> SearchState:
    """``st`` with every card of suit s below rank ``lowest[s]`` (0-based; 13: the whole suit) taken
    off the columns and the talon and counted as up on both of its foundations."""
    out = st.copy()
    kept = [(c >> 2) >= lowest[c & 3] for c in range(52)]
    out.cols = [[c for c in col if kept[c]] for col in st.cols]
    out.p = sum(1 for c in st.talon[: st.p] if kept[c])
    out.talon = [c for c in st.talon if kept[c]]
    for i in range(8):
        out.found[i] = max(out.found[i], lowest[i >> 1])
    out.left = sum(map(len, out.cols)) + len(out.talon)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="forty-thieves")
    parser.add_argument("--status", default="unknown", choices=("unknown", "solved"))
    parser.add_argument("--limit", type=int, default=20)
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--kind", default="ranks", choices=("ranks", "suits"))
    args = parser.parse_args()
    rows = study_rows(os.path.join(STUDY, f"{args.game}.jsonl"), args.game)  # the row that counts, per seed
    seeds = sorted(seed for (_, seed), row in rows.items() if row.get("status") == args.status)[: args.limit]
    core = Compiled()
    proven = 0
    started = time.perf_counter()
    for seed in seeds:
        root = SearchState(deal(args.game, seed))
        if not root.two or not root.suit_build or root.klondike:
            print("only the two-deck same-suit games", file=sys.stderr)
            return 2
        outcomes = []
        if args.kind == "ranks":
            choices = [[k] * 4 for k in range(12, 0, -1)]
        else:
            choices = [[0 if s in keep else 13 for s in range(4)] for keep in itertools.combinations(range(4), 3)]
        for lowest in choices:
            out = core.search(
                without(root, lowest), deadline=time.perf_counter() + 60, max_nodes=args.nodes, prune=True
            )
            outcomes.append((lowest, out.status, out.nodes))
            if args.kind == "ranks" and out.status != SOLVED:
                break
        lost = any(s == UNSOLVABLE for _, s, _ in outcomes)
        proven += lost
        if args.kind == "ranks":
            lowest, verdict, nodes = outcomes[-1]
            if verdict == SOLVED:
                print(f"{seed}: won at every k (the deal without its aces: {nodes:,} nodes)")
            else:
                line = f"{seed}: first not won: without ranks below {lowest[0] + 1} ({verdict}, {nodes:,} nodes)"
                if len(outcomes) > 1:
                    line += f"; won without ranks below {lowest[0] + 2} in {outcomes[-2][2]:,}"
                print(line)
        else:
            tally = {v: sum(1 for _, s, _ in outcomes if s == v) for v in (SOLVED, UNSOLVABLE, "unknown")}
            print(f"{seed}: three suits of four: {tally}")
    print(
        f"{args.game} {args.status}: {len(seeds)} deals, {proven} proven lost by a relaxation, "
        f"{time.perf_counter() - started:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
