"""The study's command line (``python -m study``; plain Python, no Django).

    python -m study solve GAME SEED [--seconds S] [--max-nodes N]
    python -m study winnability GAME --deals N --seconds S [--start SEED] [--jobs J] [--max-nodes N]
                                [--out FILE.jsonl] [--retry-unknown | --retry-all]
    python -m study transfer WEAK.jsonl STRONG.jsonl [--seconds S]
    python -m study report FILE...
    python -m study plot FILE... --out FILE.svg

``solve`` prints one JSON object: status, moves, nodes, seconds, difficulty.
``winnability`` solves seeds START..START+N-1 in J processes, shows progress on stderr,
appends one JSON line per deal to ``--out`` (seeds already there are skipped, so a run
can be resumed; ``--retry-unknown`` solves the undecided ones again, unless a try already had
this run's budget, so a stopped retry resumes too; ``--retry-all`` solves every undecided one
again whatever budget it had, after a change to the solver, unless its latest try had exactly this
run's budget) and ends with the counts and the win rate: a 95% Wilson interval over decided deals,
and bounds that count every unknown as lost / as won (``study.winnability``). The same run spread
over the service's solver workers is ``manage.py study_on_workers`` (solver_worker).
``transfer`` carries verdicts between the studies of a game and its weaker game (``study.transfer``).
``report`` and ``plot`` give the study's table and chart (``study.figures``, ``study.plot``).
Bad input (unknown game, bad seed or numbers, a study file that cannot be read) prints a message
and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import NoReturn

from engine import GAME_IDS
from engine.deal import check_seed
from engine.errors import EngineError
from solver import solve
from study.figures import report, study_figures
from study.plot import win_rate_svg
from study.rows import StudyError
from study.transfer import transfer
from study.winnability import winnability

EXIT_USAGE = 2


class UsageError(StudyError):
    """Arguments the parser refuses (argparse's own message)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # argparse exits 2 as well; keep its usage line
        self.print_usage(sys.stderr)
        raise UsageError(message)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a positive number of seconds")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number from 1 up")
    return value


def _seed(text: str) -> int:
    try:
        return check_seed(int(text))
    except (ValueError, EngineError):
        raise argparse.ArgumentTypeError(f"seed {text!r} is not an integer in 0..18446744073709551615") from None


def _game(text: str) -> str:
    if text not in GAME_IDS:
        raise argparse.ArgumentTypeError(f"unknown game {text!r}: expected one of {', '.join(GAME_IDS)}")
    return text


def winnability_arguments(parser: argparse.ArgumentParser, *, local: bool = True) -> None:
    """The arguments of a winnability run, on ``parser`` (``local``: with ``--jobs``, its processes here)."""
    parser.add_argument("game", type=_game)
    parser.add_argument("--deals", type=_positive_int, required=True)
    parser.add_argument("--seconds", type=_positive_float, required=True)
    parser.add_argument("--start", type=_seed, default=0)
    if local:
        parser.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1)
    parser.add_argument("--max-nodes", type=_positive_int, default=None)
    parser.add_argument("--out", default=None, help="JSON lines file; appended to, and seeds in it are skipped")
    parser.add_argument(
        "--retry-unknown",
        action="store_true",
        help="solve again the seeds that --out records as unknown and that no try has yet given this run's "
        "budget (so a stopped retry resumes); a decided row is a proof and is never replaced",
    )
    parser.add_argument(
        "--retry-all",
        action="store_true",
        help="after a change to the solver: solve again every seed --out records as unknown, whatever budget "
        "it had, unless its latest try had exactly this run's budget (so a stopped pass resumes)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m study", description="Daily Patience's winnability study.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("solve", help="solve one deal and print JSON")
    p.add_argument("game", type=_game)
    p.add_argument("seed", type=_seed)
    p.add_argument("--seconds", type=_positive_float, default=10.0)
    p.add_argument("--max-nodes", type=_positive_int, default=None)
    w = sub.add_parser("winnability", help="solve a range of seeds and estimate the win rate")
    winnability_arguments(w)
    t = sub.add_parser("transfer", help="carry wins and losses between the studies of a game and its weaker game")
    t.add_argument("weak", metavar="WEAK.jsonl", help="the study of the weaker game (Forty Thieves); losses are added")
    t.add_argument("strong", metavar="STRONG.jsonl", help="the study of the stronger game (Josephine); wins are added")
    t.add_argument("--seconds", type=_positive_float, default=10.0, help="budget to find a weaker game's win again")
    r = sub.add_parser("report", help="a Markdown table of the win rates in study files (JSON lines)")
    r.add_argument("files", nargs="+", metavar="FILE")
    g = sub.add_parser("plot", help="an SVG chart of the win rates in study files, with their intervals")
    g.add_argument("files", nargs="+", metavar="FILE")
    g.add_argument("--out", required=True, help="the SVG file to write")
    return parser


def cmd_solve(args: argparse.Namespace) -> int:
    result = solve(args.game, args.seed, seconds=args.seconds, max_nodes=args.max_nodes)
    print(
        json.dumps(
            {
                "status": result.status,
                "moves": result.moves,
                "nodes": result.nodes,
                "seconds": round(result.seconds, 4),
                "difficulty": result.difficulty,
            }
        )
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "solve":
            return cmd_solve(args)
        if args.command == "report":
            print(report(args.files))
            return 0
        if args.command == "plot":
            svg = win_rate_svg(study_figures(args.files))  # first: a bad study leaves no empty file
            with open(args.out, "w", encoding="utf-8") as fh:
                fh.write(svg)
            print(f"wrote {args.out}")
            return 0
        if args.command == "transfer":
            print(json.dumps(transfer(args.weak, args.strong, args.seconds)))
            return 0
        run = winnability(
            game=args.game,
            deals=args.deals,
            seconds=args.seconds,
            start=args.start,
            jobs=args.jobs,
            max_nodes=args.max_nodes,
            out=args.out,
            retry_unknown=args.retry_unknown,
            retry_all=args.retry_all,
        )
        print(json.dumps(run))
        return 0
    except StudyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
