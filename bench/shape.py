"""What a complete search's positions are made of: the Python reference search of one deal, every
position it enters counted by cards drawn from the stock, cards left off the foundations, empty
columns, and (cards drawn, foundations) group, and how many of a group's positions differ only in
the tableau (same waste), to see where a proof of loss spends its positions.

    python bench/shape.py GAME SEED [--seconds 600] [--prune]

The reference search enters the same positions as the core's (the tests hold the two to the same
nodes), 20-60 times slower: use it on deals whose proof has a few million positions.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import deal as make_deal
from solver.reference import Reference
from solver.state import SearchState


@contextmanager
def counting(groups: dict[str, Counter[object]]) -> Iterator[None]:
    """Count every position whose key the search asks for the first time (a position entered: the
    search asks for the key once per position it reaches, then looks it up in its table)."""
    seen: set[bytes] = set()
    key = SearchState.key

    def counted(st: SearchState) -> bytes:
        k = key(st)
        if k not in seen:
            seen.add(k)
            groups["drawn"][st.p] += 1
            groups["left"][st.left] += 1
            groups["empty"][sum(1 for c in st.cols if not c)] += 1
            groups["group"][st.p, tuple(st.found)] += 1
            groups["waste"][st.p, tuple(st.found), tuple(st.talon[: st.p])] += 1
        return k

    SearchState.key = counted  # type: ignore[method-assign,assignment]  # instruments the search for this run
    try:
        yield
    finally:
        SearchState.key = key  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game")
    parser.add_argument("seed", type=int)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--prune", action="store_true", help="never-all-up at every position entered")
    args = parser.parse_args()
    groups: dict[str, Counter[object]] = {name: Counter() for name in ("drawn", "left", "empty", "group", "waste")}
    started = time.perf_counter()
    with counting(groups):
        out = Reference().search(
            SearchState(make_deal(args.game, args.seed)), deadline=started + args.seconds, prune=args.prune
        )
    sizes = sorted(groups["group"].values())
    print(
        f"{args.game} {args.seed}: {out.status}, {out.nodes:,} nodes, {sum(sizes):,} positions, "
        f"{time.perf_counter() - started:.0f} s"
    )
    for name in ("drawn", "left", "empty"):
        print(
            f"positions by cards {name}:" if name != "empty" else "positions by empty columns:",
            ", ".join(f"{k}: {v:,}" for k, v in sorted(groups[name].items())),
        )
    print(
        f"(cards drawn, foundations) groups: {len(sizes):,}; positions a group: median {sizes[len(sizes) // 2]:,}, "
        f"largest {sizes[-1]:,}"
    )
    tableaux = sorted(groups["waste"].values())
    print(
        f"(cards drawn, foundations, waste) groups: {len(tableaux):,}; tableaux a group: "
        f"median {tableaux[len(tableaux) // 2]:,}, largest {tableaux[-1]:,}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
