"""Never-all-up (``solver.dead.never_all_up``: proofs of loss without a search) over the winnability
study's deals, or positions made from them.

    python bench/never_all_up.py --games josephine,forty-thieves [--status solved] [--limit N]
                            [--out FILE.jsonl] [--along-win 0.6,0.8] [--play-out]

For each game: the study's deals of that status (``solved``: the soundness check, where a proof of
loss would be a bug; ``unknown``: what never-all-up decides that the search left open). Prints per game
how many came out lost or open, and the median and 90th percentile of seconds per deal.
``--along-win`` gives positions along a win the solver finds again (winnable: a proof there is a
bug too), ``--play-out`` the position at the end of the stock after random play (mostly lost: the
solver's verdict at 30 s is printed beside). Exits 1 on a proof of loss for anything known won.

(This was ``bench/loss_model.py``, which also ran the CP-SAT loss model until the model was removed;
see docs/solver-proofs.md, "Proofs of loss by a constraint model".)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from collections.abc import Iterator

from engine import Deal, State, deal
from engine.moves import DRAW
from solver.api import solve, solve_deal
from solver.dead import never_all_up
from solver.state import SearchState
from study.rows import study_rows

STUDY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "winnability")


def study_seeds(game: str, status: str) -> list[int]:
    """Seeds whose row that counts (``study_rows``: a decided row over an undecided one) says ``status``."""
    rows = study_rows(os.path.join(STUDY, f"{game}.jsonl"), game)
    return sorted(seed for (_, seed), row in rows.items() if row.get("status") == status)


def positions(game: str, seeds: list[int], along_win: str | None) -> Iterator[tuple[int, Deal]]:
    """Each seed's deal; with ``along_win``, the positions after those shares of a winning log the
    solver finds again (10 s; a seed it does not win again is left out)."""
    shares = [float(x) for x in along_win.split(",")] if along_win else []
    for seed in seeds:
        if not shares:
            yield seed, deal(game, seed)
            continue
        result = solve(game, seed, seconds=10)
        if result.status != "solved" or result.moves is None:
            continue
        for share in shares:
            state = State(deal(game, seed))
            for move in result.moves[: int(len(result.moves) * share)]:
                state.play_text(move)
            yield seed, state.as_deal()


def play_out(start: Deal, rng: random.Random) -> Deal:
    """Random play until the stock's last card is drawn (a move other than a draw 60% of the time)."""
    state = State(start)
    for _ in range(600):
        if state.won or not state.stock:
            break
        moves = list(state.legal_moves())
        others = [m for m in moves if m.kind != DRAW]
        draws = [m for m in moves if m.kind == DRAW]
        if others and (not draws or rng.random() < 0.6):
            state.play(rng.choice(others))
        elif draws:
            state.play(draws[0])
        else:
            break
    return state.as_deal()


def never_all_up_timed(d: Deal) -> tuple[bool, float]:
    """Never-all-up on ``d``: (lost, seconds)."""
    start = time.perf_counter()
    lost = never_all_up(SearchState(d))
    return lost, time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="josephine,forty-thieves,lucas,limited,maria")
    parser.add_argument("--status", choices=("solved", "unknown", "unsolvable"), default="solved")
    parser.add_argument("--limit", type=int, default=None, help="the first N deals of each game only")
    parser.add_argument("--out", default=None, help="append one JSON line per deal to this file")
    parser.add_argument(
        "--play-out",
        action="store_true",
        help="in place of each deal, the position where random play (seeded by the deal's seed) "
        "draws the stock's last card: mostly lost positions; the solver's verdict is printed beside",
    )
    parser.add_argument(
        "--along-win",
        default=None,
        help="with --status solved: the positions after these shares of a win the solver finds again "
        "(e.g. 0.5,0.75), winnable positions smaller than the deal, in place of the deal",
    )
    args = parser.parse_args()
    wrong = 0
    print(f"study deals '{args.status}', never-all-up (no search), one thread")
    print(f"{'game':<16}{'deals':>7}{'lost':>7}{'open':>7}{'median s':>10}{'p90 s':>8}")
    for game in [g.strip() for g in args.games.split(",") if g.strip()]:
        seeds = study_seeds(game, args.status)[: args.limit]
        counts = {"lost": 0, "open": 0}
        times: list[float] = []
        for seed, d in positions(game, seeds, args.along_win):
            if args.play_out:
                d = play_out(d, random.Random(seed))
            lost, seconds = never_all_up_timed(d)
            if args.play_out:
                truth = solve_deal(d, seconds=30, max_nodes=300_000).status
                print(f"  {game} {seed}: solver {truth}, never-all-up {'lost' if lost else 'open'}", flush=True)
                if lost and truth == "solved":
                    wrong += 1
                    print(f"UNSOUND: {game} {seed} played out is won but never-all-up calls it lost", flush=True)
            counts["lost" if lost else "open"] += 1
            times.append(seconds)
            if lost and args.status == "solved" and not args.play_out:  # played out: checked above
                wrong += 1
                print(f"UNSOUND: {game} {seed} is won but never-all-up calls it lost", flush=True)
            if args.out:
                with open(args.out, "a") as out:
                    out.write(
                        json.dumps(
                            {
                                "game": game,
                                "seed": seed,
                                "cards": sum(map(len, d.tableau)) + len(d.stock) + len(d.waste),
                                "lost": lost,
                                "seconds": round(seconds, 4),
                            }
                        )
                        + "\n"
                    )
        if times:
            ordered = sorted(times)
            p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
            print(
                f"{game:<16}{len(times):>7}{counts['lost']:>7}{counts['open']:>7}"
                f"{statistics.median(times):>10.4f}{p90:>8.4f}",
                flush=True,
            )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
