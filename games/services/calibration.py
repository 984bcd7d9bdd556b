"""The difficulty model fitted on the days that are over (``games.difficulty``), written where every process
reads it (``settings.DIFFICULTY_MODEL``: in production, a volume shared by the web and the workers).

Run by beat (``games.calibrate_difficulty``, every 6 hours, so a day's end in any time zone is in the fit
within hours), by ``manage.py keep_days_ready`` (the same schedule) and by ``manage.py calibrate_difficulty``.
Every (day, game) over with at least ``MIN_PLAYERS`` ranked results on the boards is a data point; the
model is written (with how many days it saw) even when it has fewer than ``MIN_DAYS``, but challenges
use it only from ``MIN_DAYS`` on. Readers take a new model as soon as the file changes (``games.stats``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from django.db.models import Count, Q
from django.utils import timezone

from games import days, difficulty, stats
from games.models import Challenge
from games.selectors import board_results


def difficulty_history() -> list[difficulty.Day]:
    """The data points: each day over, with its players and winners on the board."""
    counts = {
        row["challenge_id"]: row
        for row in board_results()
        .filter(challenge__date__lt=days.today())
        .values("challenge_id")
        .annotate(players=Count("id"), won=Count("id", filter=Q(won=True)))
        if row["players"] >= difficulty.MIN_PLAYERS
    }
    out = []
    for challenge in Challenge.objects.filter(pk__in=list(counts), difficulty__isnull=False).order_by("date", "game"):
        row = counts[challenge.pk]
        out.append(
            difficulty.Day(
                x=stats.challenge_features(challenge),
                players=row["players"],
                won=row["won"],
                label=f"{challenge.date} {challenge.game}",
            )
        )
    return out


def difficulty_calibrate(*, model_path: Path | None = None, plot_path: Path | None = None) -> str:
    """Fit and write the model and its plot (default: ``settings.DIFFICULTY_MODEL``, fit.svg beside it);
    says what it did. The files are replaced whole (written aside, then renamed): a reader never sees half."""
    model_path = model_path or stats.model_path()
    plot_path = plot_path or model_path.with_name("fit.svg")
    data = difficulty_history()
    if not data:
        return f"no day over has {difficulty.MIN_PLAYERS} ranked results yet: nothing to fit"
    coefficients = difficulty.fit(data)
    model = difficulty.Model(
        coefficients=coefficients,
        days=len(data),
        players=sum(d.players for d in data),
        fitted_at=timezone.now().isoformat(),
    )
    model_path.parent.mkdir(parents=True, exist_ok=True)
    _replace(plot_path, difficulty.fit_svg(data, coefficients))
    _replace(model_path, json.dumps(model.to_json(), indent=1) + "\n")
    state = "in use" if model.usable else f"not used until {difficulty.MIN_DAYS} days"
    return f"fitted on {model.days} days ({model.players} players), {state}: {model_path}, {plot_path}"


def _replace(path: Path, text: str) -> None:
    aside = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    aside.write_text(text)
    os.replace(aside, path)
