"""Reads of a day that is over: how its players did (share won, histograms of moves and times) and how
hard its deal was (the solver's rating, and the calibrated one of ``games.difficulty``)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from django.conf import settings

from engine import find_rules
from games import days, difficulty
from games.errors import NotFound
from games.models import Challenge
from games.selectors import board_results

BINS = 10


def model_path() -> Path:
    return Path(getattr(settings, "DIFFICULTY_MODEL", settings.BASE_DIR / "docs" / "difficulty" / "model.json"))


@lru_cache(maxsize=4)
def _model(path: str, mtime: float) -> difficulty.Model | None:
    return difficulty.model_load(Path(path))


def difficulty_model() -> difficulty.Model | None:
    """The fitted model (read again when its file changes), or None."""
    path = model_path()
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return None
    return _model(str(path), mtime)


def challenge_features(challenge: Challenge) -> list[float]:
    return difficulty.features(
        game=challenge.game,
        nodes=challenge.solver_nodes,
        solution=challenge.solution,
        cards=find_rules(challenge.game).cards,
        seeds_skipped=challenge.seeds_lost,
    )


@dataclass(frozen=True)
class Rating:
    value: int | None  # what the challenge shows: the calibrated rating once the model is usable
    solver: int | None  # the solver's own rating (solver.difficulty)
    calibrated: bool
    predicted_win_rate: float | None
    model_days: int
    min_days: int = difficulty.MIN_DAYS


def challenge_rating(challenge: Challenge) -> Rating:
    model = difficulty_model()
    if model is None or not model.usable or challenge.difficulty is None:
        return Rating(
            value=challenge.difficulty,
            solver=challenge.difficulty,
            calibrated=False,
            predicted_win_rate=None,
            model_days=0 if model is None else model.days,
        )
    p = difficulty.predict(model.coefficients, challenge_features(challenge))
    return Rating(
        value=difficulty.rating(p),
        solver=challenge.difficulty,
        calibrated=True,
        predicted_win_rate=round(p, 4),
        model_days=model.days,
    )


def _nice_width(span: int) -> int:
    """The smallest of 1, 2, 5, 10, 20, 50, ... that cuts ``span`` into at most BINS bins."""
    step = 1
    while True:
        for m in (1, 2, 5):
            if math.ceil(span / (step * m)) <= BINS:
                return step * m
        step *= 10


def histogram(values: list[tuple[int, bool]], *, mine: int | None) -> dict[str, Any]:
    """Bins ``[low, high)`` of equal round width over the values, each with its players and winners."""
    if not values:
        return {"width": 0, "bins": [], "mine": None}
    low, high = min(v for v, _ in values), max(v for v, _ in values)
    width = _nice_width(high - low + 1)
    start = low // width * width
    count = (high - start) // width + 1
    bins = [{"low": start + i * width, "high": start + (i + 1) * width, "players": 0, "won": 0} for i in range(count)]
    for value, won in values:
        b = bins[(value - start) // width]
        b["players"] += 1
        b["won"] += int(won)
    index = None if mine is None else (mine - start) // width
    return {"width": width, "bins": bins, "mine": index if index is not None and 0 <= index < count else None}


def challenge_stats(*, challenge: Challenge, viewer: object) -> dict[str, Any]:
    """The day's statistics (once it is over; NotFound before, with when): every ranked result on the
    boards (the assisted ones too; held or disqualified ones not), and the viewer's own, marked."""
    if not days.is_over(challenge.date):
        raise NotFound(
            f"the statistics of the {challenge.game} challenge of {challenge.date} are published once that day is over",
            details=days.after_the_day(challenge.date),
        )
    rows = list(board_results().filter(challenge=challenge).values_list("player_id", "won", "moves", "play_time_ms"))
    me = None
    viewer_id = getattr(viewer, "pk", None) if getattr(viewer, "is_authenticated", False) else None
    mine = next((r for r in rows if r[0] == viewer_id), None)
    moves = histogram([(m, w) for _, w, m, _ in rows], mine=None if mine is None else mine[2])
    times = histogram([(t // 1000, w) for _, w, _, t in rows], mine=None if mine is None else mine[3] // 1000)
    if mine is not None:
        me = {
            "won": mine[1],
            "moves": mine[2],
            "play_time_ms": mine[3],
            "moves_bin": moves["mine"],
            "time_bin": times["mine"],
        }
    players, won = len(rows), sum(1 for r in rows if r[1])
    rating = challenge_rating(challenge)
    return {
        "date": challenge.date,
        "game": challenge.game,
        "players": players,
        "won": won,
        "win_rate": round(won / players, 4) if players else None,
        "moves": moves,
        "seconds": times,
        "me": me,
        "difficulty": {
            "rating": rating.value,
            "solver": rating.solver,
            "calibrated": rating.calibrated,
            "predicted_win_rate": rating.predicted_win_rate,
            "model_days": rating.model_days,
            "min_days": rating.min_days,
            "solver_nodes": challenge.solver_nodes,
            "solution_moves": len(challenge.solution),
            "seeds_skipped": challenge.seeds_lost,
        },
    }
