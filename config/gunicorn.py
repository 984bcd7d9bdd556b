"""gunicorn settings (``gunicorn -c config/gunicorn.py config.wsgi``): behind nginx, Prometheus across workers.

gunicorn serves only nginx (config/nginx/nginx.conf.template), never a client: nginx reads each
request whole before passing it on and takes each answer whole into its buffers, so a worker never
waits on a slow client (README "Slow clients"). Hence gunicorn's own threaded worker, ``gthread``:
measured against ``sync`` behind the proxy (bench/web_workers.py; docs/scaling.md, "Web workers"),
it costs less worker CPU per request and keeps its connections to nginx open between requests.

With ``PROMETHEUS_MULTIPROC_DIR`` set, every worker writes its metrics to files there and a scrape
of any worker sums them all (config/metrics.py). The directory is emptied when the server starts
(stale files would add a previous run's counts) and a dead worker's live gauges are dropped.

Logs: gunicorn's own lines and its access lines go through the service's logging (``logconfig_dict``:
config/logs.py), text or, with ``LOG_FORMAT=json``, one JSON object per line; an access line carries
the request's ``X-Request-ID``, as the request's own lines and the proxy's access line do.
"""

import os
import shutil
from pathlib import Path

from gunicorn.glogging import Logger

from config.logs import gunicorn_logging

logconfig_dict = gunicorn_logging(
    fmt=os.environ.get("LOG_FORMAT", "text"), level=os.environ.get("DJANGO_LOG_LEVEL", "INFO")
)


class AccessOnRequest(Logger):
    """Access lines only when asked for (``--access-logfile``, as docker-compose.yml does), as gunicorn
    writes them without ``logconfig_dict``: with it, gunicorn would write one for every request."""

    def access(self, resp: object, req: object, environ: object, request_time: object) -> None:
        if self.cfg.accesslog:
            super().access(resp, req, environ, request_time)


logger_class = AccessOnRequest

worker_class = "gthread"
# Threads per worker: while one waits on PostgreSQL or Redis another runs. Each keeps its own database
# connection (CONN_MAX_AGE): workers x threads connections.
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# Longer than nginx keeps an idle connection to gunicorn open (upstream keepalive_timeout 50s), so
# gunicorn never closes one just as nginx sends a request on it.
keepalive = 75


def on_starting(server: object) -> None:
    path = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if path:
        shutil.rmtree(path, ignore_errors=True)
        Path(path).mkdir(parents=True, exist_ok=True)


def child_exit(server: object, worker: object) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined,no-untyped-call]
