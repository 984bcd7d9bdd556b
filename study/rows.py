"""Study rows and study files.

A study file holds one JSON object a line, one a solved deal (``solve_row``): the solver's figures
(``game``, ``seed``, ``status``, ``nodes``, ``seconds``, ...), the winning log's length, how close an
undecided deal came, and the budget it had. Files are appended to, never rewritten, so a seed may
have several rows: the one that counts is the last, except that an undecided row never replaces a
decided one (a win or a loss is a proof; "unknown" only says the budget ran out).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from typing import cast

from solver import solve

Row = dict[str, object]
DECIDED = ("solved", "unsolvable")


class StudyError(Exception):
    """A study file that cannot be read, or a request on studies that cannot be carried out; the
    command line prints its message and exits with status 2."""


def solve_row(game: str, seed: int, seconds: float, max_nodes: int | None) -> Row:
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


def study_lines(path: str, game: str | None = None) -> list[Row]:
    """Every study row of a study file, in file order (of ``game`` only, if given). Lines that are
    not study rows are reported on stderr and skipped."""
    if not os.path.exists(path):
        return []
    try:
        with open(path, encoding="utf-8") as fh:
            lines = list(fh)
    except (OSError, UnicodeDecodeError) as exc:  # a directory, no permission, not text
        raise StudyError(f"cannot read the study file {path}: {exc}") from exc
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


def study_rows(path: str, game: str | None = None) -> dict[tuple[str, int], Row]:
    """The row that counts for each (game, seed) of a study file (of ``game`` only, if
    given): the last one, except that an undecided row never replaces a decided one (see
    ``replaces``). Lines that are not study rows are reported on stderr and skipped."""
    return counting(study_lines(path, game))


def counting(lines: Iterable[Row]) -> dict[tuple[str, int], Row]:
    """``study_rows`` of rows ``study_lines`` read (each has a str game and an int seed)."""
    rows: dict[tuple[str, int], Row] = {}
    for row in lines:
        key = cast(tuple[str, int], (row["game"], row["seed"]))
        if replaces(rows[key].get("status") if key in rows else None, row.get("status")):
            rows[key] = row
    return rows


def replaces(old: object, new: object) -> bool:
    """A later row for a seed replaces an earlier one, except that an undecided row never
    replaces a decided one (a win or a loss is a proof; "unknown" only says time ran out)."""
    return old is None or old not in DECIDED or new in DECIDED


def number(value: object) -> float | None:
    """A study row's figure as a float, or None where it is not a JSON number (a string, null,
    true or false: a hand-edited or cut-off row)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _had_budget(row: Row, seconds: float, max_nodes: int | None) -> bool:
    """Whether an undecided row's try had at least this budget (``None`` nodes: no bound). A row
    written before rows recorded their budget counts by the time it used (an undecided deal uses
    all of its time) and as having had no node bound."""
    budget = number(row.get("budget_seconds", row.get("seconds")))
    nodes = row.get("budget_nodes")
    if budget is None or budget < 0.99 * seconds:
        return False
    return nodes is None or (type(nodes) is int and max_nodes is not None and nodes >= max_nodes)


def _same_budget(row: Row, seconds: float, max_nodes: int | None) -> bool:
    """Whether an undecided row's try had exactly this budget (``--retry-all``: this pass's own rows)."""
    return row.get("budget_seconds") == seconds and row.get("budget_nodes") == max_nodes


def read_done(
    path: str | None, game: str, retry: tuple[float, int | None] | None = None, *, every: bool = False
) -> dict[int, str]:
    """Status of each seed that ``path`` records. With ``retry`` (this run's seconds and node bound),
    undecided seeds are left out, to be solved again, unless one of their tries already had that
    budget (``every``: unless their latest try had exactly that budget)."""
    if not path:
        return {}
    lines = study_lines(path, game)
    rows = counting(lines)
    if retry is None:
        return {seed: str(row.get("status")) for (_, seed), row in rows.items()}
    # --retry-unknown: any try that had the budget counts, also one followed by a shorter try (a
    # --retry-all pass); --retry-all: only the latest try, which is this pass's own once it ran
    tries: dict[object, list[Row]] = {}
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
