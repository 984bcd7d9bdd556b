"""Where a complete search's moves go (issue 26, item 2): how many reach a position already entered,
and of those how many a partial-order reduction (sleep sets) could have skipped.

    python bench/transpositions.py [--game klondike] [--seeds 1000508,1000108] [--nodes 3000000]
                                   [--lost N --min-nodes 50000 --max-nodes 4000000]
                                   [--study docs/winnability]

A plain complete depth-first search in Python (the reference's: safe moves, ``gen_moves``, a table
of keys; slow, some 20,000-100,000 nodes a second) that also records, for every move tried, the
key of the position it led to. Each move that reaches a position already in the table (a
*repeat*) is put in one class: back to the position it came from (the move undoes the last one),
to another position on the current path, a *commuting pair* (the move b is played at y, entered
from x by a, b was tried at x before a, and x.b.a was entered and is y.b: a sleep set would skip
it), or any other repeat. The positions entered are what a proof of loss must visit whatever
order the moves are tried in; the repeats are what pruning by move order can save at most.
With ``--lost N`` the seeds are the first N proven lost in the study file whose rows needed
between ``--min-nodes`` and ``--max-nodes`` nodes.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import deal as make_deal
from solver.moves import gen_moves
from solver.reference.safe import safe_move
from solver.state import SearchMove, SearchState
from study.rows import study_rows

CLASSES = ("back", "path", "commuting", "other")


def walk(game: str, seed: int, cap: int) -> tuple[str, int, int, dict[str, int]]:
    """The complete search of the deal to its end or ``cap`` nodes: its verdict (won, lost or
    capped), nodes, positions entered and the repeats of each class."""
    st = SearchState(make_deal(game, seed))
    path: list[SearchMove] = []

    def settle() -> int:
        n = 0
        while (m := safe_move(st)) is not None:
            st.play(m)
            path.append(m)
            n += 1
        return n

    settle()
    root = st.key()
    parent: dict[bytes, tuple[bytes, SearchMove] | None] = {root: None}  # first entry: from where, by what
    child: dict[tuple[bytes, SearchMove], bytes] = {}
    order: dict[bytes, dict[SearchMove, int]] = {}  # the moves tried at a position, in order
    on_path = {root}
    counts = dict.fromkeys(CLASSES, 0)
    nodes = 0
    won = False
    frames: list[tuple[bytes, list[SearchMove], int, int]] = [(root, gen_moves(st), 0, 0)]
    while frames and nodes < cap:
        key, moves, i, safe = frames[-1]
        if i == len(moves):
            frames.pop()
            on_path.discard(key)
            for _ in range(safe + (1 if frames else 0)):
                st.undo(path.pop())
            continue
        frames[-1] = (key, moves, i + 1, safe)
        b = moves[i]
        order.setdefault(key, {})[b] = i
        st.play(b)
        path.append(b)
        nodes += 1
        s = settle()
        if st.left == 0:
            won = True
            break
        reached = st.key()
        child[(key, b)] = reached
        if reached in parent:
            counts[classify(key, b, reached, parent, child, order, on_path)] += 1
            for _ in range(s + 1):
                st.undo(path.pop())
            continue
        parent[reached] = (key, b)
        on_path.add(reached)
        frames.append((reached, gen_moves(st), 0, s))
    verdict = "won" if won else "lost" if not frames else "capped"
    return verdict, nodes, len(parent), counts


def classify(
    y: bytes,
    b: SearchMove,
    reached: bytes,
    parent: dict[bytes, tuple[bytes, SearchMove] | None],
    child: dict[tuple[bytes, SearchMove], bytes],
    order: dict[bytes, dict[SearchMove, int]],
    on_path: set[bytes],
) -> str:
    came = parent[y]
    if came is not None and reached == came[0]:
        return "back"
    if reached in on_path:
        return "path"
    if came is not None:
        x, a = came
        tried = order.get(x, {})
        if b in tried and tried[b] < tried[a]:
            xb = child.get((x, b))
            if xb is not None and child.get((xb, a)) == reached:
                return "commuting"
    return "other"


def lost_seeds(path: str, game: str, count: int, low: int, high: int) -> list[int]:
    """The first ``count`` seeds the study file proves lost whose row needed ``low``-``high`` nodes."""
    rows = study_rows(path, game)  # the row that counts per seed
    lost = (
        seed
        for (_, seed), row in rows.items()
        if row.get("status") == "unsolvable" and isinstance(n := row.get("nodes"), int) and low <= n <= high
    )
    return sorted(lost)[:count]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", default="klondike")
    parser.add_argument("--seeds", default="")
    parser.add_argument("--nodes", type=int, default=3_000_000)
    parser.add_argument("--lost", type=int, default=0)
    parser.add_argument("--min-nodes", type=int, default=50_000)
    parser.add_argument("--max-nodes", type=int, default=4_000_000)
    parser.add_argument("--study", default="docs/winnability")
    args = parser.parse_args()
    try:
        seeds = [int(s) for s in args.seeds.split(",") if s]
    except ValueError:
        parser.error(f"--seeds takes seeds separated by commas, not {args.seeds!r}")
    if args.lost:
        study = os.path.join(args.study, f"{args.game}.jsonl")
        seeds += lost_seeds(study, args.game, args.lost, args.min_nodes, args.max_nodes)
    if not seeds:
        parser.error("no seeds: give --seeds or --lost")
    print(f"| {args.game} seed | verdict | nodes | positions | repeats | back | path | commuting | other |")
    print("|---|---|---|---|---|---|---|---|---|")
    for seed in seeds:
        verdict, nodes, positions, counts = walk(args.game, seed, args.nodes)
        shares = [sum(counts.values()), *(counts[c] for c in CLASSES)]
        cells = " | ".join(f"{100 * k / max(1, nodes):.0f}%" for k in shares)
        print(f"| {seed} | {verdict} | {nodes:,} | {positions:,} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
