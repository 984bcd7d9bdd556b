"""Structured logs: a request id per HTTP request, the task id per Celery task, JSON lines on demand.

- ``RequestIdMiddleware`` takes the request's ``X-Request-ID`` when it is a sane token (letters,
  digits, ``.``, ``_``, ``-``, ``:``; at most 128 characters), else makes one (32 hex digits), keeps it
  in a context variable until the response is closed and sends it back as ``X-Request-ID``.
- Celery's ``task_prerun`` / ``task_postrun`` signals put the task's id and name in context variables.
- ``ContextFilter`` (on the console handler) copies both onto every record, whichever logger made it.
- ``JsonFormatter`` writes one JSON object per line (``LOG_FORMAT=json``): ``ts``, ``level``,
  ``logger``, ``message``, ``request_id`` / ``task_id`` / ``task`` when set, ``exc`` for a traceback.
- gunicorn logs through the same handler (``gunicorn_logging``, config/gunicorn.py); its access lines
  add ``method``, ``path``, ``status``, ``bytes``, ``seconds``, ``client`` and the response's request id.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import uuid
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import Any

from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponse

request_id_var: ContextVar[str | None] = ContextVar("request_id", default=None)
task_id_var: ContextVar[str | None] = ContextVar("task_id", default=None)
task_name_var: ContextVar[str | None] = ContextVar("task_name", default=None)

REQUEST_ID_HEADER = "X-Request-ID"
_SANE_ID = re.compile(r"[A-Za-z0-9._:\-]{1,128}")


def request_id_from(value: str | None) -> str:
    """The incoming id if it is safe to log and echo, else a new one."""
    if value and _SANE_ID.fullmatch(value):
        return value
    return uuid.uuid4().hex


class RequestIdMiddleware:
    """First in the chain, so that every log line of the request (and its error) carries the id."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        rid = request_id_from(request.headers.get(REQUEST_ID_HEADER))
        request.request_id = rid  # type: ignore[attr-defined]
        # Kept until the response is closed (``request_finished``), not reset on the way out: Django
        # logs an error answer ("Not Found: ...") after the middleware chain has returned.
        request_id_var.set(rid)
        response = self.get_response(request)
        response[REQUEST_ID_HEADER] = rid
        return response


def _forget_request_id(**kwargs: Any) -> None:
    request_id_var.set(None)


request_finished.connect(_forget_request_id, dispatch_uid="config.logs.forget_request_id")


class ContextFilter(logging.Filter):
    """Adds ``request_id``, ``task_id``, ``task_name`` (None when unset) and ``context`` (for text) to a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        rid, tid, tname = request_id_var.get(), task_id_var.get(), task_name_var.get()
        access = access_fields(record)
        if access is not None:  # written after the response is closed: the id is in its header
            rid = access.get("request_id")
        rid = record.request_id = getattr(record, "request_id", None) or rid
        tid = record.task_id = getattr(record, "task_id", None) or tid
        tname = record.task_name = getattr(record, "task_name", None) or tname
        parts = [f"request={rid}"] if rid else []
        if tid:
            parts.append(f"task={tname}[{tid}]")
        record.context = f" [{' '.join(parts)}]" if parts else ""
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line; never raises on an odd argument (falls back to ``repr``)."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": dt.datetime.fromtimestamp(record.created, tz=dt.UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, name in (("request_id", "request_id"), ("task_id", "task_id"), ("task", "task_name")):
            value = getattr(record, name, None)
            if value:
                data[key] = value
        access = access_fields(record)
        if access is not None:
            data.update(access)
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        elif record.stack_info:
            data["stack"] = self.formatStack(record.stack_info)
        return json.dumps(data, default=repr, ensure_ascii=False)


def access_fields(record: logging.LogRecord) -> dict[str, Any] | None:
    """A gunicorn access line's fields (its logger passes the request's "atoms" as the one argument), else None.

    ``request_id`` is the response's ``X-Request-ID`` (RequestIdMiddleware's): the same as in the lines
    the request logged, and as in the proxy's access line (config/nginx/nginx.conf.template).
    """
    if record.name != "gunicorn.access" or not isinstance(record.args, Mapping):
        return None
    atoms: Mapping[str, Any] = record.args

    def atom(name: str) -> Any:
        value = atoms.get(name)
        return None if value in (None, "-") else value

    fields = {
        "method": atom("m"),
        "path": atom("U"),
        "query": atom("q") or None,
        "status": int(atoms["s"]) if str(atoms.get("s", "")).isdigit() else atom("s"),
        "bytes": atom("B"),
        "seconds": float(atoms["L"]) if atom("L") else None,
        "client": atom("{x-forwarded-for}i") or atom("h"),
        "user_agent": atom("a"),
        "request_id": atom("{x-request-id}o"),
    }
    return {k: v for k, v in fields.items() if v is not None}


def logging_config(*, fmt: str, level: str) -> dict[str, Any]:
    """Django's LOGGING: one console handler (standard error), text or JSON lines."""
    if fmt not in ("text", "json"):
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(f"LOG_FORMAT={fmt!r}: use text or json")
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "config.logs.ContextFilter"}},
        "formatters": {
            "text": {"format": "%(asctime)s %(levelname)s %(name)s%(context)s: %(message)s"},
            "json": {"()": "config.logs.JsonFormatter"},
        },
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": fmt, "filters": ["context"]},
        },
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Replaces Django's own "django" handlers, which would print twice.
            "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        },
    }


def gunicorn_logging(*, fmt: str, level: str) -> dict[str, Any]:
    """gunicorn's ``logconfig_dict`` (config/gunicorn.py): its own lines (start, workers booted, errors) and
    its access lines go through the same console handler as Django's, so with ``LOG_FORMAT=json`` every
    line the web process writes is one JSON object, access lines with the request's id."""
    config = logging_config(fmt=fmt, level=level)
    for name in ("gunicorn.error", "gunicorn.access"):
        config["loggers"][name] = {"handlers": ["console"], "level": "INFO", "propagate": False}
    return config


# --- Celery -------------------------------------------------------------------------------------


def connect_celery_signals() -> None:
    """Task ids in task logs; and the worker and beat log through Django's LOGGING, not Celery's own."""
    from celery.signals import setup_logging, task_postrun, task_prerun

    @setup_logging.connect(weak=False)
    def _configure(loglevel: Any = None, **kwargs: Any) -> None:
        import logging.config

        from django.conf import settings

        logging.config.dictConfig(settings.LOGGING)
        if loglevel:  # the worker's --loglevel still governs Celery's own messages ("... ready.")
            logging.getLogger("celery").setLevel(loglevel)

    @task_prerun.connect(weak=False)
    def _task_started(task_id: str | None = None, task: Any = None, **kwargs: Any) -> None:
        task_id_var.set(task_id)
        task_name_var.set(getattr(task, "name", None))

    @task_postrun.connect(weak=False)
    def _task_done(**kwargs: Any) -> None:
        task_id_var.set(None)
        task_name_var.set(None)
