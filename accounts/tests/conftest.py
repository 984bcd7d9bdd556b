"""Every test of the accounts app gets its own Redis key prefix for the boards (deleted afterwards), and
``backend`` runs a test once on the database alone and once with the Redis mirror (marked ``redis``): the
leaderboard tests' fixtures (leaderboard/tests/fixtures.py)."""

from __future__ import annotations

from leaderboard.tests.fixtures import backend, redis_prefix

__all__ = ["backend", "redis_prefix"]  # the fixtures, found here by their names
