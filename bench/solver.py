"""Solver benchmark: fixed seeds per game, one core, one table per game.

    python bench/solver.py [--seeds 50] [--seconds 10] [--games klondike,josephine] [--start 1]
                           [--core c|python|both] [--nodes N] [--beam on|off] [--prune on|off] [--dominate on|off]
                           [--out FILE.jsonl]

For each game and core: how many deals were solved / proven unsolvable / left unknown, the
median and 90th percentile of seconds per deal (the whole call, log shortening included),
the median time to the verdict (``decide ms``: the search phases only), the median CPU time
of the whole call (``cpu ms``: the process's, which a loaded machine does not inflate as it does
the wall-clock figures; the budget itself is wall-clock), and nodes per second of the search
phases over the whole run.
Seeds are ``start .. start+N-1`` (fixed, so runs are comparable). ``--core both`` runs the
compiled core and the Python search on the same deals, one after the other, and prints
their rows side by side with the speed-up. ``--nodes`` adds a node budget per deal (then
the results no longer depend on the machine's speed). ``--beam``, ``--prune`` and ``--dominate``
set the run's ``SolveOptions`` (handed to every solve): ``beam_share`` (off: 0, no stock-step beam;
on: as shipped), ``prune`` (never-all-up at every position the complete search enters) and
``dominate`` (dead weight in the waste in the complete search); ``--out``
appends one JSON line per deal (game, seed, core, status, nodes, seconds, cpu), to compare two
runs deal by deal. ``nodes`` is the total over the run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine import GAME_IDS
from solver import SolveOptions, reference, solve

TARGETS = {  # share of deals decided within 10 s: issue 26's goals
    "josephine": 0.90,
    "forty-thieves": 0.90,
    "lucas": 1.0,
    "limited": 1.0,
    "maria": 0.95,
    "forty-and-eight": 0.95,
    "klondike": 0.995,
    "klondike-3": 0.995,
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--start", type=int, default=1)
    parser.add_argument("--games", default=",".join(GAME_IDS))
    parser.add_argument("--core", choices=("c", "python", "both"), default="c")
    parser.add_argument("--nodes", type=int, default=None, help="node budget per deal")
    parser.add_argument(
        "--beam", choices=("on", "off"), default=None, help="the stock-step beam on or off (default: as shipped)"
    )
    parser.add_argument(
        "--prune",
        choices=("on", "off"),
        default=None,
        help="never-all-up at every position searched (default: as shipped)",
    )
    parser.add_argument(
        "--dominate",
        choices=("on", "off"),
        default=None,
        help="dead weight in the waste in the complete search (default: as shipped)",
    )
    parser.add_argument("--out", default=None, help="append one JSON line per deal to this file")
    args = parser.parse_args()
    options = SolveOptions()
    if args.beam == "off":
        options = dataclasses.replace(options, beam_share=0.0)
    if args.prune is not None:
        options = dataclasses.replace(options, prune=args.prune == "on")
    if args.dominate is not None:
        options = dataclasses.replace(options, dominate=args.dominate == "on")
    cores = ["c", "python"] if args.core == "both" else [args.core]
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    for g in games:
        if g not in GAME_IDS:
            print(f"unknown game {g!r}: expected some of {', '.join(GAME_IDS)}", file=sys.stderr)
            return 2
    budget = f", at most {args.nodes:,} nodes" if args.nodes else ""
    print(
        f"{args.seeds} seeds from {args.start}, {args.seconds:g} s each{budget}, one process, "
        f"beam {'on' if options.beam_share else 'off'}, prune {'on' if options.prune else 'off'}, "
        f"dominate {'on' if options.dominate else 'off'}"
    )
    header = (
        f"{'game':<16}{'core':>7}{'solved':>7}{'unsolv':>7}{'unknown':>8}{'decided':>9}{'median s':>10}"
        f"{'p90 s':>8}{'decide ms':>10}{'cpu ms':>8}{'nodes/s':>10}{'target':>8}{'nodes':>14}"
    )
    print(header)
    print("-" * len(header))
    for game in games:
        speed: dict[str, float] = {}
        for core in cores:
            counts = {"solved": 0, "unsolvable": 0, "unknown": 0}
            times: list[float] = []
            decide: list[float] = []
            cpu: list[float] = []
            nodes = 0
            for seed in range(args.start, args.start + args.seeds):
                searcher = reference.PYTHON if core == "python" else None
                started = time.process_time()
                result = solve(
                    game, seed, seconds=args.seconds, max_nodes=args.nodes, searcher=searcher, options=options
                )
                cpu.append(time.process_time() - started)
                counts[result.status] += 1
                times.append(result.seconds)
                decide.append(result.stats["decide_us"] / 1e6)
                nodes += result.nodes
                if args.out:
                    with open(args.out, "a") as out:
                        out.write(
                            json.dumps(
                                {
                                    "game": game,
                                    "seed": seed,
                                    "core": core,
                                    "status": result.status,
                                    "nodes": result.nodes,
                                    "seconds": round(result.seconds, 4),
                                    "cpu": round(cpu[-1], 4),
                                    "beam": options.beam_share > 0,
                                    "prune": options.prune,
                                    "dominate": options.dominate,
                                }
                            )
                            + "\n"
                        )
            decided = (counts["solved"] + counts["unsolvable"]) / args.seeds
            target = TARGETS[game]
            speed[core] = nodes / max(sum(decide), 1e-9)
            print(
                f"{game:<16}{core:>7}{counts['solved']:>7}{counts['unsolvable']:>7}{counts['unknown']:>8}"
                f"{decided:>9.0%}{statistics.median(times):>10.3f}{percentile(times, 0.9):>8.2f}"
                f"{1000 * statistics.median(decide):>10.1f}{1000 * statistics.median(cpu):>8.1f}"
                f"{speed[core]:>10.0f}{target:>8.1%}{nodes:>14,}",
                flush=True,
            )
        if len(speed) == 2:
            print(f"{'':<16}{'C/Py':>7} nodes/s x{speed['c'] / max(speed['python'], 1e-9):.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
