"""How hard a deal is for people: the solver's features calibrated on past days' results.

The solver rates a deal 1..5 from its own effort (``solver.difficulty``: nodes by decades, moves per
card). Whether people win it is another matter, so once enough days are over the rating is
*calibrated*: a logistic model, fitted on past days by ``manage.py calibrate_difficulty``, predicts the
share of a day's ranked players who win from the deal's solver features:

    p(win) = 1 / (1 + exp(-(b0 + b1 * log10(1 + nodes) + b2 * plays per card + b3 * log2(1 + seeds skipped)
                            + b4 * klondike)))

(``seeds skipped``: the seeds proven unwinnable before the day's deal was found, a sign of a game whose
deals are often lost; ``klondike``: 1 for the two Klondikes, whose face-down cards make people lose deals
the solver wins). It is fitted by maximum likelihood on every (day, game) over with at least
``MIN_PLAYERS`` ranked results, each weighted by its players (binomial), with Newton's method and a small
ridge term: a few lines of arithmetic, no library. The calibrated rating maps the predicted win rate to
1..5 (``RATING_FLOORS``). Until ``MIN_DAYS`` such days exist the model is not used and every challenge
shows the solver's own rating (``calibrated: false``).

The fitted model is a JSON file (``settings.DIFFICULTY_MODEL``, default ``docs/difficulty/model.json``);
the command also draws the fit (``docs/difficulty/fit.svg``: observed against predicted win rate).
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FEATURES = ["bias", "log10_nodes", "plays_per_card", "log2_seeds_skipped", "klondike"]
MIN_PLAYERS = 10  # a day with fewer ranked results says too little about its deal
MIN_DAYS = 30  # (day, game) pairs with MIN_PLAYERS results before the calibrated rating is used
RIDGE = 0.01
# Predicted win rate -> rating: at least 0.8 is 1 (easy), 0.6 is 2, 0.4 is 3, 0.2 is 4, below is 5.
RATING_FLOORS = [(0.8, 1), (0.6, 2), (0.4, 3), (0.2, 4)]


def features(*, game: str, nodes: int, solution: Sequence[str], cards: int, seeds_skipped: int) -> list[float]:
    """The model's inputs for one deal (see the module's doc)."""
    plays = sum(1 for move in solution if move not in ("s", "r"))
    return [
        1.0,
        math.log10(1 + max(nodes, 0)),
        plays / cards if cards else 0.0,
        math.log2(1 + max(seeds_skipped, 0)),
        1.0 if game.startswith("klondike") else 0.0,
    ]


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    e = math.exp(z)
    return e / (1 + e)


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the matrix is small and positive definite)."""
    n = len(vector)
    a = [[*row, vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            for c in range(col, n + 1):
                a[r][c] -= factor * a[col][c]
    out = [0.0] * n
    for r in range(n - 1, -1, -1):
        out[r] = (a[r][n] - sum(a[r][c] * out[c] for c in range(r + 1, n))) / a[r][r]
    return out


@dataclass(frozen=True)
class Day:
    """One (day, game) of history: the deal's features, and how many ranked players won of how many."""

    x: list[float]
    players: int
    won: int
    label: str = ""


def fit(days: Sequence[Day], *, iterations: int = 50) -> list[float]:
    """Maximum-likelihood coefficients (binomial, weighted by players) with a small ridge (not on the bias)."""
    k = len(FEATURES)
    beta = [0.0] * k
    for _ in range(iterations):
        grad = [0.0] * k
        hess = [[0.0] * k for _ in range(k)]
        for day in days:
            p = _sigmoid(sum(b * v for b, v in zip(beta, day.x, strict=True)))
            w = day.players * p * (1 - p)
            for i in range(k):
                grad[i] += (day.won - day.players * p) * day.x[i]
                for j in range(k):
                    hess[i][j] += w * day.x[i] * day.x[j]
        for i in range(1, k):
            grad[i] -= RIDGE * beta[i]
            hess[i][i] += RIDGE
        for i in range(k):
            hess[i][i] += 1e-9
        step = _solve(hess, grad)
        beta = [b + s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-9:
            break
    return beta


def predict(coefficients: Sequence[float], x: Sequence[float]) -> float:
    return _sigmoid(sum(b * v for b, v in zip(coefficients, x, strict=True)))


def rating(win_rate: float) -> int:
    """1 (most players win) .. 5 (few do)."""
    for floor, value in RATING_FLOORS:
        if win_rate >= floor:
            return value
    return 5


@dataclass(frozen=True)
class Model:
    coefficients: list[float]
    days: int  # (day, game) pairs it was fitted on
    players: int
    fitted_at: str

    @property
    def usable(self) -> bool:
        return self.days >= MIN_DAYS

    def to_json(self) -> dict[str, Any]:
        return {
            "features": FEATURES,
            "coefficients": self.coefficients,
            "days": self.days,
            "players": self.players,
            "fitted_at": self.fitted_at,
            "min_days": MIN_DAYS,
            "min_players": MIN_PLAYERS,
        }


def model_load(path: Path) -> Model | None:
    """The fitted model, or None when there is none (or it is unreadable, or of other features)."""
    try:
        data = json.loads(path.read_text())
        if data["features"] != FEATURES or len(data["coefficients"]) != len(FEATURES):
            return None
        return Model(
            coefficients=[float(c) for c in data["coefficients"]],
            days=int(data["days"]),
            players=int(data["players"]),
            fitted_at=str(data["fitted_at"]),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def fit_svg(days: Sequence[Day], coefficients: Sequence[float]) -> str:
    """Observed against predicted win rate, one dot per (day, game) sized by its players, and the diagonal."""
    size, pad = 420, 50
    span = size - 2 * pad

    def xy(predicted: float, observed: float) -> tuple[float, float]:
        return pad + predicted * span, size - pad - observed * span

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" '
        'font-family="sans-serif" font-size="12">',
        f'<rect x="{pad}" y="{pad}" width="{span}" height="{span}" fill="none" stroke="#888"/>',
        f'<line x1="{pad}" y1="{size - pad}" x2="{size - pad}" y2="{pad}" stroke="#bbb" stroke-dasharray="4 3"/>',
        f'<text x="{size / 2}" y="{size - 12}" text-anchor="middle">predicted win rate</text>',
        f'<text x="14" y="{size / 2}" text-anchor="middle" transform="rotate(-90 14 {size / 2})">'
        "observed win rate</text>",
        f'<text x="{size / 2}" y="24" text-anchor="middle">Difficulty model: {len(days)} days</text>',
    ]
    for tick in (0, 0.5, 1):
        x, y = xy(tick, tick)
        out.append(f'<text x="{x}" y="{size - pad + 16}" text-anchor="middle">{tick:g}</text>')
        out.append(f'<text x="{pad - 6}" y="{y + 4}" text-anchor="end">{tick:g}</text>')
    for day in days:
        x, y = xy(predict(coefficients, day.x), day.won / day.players)
        r = 2 + min(6, math.sqrt(day.players) / 4)
        out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="#2a6" fill-opacity="0.5"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# -- the fitting code's check on synthetic history (tests, and docs/difficulty/fit-synthetic.svg) -------

EXAMPLE = [4.0, -0.6, -1.0, -0.3, -0.8]  # a known model the synthetic days are drawn from


def synthetic_days(n: int, seed: int, coefficients: Sequence[float] = EXAMPLE) -> list[Day]:
    """``n`` days of made-up deals and players, each player winning with the model's probability."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        x = [1.0, rng.uniform(1, 6), rng.uniform(0.9, 1.8), rng.uniform(0, 4), float(i % 3 == 0)]
        players = rng.randint(40, 400)
        p = predict(coefficients, x)
        out.append(Day(x=x, players=players, won=sum(1 for _ in range(players) if rng.random() < p)))
    return out


if __name__ == "__main__":  # python -m games.difficulty docs/difficulty/fit-synthetic.svg
    days = synthetic_days(300, 7)
    fitted = fit(days)
    Path(sys.argv[1]).write_text(fit_svg(days, fitted).replace("Difficulty model:", "Fit on synthetic history:"))
    print("fitted", [round(c, 3) for c in fitted], "true", EXAMPLE)
