"""Fit the difficulty model (``games.difficulty``) on the days that are over, write it and its plot.

    python manage.py calibrate_difficulty [--model PATH] [--plot PATH]

Every (day, game) over with at least ``MIN_PLAYERS`` ranked results on the boards is a data point; the
model is written (with how many days it saw) even when it has fewer than ``MIN_DAYS``, but challenges
use it only from ``MIN_DAYS`` on. Run it after midnight (beat, or cron): new days get the calibrated
rating as soon as the file changes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand
from django.db.models import Count, Q
from django.utils import timezone

from games import days, difficulty, stats
from games.models import Challenge
from games.selectors import board_results


def history() -> list[difficulty.Day]:
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


class Command(BaseCommand):
    help = "Fit the difficulty model on past days' results (games.difficulty) and draw its fit."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--model", type=Path, default=None, help="default: settings.DIFFICULTY_MODEL")
        parser.add_argument("--plot", type=Path, default=None, help="default: fit.svg beside the model")

    def handle(self, *args: Any, **options: Any) -> None:
        model_path: Path = options["model"] or stats.model_path()
        plot_path: Path = options["plot"] or model_path.with_name("fit.svg")
        data = history()
        if not data:
            self.stdout.write(f"no day over has {difficulty.MIN_PLAYERS} ranked results yet: nothing to fit")
            return
        coefficients = difficulty.fit(data)
        model = difficulty.Model(
            coefficients=coefficients,
            days=len(data),
            players=sum(d.players for d in data),
            fitted_at=timezone.now().isoformat(),
        )
        model_path.parent.mkdir(parents=True, exist_ok=True)
        model_path.write_text(json.dumps(model.to_json(), indent=1) + "\n")
        plot_path.write_text(difficulty.fit_svg(data, coefficients))
        state = "in use" if model.usable else f"not used until {difficulty.MIN_DAYS} days"
        self.stdout.write(f"fitted on {model.days} days ({model.players} players), {state}: {model_path}, {plot_path}")
