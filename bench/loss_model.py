"""The proofs of loss without search over the winnability study's deals: the loss model
(``solver.loss_model``, CP-SAT) or Lemma S (``solver.dead.never_all_up``, ``--prover lemma-s``).

    python bench/loss_model.py --games josephine,forty-thieves [--status unknown] [--work 10] [--seconds 10]
                               [--limit N] [--out FILE.jsonl] [--along-win 0.6,0.8] [--play-out]
                               [--prover model|lemma-s]

For each game: the study's deals of that status (``solved``: the soundness check, where a proof of
loss would be a bug; ``unknown``: what the model decides that the search left open), each given to
``prove_lost`` within ``--seconds`` on one thread. Prints per game how many came out lost, with a
schedule (the model has a solution: nothing proven), or undecided in time, and the median and
90th percentile of seconds per deal. ``--along-win`` gives positions along a win the solver finds
again (winnable: a proof there is a bug too), ``--play-out`` the position at the end of the stock
after random play (mostly lost: the solver's verdict is printed beside). Exits 1 on a proof of loss
for anything known won.
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
from solver.loss_model import model_applies, prove_lost
from solver.state import SearchState
from solver_worker.cli import study_rows

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


def lemma_s(d: Deal) -> tuple[bool, str, float, dict[str, int]]:
    """Lemma S on ``d``: (lost, verdict, seconds, stats)."""
    start = time.perf_counter()
    lost = never_all_up(SearchState(d))
    return lost, ("LEMMA_S" if lost else "OPEN"), time.perf_counter() - start, {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default="josephine,forty-thieves,lucas,limited,maria")
    parser.add_argument("--status", choices=("solved", "unknown", "unsolvable"), default="solved")
    parser.add_argument("--seconds", type=float, default=10.0, help="wall-clock cap per deal")
    parser.add_argument("--work", type=float, default=10.0, help="CP-SAT deterministic time per deal")
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
    parser.add_argument(
        "--prover", choices=("model", "lemma-s"), default="model", help="the CP-SAT model, or Lemma S (no search)"
    )
    args = parser.parse_args()
    wrong = 0
    if args.prover == "lemma-s":
        print(f"study deals '{args.status}', Lemma S (no search), one thread")
    else:
        print(f"study deals '{args.status}', {args.work:g} units of work or {args.seconds:g} s each, one thread")
    print(f"{'game':<16}{'deals':>7}{'lost':>7}{'schedule':>10}{'open':>7}{'median s':>10}{'p90 s':>8}")
    for game in [g.strip() for g in args.games.split(",") if g.strip()]:
        seeds = study_seeds(game, args.status)[: args.limit]
        counts = {"lost": 0, "schedule": 0, "open": 0}
        times: list[float] = []
        for seed, d in positions(game, seeds, args.along_win):
            if args.play_out:
                d = play_out(d, random.Random(seed))
            if args.prover == "lemma-s":
                lost, verdict, seconds, stats = lemma_s(d)
            elif model_applies(d):
                proof = prove_lost(d, seconds=args.seconds, work=args.work)
                lost, verdict, seconds, stats = proof.lost, proof.verdict, proof.seconds, proof.stats
            else:
                continue
            if args.play_out:
                truth = solve_deal(d, seconds=30, max_nodes=300_000).status
                print(f"  {game} {seed}: solver {truth}, {args.prover} {'lost' if lost else 'open'}", flush=True)
                if lost and truth == "solved":
                    wrong += 1
                    print(f"UNSOUND: {game} {seed} played out is won but the model has no solution", flush=True)
            kind = "lost" if lost else ("schedule" if verdict in ("FEASIBLE", "OPTIMAL") else "open")
            counts[kind] += 1
            times.append(seconds)
            if lost and args.status == "solved" and not args.play_out:  # played out: checked above
                wrong += 1
                print(f"UNSOUND: {game} {seed} is won but the model has no solution", flush=True)
            if args.out:
                with open(args.out, "a") as out:
                    out.write(
                        json.dumps(
                            {
                                "game": game,
                                "seed": seed,
                                "cards": sum(map(len, d.tableau)) + len(d.stock) + len(d.waste),
                                "verdict": verdict,
                                "seconds": round(seconds, 3),
                                **stats,
                            }
                        )
                        + "\n"
                    )
        if times:
            ordered = sorted(times)
            p90 = ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]
            print(
                f"{game:<16}{len(times):>7}{counts['lost']:>7}{counts['schedule']:>10}{counts['open']:>7}"
                f"{statistics.median(times):>10.4f}{p90:>8.4f}",
                flush=True,
            )
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
