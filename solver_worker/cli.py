"""Command line for the solver (plain Python, no Django).

    python -m solver_worker solve GAME SEED [--seconds S] [--max-nodes N]
    python -m solver_worker winnability GAME --deals N --seconds S [--start SEED]
                                             [--jobs J] [--out FILE.jsonl]
    python -m solver_worker transfer WEAK.jsonl STRONG.jsonl [--seconds S]

``solve`` prints one JSON object: status, moves, nodes, seconds, difficulty.
``winnability`` solves seeds START..START+N-1 in J processes, shows progress on stderr,
appends one JSON line per deal to ``--out`` (seeds already there are skipped, so a run
can be resumed; ``--retry-unknown`` solves the undecided ones again, unless a try already had
this run's budget, so a stopped retry resumes too; ``--retry-all`` solves every undecided one
again whatever budget it had, after a change to the solver, unless its latest try had exactly this
run's budget) and ends with the
counts and the win rate: a 95% Wilson interval over decided deals, and bounds that count
every unknown as lost / as won.
``transfer`` carries verdicts between the studies of two games that deal the same cards where
one game's moves are moves or runs of moves of the other's (``engine.rules.weaker_game``: Forty
Thieves in Josephine, Klondike draw 3 in Klondike): a win of the weaker game, found again, written as the
stronger game's log and replayed by the engine under its rules, is a win there; a loss of the
stronger game is a loss of the weaker one. Rows it adds say ``"via": GAME``.
Bad input (unknown game, bad seed or numbers) prints a message and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Iterable, Iterator
from typing import Any, NoReturn, cast

from engine import GAME_IDS, State, find_rules
from engine.deal import check_seed, deal
from engine.errors import EngineError
from engine.rules import weaker_game
from solver import solve
from solver.log import wins
from solver_worker.plot import StudyFigures, win_rate_svg

EXIT_USAGE = 2


class UsageError(Exception):
    pass


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


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m solver_worker", description="Daily Patience solver.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    p = sub.add_parser("solve", help="solve one deal and print JSON")
    p.add_argument("game", type=_game)
    p.add_argument("seed", type=_seed)
    p.add_argument("--seconds", type=_positive_float, default=10.0)
    p.add_argument("--max-nodes", type=_positive_int, default=None)
    w = sub.add_parser("winnability", help="solve a range of seeds and estimate the win rate")
    w.add_argument("game", type=_game)
    w.add_argument("--deals", type=_positive_int, required=True)
    w.add_argument("--seconds", type=_positive_float, required=True)
    w.add_argument("--start", type=_seed, default=0)
    w.add_argument("--jobs", type=_positive_int, default=os.cpu_count() or 1)
    w.add_argument("--max-nodes", type=_positive_int, default=None)
    w.add_argument("--out", default=None, help="JSON lines file; appended to, and seeds in it are skipped")
    w.add_argument(
        "--retry-unknown",
        action="store_true",
        help="solve again the seeds that --out records as unknown and that no try has yet given this run's "
        "budget (so a stopped retry resumes); a decided row is a proof and is never replaced",
    )
    w.add_argument(
        "--retry-all",
        action="store_true",
        help="after a change to the solver: solve again every seed --out records as unknown, whatever budget "
        "it had, unless its latest try had exactly this run's budget (so a stopped pass resumes)",
    )
    w.add_argument(
        "--celery",
        action="store_true",
        help="send the deals as Celery tasks to every worker sharing the broker (REDIS_URL) instead of local "
        "processes; results come back through the result backend",
    )
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


def study_figures(paths: list[str]) -> list[StudyFigures]:
    """Per game (in GAME_IDS order), from the rows that count across all the files.

    The interval runs from the Wilson lower bound of the proven wins to the Wilson upper
    bound of wins plus undecided deals, over all deals: undecided deals are never counted
    as wins, but they may be.
    """
    rows: dict[str, dict[int, dict[str, object]]] = {}
    for path in paths:
        for (game, seed), row in study_rows(path).items():
            games = rows.setdefault(game, {})
            if _replaces(games[seed].get("status") if seed in games else None, row.get("status")):
                games[seed] = row  # across files too, a proof is never replaced by an undecided row
    figures = []
    for game in [g for g in GAME_IDS if g in rows]:
        deals = list(rows[game].values())
        # a row without a status is undecided (study_rows keeps any row with a game and a seed)
        won = sum(1 for r in deals if r.get("status") == "solved")
        lost = sum(1 for r in deals if r.get("status") == "unsolvable")
        unknown = len(deals) - won - lost
        times = sorted(t for r in deals if r.get("status") == "solved" and (t := _number(r.get("seconds"))) is not None)
        figures.append(
            StudyFigures(
                game=game,
                deals=len(deals),
                won=won,
                lost=lost,
                unknown=unknown,
                low=wilson(won, len(deals))[0],
                high=wilson(won + unknown, len(deals))[1],
                median_won_seconds=times[len(times) // 2] if times else None,
            )
        )
    return figures


def report(paths: list[str]) -> str:
    """One Markdown row per game: proven wins and losses, undecided deals, and an honest 95% interval."""
    lines = [
        "| game | deals | won | proven lost | undecided | win rate, 95% | median s (won) |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in study_figures(paths):
        median = "-" if f.median_won_seconds is None else f"{f.median_won_seconds:.2f}"
        lines.append(
            f"| {f.game} | {f.deals} | {f.won} | {f.lost} | {f.unknown} | "
            f"{100 * f.low:.1f}% to {100 * f.high:.1f}% | {median} |"
        )
    return "\n".join(lines)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (0, 1 when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def solve_row(game: str, seed: int, seconds: float, max_nodes: int | None) -> dict[str, object]:
    """One study row: the solver's JSON, the length of the winning log, and how close it came."""
    result = solve(game, seed, seconds=seconds, max_nodes=max_nodes)
    line = result.to_json()
    line["length"] = len(result.moves) if result.moves else None
    # how close an undecided deal came (fewest cards left on any line searched)
    line["best_left"] = result.stats.get("best_left")
    # the budget asked for, so that --retry-unknown knows which undecided deals have had it
    line["budget_seconds"] = seconds
    line["budget_nodes"] = max_nodes
    del line["moves"]  # a study keeps figures; `solve` gives the log of any deal again
    return line


