"""Follows read the public boards from PostgreSQL only; their tests leave the Redis mirror alone."""

from __future__ import annotations

import pytest
from pytest_django import Settings


@pytest.fixture(autouse=True)
def _boards_from_the_database(settings: Settings) -> None:
    settings.REDIS_URL = ""
