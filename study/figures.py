"""The study's figures: win rates with honest 95% intervals, per game, and the Markdown table."""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine import GAME_IDS
from study.rows import Row, number, replaces, study_rows


@dataclass(frozen=True)
class StudyFigures:
    """One game's figures over the study files: what ``report`` prints and ``plot`` draws."""

    game: str
    deals: int
    won: int
    lost: int
    unknown: int
    low: float  # 95% Wilson lower bound of the proven wins
    high: float  # 95% Wilson upper bound of the wins plus the undecided deals
    median_won_seconds: float | None


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion (0, 1 when n is 0).

    >>> low, high = wilson(90, 100)
    >>> round(low, 3), round(high, 3)
    (0.826, 0.945)
    """
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def study_figures(paths: list[str]) -> list[StudyFigures]:
    """Per game (in GAME_IDS order), from the rows that count across all the files.

    The interval runs from the Wilson lower bound of the proven wins to the Wilson upper
    bound of wins plus undecided deals, over all deals: undecided deals are never counted
    as wins, but they may be.
    """
    rows: dict[str, dict[int, Row]] = {}
    for path in paths:
        for (game, seed), row in study_rows(path).items():
            games = rows.setdefault(game, {})
            if replaces(games[seed].get("status") if seed in games else None, row.get("status")):
                games[seed] = row  # across files too, a proof is never replaced by an undecided row
    figures = []
    for game in [g for g in GAME_IDS if g in rows]:
        deals = list(rows[game].values())
        # a row without a status is undecided (study_rows keeps any row with a game and a seed)
        won = sum(1 for r in deals if r.get("status") == "solved")
        lost = sum(1 for r in deals if r.get("status") == "unsolvable")
        unknown = len(deals) - won - lost
        times = sorted(t for r in deals if r.get("status") == "solved" and (t := number(r.get("seconds"))) is not None)
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


def summary(game: str, counts: dict[str, int]) -> dict[str, object]:
    """A run's summary: won, lost and undecided deals, the win rate over decided deals with its 95%
    Wilson interval, and bounds over all deals that count every undecided one as lost / as won."""
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