def _solve_one(args: tuple[str, int, float, int | None]) -> dict[str, object]:
    return solve_row(*args)


SOLVE_TASK = "solver_worker.solve_seed"  # solver_worker.tasks.solve_seed, named: the CLI imports no Django


def celery_app() -> Any:
    """A plain Celery client on the broker of ``REDIS_URL`` (also the result backend), no Django.

    Only sends ``solver_worker.solve_seed`` by name, to the queue ``CELERY_SOLVER_QUEUE`` (default
    ``solver``): the same variables, with the same defaults, as the workers' settings.
    """
    from celery import Celery

    url = os.environ.get("REDIS_URL")
    if not url:
        raise UsageError("--celery needs REDIS_URL: the broker the solver workers read")
    app = Celery("solver_worker.cli", broker=url, backend=url, set_as_current=False)
    app.conf.task_default_queue = os.environ.get("CELERY_SOLVER_QUEUE", "solver")
    return app


def _celery_rows(todo: list[tuple[str, int, float, int | None]], app: Any = None) -> Iterator[dict[str, object]]:
    """Send every deal as a ``solver_worker.solve_seed`` task; yield the rows as workers finish them.

    Any number of workers on any number of machines sharing the broker take part. A row
    is written to --out as it arrives, so an interrupted study resumes where it stopped.
    """
    app = app or celery_app()
    sent = [(app.send_task(SOLVE_TASK, args=list(job)), job) for job in todo]
    jobs = {result.id: job for result, job in sent}
    results = {result.id: result for result, _ in sent}
    while results:
        ready = [task_id for task_id, result in results.items() if result.ready()]
        for task_id in ready:
            row = results.pop(task_id).get(propagate=False)
            if isinstance(row, dict):
                yield row
            else:  # the task failed (a lost worker, a time limit): the deal is undecided
                game, seed, _, _ = jobs[task_id]
                yield {"game": game, "seed": seed, "status": "unknown", "error": str(row)}
        if not ready:
            time.sleep(0.2)


def study_lines(path: str, game: str | None = None) -> list[dict[str, object]]:
    """Every study row of a study file, in file order (of ``game`` only, if given). Lines that are
    not study rows are reported on stderr and skipped."""
    if not os.path.exists(path):
        return []
    try:
        with open(path, encoding="utf-8") as fh:
            lines = list(fh)
    except (OSError, UnicodeDecodeError) as exc:  # a directory, no permission, not text
        raise UsageError(f"cannot read the study file {path}: {exc}") from exc
    out = []
    for number, text in enumerate(lines, 1):
        text = text.strip()
        if not text:
            continue
        try:
            row = json.loads(text)
        except json.JSONDecodeError:
            row = None
        if not (isinstance(row, dict) and isinstance(row.get("game"), str) and isinstance(row.get("seed"), int)):
            print(f"{path}:{number}: not a study row, ignored", file=sys.stderr)
            continue
        if game is None or row["game"] == game:
            out.append(row)
    return out


