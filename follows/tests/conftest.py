"""Follows read the public boards from PostgreSQL only; their tests leave the Redis mirror alone."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture(autouse=True)
def _boards_from_the_database(settings: Any) -> None:
    settings.REDIS_URL = ""
