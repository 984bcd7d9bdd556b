"""The winnability study (the pure package ``study``) spread over the solver workers.

Every deal goes out as a ``solver_worker.solve_seed`` task (which runs ``study.rows.solve_row``) to
every worker on the broker that reads the queue, on any number of machines; each row comes back
through the result backend and is written to the study file as it arrives, so an interrupted study
resumes from the file (``manage.py study_on_workers``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from solver_worker.tasks import solve_seed
from study.rows import Row
from study.winnability import Job


def study_rows_on_workers(todo: list[Job], *, queue: str, poll_seconds: float = 0.2) -> Iterator[Row]:
    """Send every job of ``todo`` to ``queue``; yield the rows as workers finish them, in that order.

    A task that failed (a lost worker, a time limit) is an undecided deal: a row ``unknown`` with
    the error, which a later run with ``--retry-unknown`` tries again."""
    sent = {}
    for job in todo:
        result = solve_seed.apply_async(args=list(job), queue=queue)
        sent[result.id] = (result, job)
    while sent:
        ready = [task_id for task_id, (result, _) in sent.items() if result.ready()]
        for task_id in ready:
            result, (game, seed, _, _) = sent.pop(task_id)
            row = result.get(propagate=False)
            result.forget()  # read: nothing left in the result backend
            yield row if isinstance(row, dict) else {"game": game, "seed": seed, "status": "unknown", "error": str(row)}
        if not ready:
            time.sleep(poll_seconds)
