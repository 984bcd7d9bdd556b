"""Small factories for the leaderboard tests: rows built directly, no services."""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from games.models import Attempt, Challenge, Result, Submission

_seq = itertools.count(1)
BASE_TIME = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)


def make_user(username: str | None = None) -> AbstractBaseUser:
    return get_user_model().objects.create_user(username=username or f"player{next(_seq)}", password="x")


def make_challenge(*, date: dt.date, game: str = "klondike", **fields: Any) -> Challenge:
    values: dict[str, Any] = {"status": Challenge.Status.READY, "seed": 1000 + next(_seq), "difficulty": 2}
    values.update(fields)
    return Challenge.objects.create(date=date, game=game, **values)


def make_result(
    *,
    challenge: Challenge,
    player: AbstractBaseUser | None = None,
    ranked: bool = True,
    won: bool = True,
    score: int = 500,
    moves: int = 120,
    play_time_ms: int = 300_000,
    finished_at: dt.datetime | None = None,
    assisted: bool = False,
    disqualified: bool = False,
    status: str = Submission.Status.VALID,
) -> Result:
    """A ranked (by default) result of a valid submission, with its attempt and submission."""
    player = player or make_user()
    finished_at = finished_at or BASE_TIME + dt.timedelta(seconds=next(_seq))
    attempt = Attempt.objects.create(
        player=player, challenge=challenge, ranked=ranked, assisted=assisted, finished_at=finished_at
    )
    submission = Submission.objects.create(attempt=attempt, status=status, validated_at=finished_at)
    return Result.objects.create(
        submission=submission,
        player=player,
        challenge=challenge,
        ranked=ranked,
        assisted=assisted,
        won=won,
        score=score,
        moves=moves,
        foundation_cards=52 if won else 20,
        play_time_ms=play_time_ms,
        finished_at=finished_at,
        disqualified=disqualified,
    )
