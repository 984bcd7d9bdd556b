"""A winnability run: seeds START..START+N-1 of one game solved, one study row each, appended to a
study file as they come (seeds already there are skipped, so a run resumes), with a progress line on
stderr, and the run's summary (``figures.summary``).

The rows come from local processes (``solve_row`` in a pool) or from any other source given as
``rows_of``: the service's solver workers are one (``manage.py study_on_workers``).
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from collections.abc import Callable, Iterable
from multiprocessing.pool import Pool

from engine.rng import SEED_MAX
from study.figures import summary
from study.rows import Row, StudyError, read_done, solve_row

Job = tuple[str, int, float, int | None]  # game, seed, seconds, max_nodes: ``solve_row``'s arguments
RowsOf = Callable[[list[Job]], Iterable[Row]]  # a row for each job, in any order


def _solve_one(job: Job) -> Row:
    return solve_row(*job)


def local_rows(todo: list[Job], jobs: int) -> tuple[Iterable[Row], Pool | None]:
    """The rows of ``todo`` solved here, in ``jobs`` processes (in this one for a single job), and the
    pool to end once they are read."""
    jobs = min(jobs, len(todo))
    if jobs <= 1:
        return map(_solve_one, todo), None
    pool = multiprocessing.Pool(jobs)
    return pool.imap_unordered(_solve_one, todo), pool


def winnability(
    *,
    game: str,
    deals: int,
    seconds: float,
    start: int = 0,
    jobs: int = 1,
    max_nodes: int | None = None,
    out: str | None = None,
    retry_unknown: bool = False,
    retry_all: bool = False,
    rows_of: RowsOf | None = None,
) -> dict[str, object]:
    """Solve the seeds of the run that ``out`` does not record yet and return its summary.

    ``retry_unknown``: the undecided seeds too, unless one of their tries already had this budget
    (a stopped retry resumes); ``retry_all``: every undecided seed, whatever budget it had, unless
    its latest try had exactly this one (after a change to the solver). A decided row is a proof and
    is never replaced. ``rows_of``: where the rows come from instead of ``jobs`` local processes.
    """
    seeds = range(start, start + deals)
    if seeds[-1] > SEED_MAX:
        raise StudyError(f"--start + --deals goes past the largest seed {SEED_MAX}")
    if retry_unknown and retry_all:
        raise StudyError("--retry-unknown and --retry-all are two ways to retry: give one")
    retry = (seconds, max_nodes) if retry_unknown or retry_all else None
    done = read_done(out, game, retry, every=retry_all)
    counts = {"solved": 0, "unsolvable": 0, "unknown": 0}
    for seed in seeds:
        if seed in done and done[seed] in counts:
            counts[done[seed]] += 1
    todo: list[Job] = [(game, s, seconds, max_nodes) for s in seeds if s not in done]
    skipped = len(seeds) - len(todo)
    if skipped:
        print(f"{skipped} seeds already in {out}: skipped", file=sys.stderr)
    if todo:
        _run(todo, counts, out, rows_of(todo) if rows_of else None, jobs)
    return summary(game, counts)


def _run(todo: list[Job], counts: dict[str, int], out: str | None, rows: Iterable[Row] | None, jobs: int) -> None:
    """Count and write the rows of ``todo`` as they come (``rows``, or solved here in ``jobs`` processes)."""
    pool = None
    if rows is None:
        rows, pool = local_rows(todo, jobs)
    fh = open(out, "a", encoding="utf-8") if out else None  # noqa: SIM115
    started = time.monotonic()
    try:
        for finished, row in enumerate(rows, 1):
            counts[str(row["status"])] += 1
            if fh is not None:
                fh.write(json.dumps(row) + "\n")
                fh.flush()
            print(
                f"\r{finished}/{len(todo)} deals  won {counts['solved']}  lost {counts['unsolvable']}  "
                f"unknown {counts['unknown']}  {time.monotonic() - started:.0f}s",
                end="",
                file=sys.stderr,
                flush=True,
            )
        print(file=sys.stderr)
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
        if fh is not None:
            fh.close()