def study_rows(path: str, game: str | None = None) -> dict[tuple[str, int], dict[str, object]]:
    """The row that counts for each (game, seed) of a study file (of ``game`` only, if
    given): the last one, except that an undecided row never replaces a decided one (see
    ``_replaces``). Lines that are not study rows are reported on stderr and skipped."""
    return _counting(study_lines(path, game))


def _counting(lines: Iterable[dict[str, object]]) -> dict[tuple[str, int], dict[str, object]]:
    """``study_rows`` of rows ``study_lines`` read (each has a str game and an int seed)."""
    rows: dict[tuple[str, int], dict[str, object]] = {}
    for row in lines:
        key = cast(tuple[str, int], (row["game"], row["seed"]))
        if _replaces(rows[key].get("status") if key in rows else None, row.get("status")):
            rows[key] = row
    return rows


def _had_budget(row: dict[str, object], seconds: float, max_nodes: int | None) -> bool:
    """Whether an undecided row's try had at least this budget (``None`` nodes: no bound). A row
    written before rows recorded their budget counts by the time it used (an undecided deal uses
    all of its time) and as having had no node bound."""
    budget = _number(row.get("budget_seconds", row.get("seconds")))
    nodes = row.get("budget_nodes")
    if budget is None or budget < 0.99 * seconds:
        return False
    return nodes is None or (type(nodes) is int and max_nodes is not None and nodes >= max_nodes)


