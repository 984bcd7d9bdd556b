"""``manage.py study_on_workers``: a winnability run (``python -m study winnability``) solved by the
solver workers instead of local processes.

    manage.py study_on_workers GAME --deals N --seconds S [--start SEED] [--max-nodes N]
                               [--out FILE.jsonl] [--retry-unknown | --retry-all] [--queue NAME]

The deals go out as ``solver_worker.solve_seed`` tasks to every worker on the broker (``REDIS_URL``)
that reads ``--queue`` (default ``CELERY_SOLVER_QUEUE``; a queue of the study's own, read by workers
started for it, keeps a long study from holding up the service's reviews and seed checks). Rows are
appended to ``--out`` as they come back, so an interrupted study resumes from the file; the summary is
``python -m study winnability``'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from solver_worker.studies import study_rows_on_workers
from solver_worker.tasks import solve_seed
from study.cli import winnability_arguments
from study.rows import Row, StudyError
from study.winnability import Job, winnability


class Command(BaseCommand):
    help = "A winnability study solved by the solver workers on the broker; rows appended to --out as they come."

    def add_arguments(self, parser: CommandParser) -> None:
        winnability_arguments(parser, local=False)
        parser.add_argument("--queue", default=None, help="the queue the workers read (default CELERY_SOLVER_QUEUE)")

    def handle(self, *args: Any, **options: Any) -> None:
        if solve_seed.app.conf.task_always_eager:
            raise CommandError("needs REDIS_URL: the broker the solver workers read (without it, nothing is sent)")
        queue = options["queue"] or settings.CELERY_SOLVER_QUEUE

        def rows_of(todo: list[Job]) -> Iterator[Row]:
            return study_rows_on_workers(todo, queue=queue)

        try:
            run = winnability(
                game=options["game"],
                deals=options["deals"],
                seconds=options["seconds"],
                start=options["start"],
                max_nodes=options["max_nodes"],
                out=options["out"],
                retry_unknown=options["retry_unknown"],
                retry_all=options["retry_all"],
                rows_of=rows_of,
            )
        except StudyError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(run))
