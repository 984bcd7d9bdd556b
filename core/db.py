"""Statements that may be sent again when the connection they were first sent on turns out dead.

The service keeps its database connections between requests (``CONN_MAX_AGE``) and proves one alive
without a round trip (config/postgres). A connection the server closed in the instant between that
check and a request's first statement fails that statement; the backend then reconnects and sends it
once more, but only when sending it twice cannot do twice what once does: a plain read outside a
transaction, or a statement registered here. Register only statements whose second run is harmless:
the moves append, for one, writes only where the log holds exactly the length it names, so a second
run after a first that was applied finds the log longer and writes nothing.
"""

from __future__ import annotations

_retry_safe: set[str] = set()


def retry_safe(sql: str) -> str:
    """Register ``sql`` as safe to send again after a dropped connection; returns it unchanged."""
    _retry_safe.add(sql)
    return sql


def is_retry_safe(sql: str) -> bool:
    """A read (``SELECT``) or a registered statement."""
    return sql in _retry_safe or sql.lstrip()[:7].upper() == "SELECT "
