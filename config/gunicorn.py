"""gunicorn settings (``gunicorn -c config/gunicorn.py config.wsgi``): slow clients, Prometheus across workers.

With ``PROMETHEUS_MULTIPROC_DIR`` set, every worker writes its metrics to files there and a scrape
of any worker sums them all (config/metrics.py). The directory is emptied when the server starts
(stale files would add a previous run's counts) and a dead worker's live gauges are dropped.
"""

import os
import shutil
from pathlib import Path

# Threads whose event loop reads each request whole before a thread serves it: clients that trickle
# their headers or body hold no thread (config/gunicorn_worker.py; README "Slow clients").
worker_class = "config.gunicorn_worker.BufferingThreadWorker"
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
keepalive = 5


def on_starting(server: object) -> None:
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        shutil.rmtree(path, ignore_errors=True)
        Path(path).mkdir(parents=True, exist_ok=True)


def child_exit(server: object, worker: object) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]