def _number(value: object) -> float | None:
    """A study row's figure as a float, or None where it is not a JSON number (a string, null,
    true or false: a hand-edited or cut-off row)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _same_budget(row: dict[str, object], seconds: float, max_nodes: int | None) -> bool:
    """Whether an undecided row's try had exactly this budget (``--retry-all``: this pass's own rows)."""
    return row.get("budget_seconds") == seconds and row.get("budget_nodes") == max_nodes


def _read_done(
    path: str | None, game: str, retry: tuple[float, int | None] | None = None, *, every: bool = False
) -> dict[int, str]:
    """Status of each seed that ``path`` records. With ``retry`` (this run's seconds and node bound),
    undecided seeds are left out, to be solved again, unless one of their tries already had that
    budget (``every``: unless their latest try had exactly that budget)."""
    if not path:
        return {}
    lines = study_lines(path, game)
    rows = _counting(lines)
    if retry is None:
        return {seed: str(row.get("status")) for (_, seed), row in rows.items()}
    # --retry-unknown: any try that had the budget counts, also one followed by a shorter try (a
    # --retry-all pass); --retry-all: only the latest try, which is this pass's own once it ran
    tries: dict[object, list[dict[str, object]]] = {}
    if every:
        tries = {seed: [row] for (_, seed), row in rows.items()}
    else:
        for row in lines:
            if row.get("status") not in DECIDED:
                tries.setdefault(row["seed"], []).append(row)
    had = _same_budget if every else _had_budget
    return {
        seed: str(row.get("status"))
        for (_, seed), row in rows.items()
        if row.get("status") in DECIDED or any(had(t, *retry) for t in tries.get(seed, ()))
    }


DECIDED = ("solved", "unsolvable")


def _replaces(old: object, new: object) -> bool:
    """A later row for a seed replaces an earlier one, except that an undecided row never
    replaces a decided one (a win or a loss is a proof; "unknown" only says time ran out)."""
    return old is None or old not in DECIDED or new in DECIDED


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


def cmd_winnability(args: argparse.Namespace) -> int:
    seeds = range(args.start, args.start + args.deals)
    if seeds[-1] > 2**64 - 1:
        raise UsageError("--start + --deals goes past the largest seed 18446744073709551615")
    if args.retry_unknown and args.retry_all:
        raise UsageError("--retry-unknown and --retry-all are two ways to retry: give one")
    retry = (args.seconds, args.max_nodes) if args.retry_unknown or args.retry_all else None
    done = _read_done(args.out, args.game, retry, every=args.retry_all)
    counts = {"solved": 0, "unsolvable": 0, "unknown": 0}
    for seed in seeds:
        if seed in done and done[seed] in counts:
            counts[done[seed]] += 1
    todo = [(args.game, s, args.seconds, args.max_nodes) for s in seeds if s not in done]
    skipped = len(seeds) - len(todo)
    if skipped:
        print(f"{skipped} seeds already in {args.out}: skipped", file=sys.stderr)
    out = open(args.out, "a", encoding="utf-8") if args.out else None  # noqa: SIM115
    started = time.monotonic()
    finished = 0
    try:
        if todo:
            jobs = min(args.jobs, len(todo))
            pool = None
            rows: Iterable[dict[str, object]]
            if args.celery:
                rows = _celery_rows(todo)
            elif jobs == 1:
                rows = map(_solve_one, todo)
            else:
                pool = multiprocessing.Pool(jobs)
                rows = pool.imap_unordered(_solve_one, todo)
            try:
                for row in rows:
                    finished += 1
                    counts[str(row["status"])] += 1
                    if out is not None:
                        out.write(json.dumps(row) + "\n")
                        out.flush()
                    elapsed = time.monotonic() - started
                    print(
                        f"\r{finished}/{len(todo)} deals  won {counts['solved']}  lost {counts['unsolvable']}  "
                        f"unknown {counts['unknown']}  {elapsed:.0f}s",
                        end="",
                        file=sys.stderr,
                        flush=True,
                    )
            finally:
                if pool is not None:
                    pool.terminate()
                    pool.join()
            print(file=sys.stderr)
    finally:
        if out is not None:
            out.close()
    print(json.dumps(summary(args.game, counts)))
    return 0


def as_log_of(game: str, seed: int, weak: str, moves: list[str]) -> list[str]:
    """``moves``, a log of ``weak`` from the seed's deal, written as a log of ``game``, its stronger
    game: a draw of k cards becomes k draws of one where ``game`` draws one at a time. A log the
    weaker game refuses is returned as it is (the engine then refuses it under ``game`` too, or
    the caller's replay finds no win)."""
    if find_rules(game).draw == find_rules(weak).draw:
        return list(moves)
    state, out = State(deal(weak, seed)), []
    for text in moves:
        drawn = min(len(state.stock), state.rules.draw) if text == "s" else 1
        try:
            state.play_text(text)
        except ValueError:
            return list(moves)
        out.extend([text] * drawn)
    return out


def transfer(weak_path: str, strong_path: str, seconds: float) -> dict[str, int]:
    """Append to STRONG the wins of WEAK it lacks and to WEAK the losses of STRONG it lacks (see the
    module's docstring); only for seeds both files hold. A weaker game's win counts only once the
    solver finds a win again and the engine replays its log to a win under the stronger game's rules."""
    weak_rows, strong_rows = study_rows(weak_path), study_rows(strong_path)
    games = {g for g, _ in weak_rows}, {g for g, _ in strong_rows}
    if len(games[0]) != 1 or len(games[1]) != 1:
        raise UsageError("each file must be the study of one game")
    weak, strong = next(iter(games[0])), next(iter(games[1]))
    if weaker_game(find_rules(strong)) != weak:
        raise UsageError(f"{weak} is not a weaker game of {strong}: no verdict carries over")
    counts = {"wins": 0, "losses": 0, "not_found_again": 0}
    seeds = sorted({s for _, s in weak_rows} & {s for _, s in strong_rows})
    with open(strong_path, "a", encoding="utf-8") as out:
        for seed in seeds:
            if weak_rows[weak, seed].get("status") != "solved" or strong_rows[strong, seed].get("status") in DECIDED:
                continue
            result = solve(weak, seed, seconds=seconds)
            log = as_log_of(strong, seed, weak, list(result.moves or []))
            if result.status != "solved" or not wins(deal(strong, seed), log):
                counts["not_found_again"] += 1
                print(f"{weak} {seed}: no win found again in {seconds:g} s, left undecided", file=sys.stderr)
                continue
            row = {
                **result.to_json(),
                "game": strong,
                "difficulty": None,
                "length": len(log),
                "via": weak,
            }
            del row["moves"]
            out.write(json.dumps(row) + "\n")
            counts["wins"] += 1
    with open(weak_path, "a", encoding="utf-8") as out:
        for seed in seeds:
            if (
                strong_rows[strong, seed].get("status") != "unsolvable"
                or weak_rows[weak, seed].get("status") in DECIDED
            ):
                continue
            row = {"game": weak, "seed": seed, "status": "unsolvable", "nodes": 0, "seconds": 0.0, "via": strong}
            out.write(json.dumps(row) + "\n")
            counts["losses"] += 1
    return counts


def summary(game: str, counts: dict[str, int]) -> dict[str, object]:
    won, lost, unknown = counts["solved"], counts["unsolvable"], counts["unknown"]
    total = won + lost + unknown
    decided = won + lost
    low, high = wilson(won, decided)
    return {
        "game": game,
        "deals": total,
        "won": won,
        "lost": lost,
        "unknown": unknown,
        "win_rate": round(won / decided, 4) if decided else None,
        "wilson95": [round(low, 4), round(high, 4)] if decided else None,
        # every unknown counted as lost / as won: the true rate over these deals lies between
        "bounds": [round(won / total, 4), round((won + unknown) / total, 4)] if total else None,
    }


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
        return cmd_winnability(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
