"""The solver's soundness on mini-decks: every verdict held to the engine's own exhaustive search.

    python bench/minideck.py [--games forty-thieves,maria] [--deals 200] [--positions 4]
                             [--limit 200000] [--seed minideck] [--no-python]

For each two-deck game, ``--deals`` random mini-deals of its rules (``solver.reference.minideck``:
a few suits of the highest ranks, both copies, few columns, a short stock) and, from each, up to
``--positions`` positions met on a random line of play (a waste, foundations of their own: where
the proofs without search fire). Each position whose truth the engine's exhaustive search finds
within ``--limit`` positions is given to every checker (the proofs without search, the compiled
complete search plain and pruned, the Python reference search pruned unless ``--no-python``, the
whole schedule): each "lost" must be the truth, each win is replayed by the engine. Prints per game
the positions checked (won / lost by the engine) and per checker its proofs of loss, wins and
positions left open, then every disagreement; exits 1 if there is one.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from solver.reference.minideck import (
    SHAPES,
    TWO_DECK_GAMES,
    Tally,
    check,
    checkers,
    exhaustive,
    mini_deal,
    positions_along,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=",".join(TWO_DECK_GAMES))
    parser.add_argument("--deals", type=int, default=200, help="mini-deals per game")
    parser.add_argument("--positions", type=int, default=4, help="positions along a random line per deal")
    parser.add_argument("--limit", type=int, default=100_000, help="the exhaustive search's positions")
    parser.add_argument("--seed", default="minideck")
    parser.add_argument("--no-python", action="store_true", help="leave out the Python reference search")
    args = parser.parse_args()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    for g in games:
        if g not in TWO_DECK_GAMES:
            print(f"unknown game {g!r}: expected some of {', '.join(TWO_DECK_GAMES)}", file=sys.stderr)
            return 2
    found = checkers(python=not args.no_python)
    print(
        f"{args.deals} mini-deals a game and up to {args.positions} positions along a line of each, "
        f"exhaustive search up to {args.limit:,} positions, seed {args.seed!r}\n"
    )
    wrong: list[str] = []
    width = max(len(name) for name in found)
    for game in games:
        started = time.perf_counter()
        tallies: dict[str, Tally] = {}
        truths = {True: 0, False: 0}
        too_big = 0
        for i in range(args.deals):
            rng = random.Random(f"{args.seed}-{game}-{i}")
            shapes = SHAPES[game]
            deal = mini_deal(game, rng, shapes[i % len(shapes)])
            for position in [deal, *positions_along(deal, rng, args.positions)]:
                truth, _ = exhaustive(position, args.limit)
                if truth is None:
                    too_big += 1
                    continue
                truths[truth] += 1
                check(position, truth, tallies, found)
            print(f"\r{game}: deal {i + 1}/{args.deals}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        seconds = time.perf_counter() - started
        print(
            f"{game}: {truths[True] + truths[False]} positions checked ({truths[True]} won, {truths[False]} lost "
            f"by the engine), {too_big} past the exhaustive search's limit, {seconds:.0f} s"
        )
        print(f"  {'checker':<{width}} {'lost':>6} {'won':>6} {'open':>6} {'wrong':>6}")
        for name, tally in tallies.items():
            print(f"  {name:<{width}} {tally.lost:>6} {tally.won:>6} {tally.open:>6} {len(tally.wrong):>6}")
            wrong += tally.wrong
        print(flush=True)
    for line in wrong:
        print("WRONG:", line)
    print(f"{len(wrong)} disagreement(s) with the engine")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
