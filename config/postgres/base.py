"""Django's PostgreSQL backend, with a health check that costs no round trip.

``CONN_HEALTH_CHECKS`` makes Django check a kept connection before a request first uses it; the stock
check sends ``SELECT 1`` and waits for the answer, which was 5% of a one-move batch's CPU (and a round
trip of its latency). A connection the server closed (a restart, ``pg_terminate_backend``, an idle
timeout) has sent its goodbye (an error message, then end of file) by the time the client looks: so
here the check asks the operating system whether the idle socket has anything to read, without
waiting. Nothing should arrive on an idle connection; anything that did means it is closed, or in a
state not worth trusting, and it is replaced. A connection that saw an error keeps Django's own check.

What the poll cannot see (the server closing the connection in the instant after it, or a link cut
without a word) fails the request's first statement. That statement is sent once more on a new
connection when it is the request's first on a kept connection, outside a transaction, and safe to
repeat (core.db: a read, or a statement registered as such); any other statement fails as before, and
Django replaces the connection at the end of the request.
"""

from __future__ import annotations

import logging
import select
from typing import Any

from django.db import utils
from django.db.backends.postgresql import base
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from psycopg import pq

from core.db import is_retry_safe

logger = logging.getLogger(__name__)


class _Retrying:
    """Mixed into Django's cursor wrappers (the plain one, and the one that logs statements)."""

    db: Any
    cursor: Any

    def execute(self, sql: Any, params: Any = None) -> Any:
        db = self.db
        first_on_kept = getattr(db, "first_on_kept", False)
        db.first_on_kept = False
        try:
            return super().execute(sql, params)  # type: ignore[misc]
        except (utils.OperationalError, utils.InterfaceError):
            if not (first_on_kept and not db.in_atomic_block and isinstance(sql, str) and is_retry_safe(sql)):
                raise
            logger.warning("database connection lost before a request's first statement: sent again")
            db.close()
            db.connect()
            self.cursor = db.create_cursor()
            return super().execute(sql, params)  # type: ignore[misc]


class RetryingCursorWrapper(_Retrying, CursorWrapper):
    pass


class RetryingCursorDebugWrapper(_Retrying, CursorDebugWrapper):
    pass


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.errors_occurred:
            return bool(super().is_usable())  # after an error: Django's own round trip
        connection = self.connection
        if connection is None or connection.closed:
            return False
        if connection.info.transaction_status != pq.TransactionStatus.IDLE:
            return False
        try:
            readable, _, _ = select.select([connection.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    def close_if_health_check_failed(self) -> None:
        check = self.connection is not None and self.health_check_enabled and not self.health_check_done  # type: ignore[attr-defined]
        super().close_if_health_check_failed()
        # The request's first statement on a kept connection that passed: the one a retry may repeat.
        self.first_on_kept = check and self.connection is not None

    def make_cursor(self, cursor: Any) -> CursorWrapper:
        return RetryingCursorWrapper(cursor, self)

    def make_debug_cursor(self, cursor: Any) -> CursorDebugWrapper:
        return RetryingCursorDebugWrapper(cursor, self)
