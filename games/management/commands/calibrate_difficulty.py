"""Fit the difficulty model (``games.difficulty``) on the days that are over, write it and its plot.

    python manage.py calibrate_difficulty [--model PATH] [--plot PATH]

What beat runs every 6 hours (``games.calibrate_difficulty``): ``games.services.calibration``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from games.services.calibration import difficulty_calibrate


class Command(BaseCommand):
    help = "Fit the difficulty model on past days' results (games.difficulty) and draw its fit."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--model", type=Path, default=None, help="default: settings.DIFFICULTY_MODEL")
        parser.add_argument("--plot", type=Path, default=None, help="default: fit.svg beside the model")

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(difficulty_calibrate(model_path=options["model"], plot_path=options["plot"]))
