"""Rows for the ratings' tests, made directly (no services)."""

from __future__ import annotations

import datetime as dt
import itertools

from django.contrib.auth.models import AbstractBaseUser

from games.models import Attempt, Guest, Result, Submission
from games.tests.factories import make_challenge, make_user

__all__ = ["make_challenge", "make_guest", "make_result", "make_user"]

_seq = itertools.count(1)
BASE_TIME = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)


def make_guest() -> AbstractBaseUser:
    user = make_user()
    Guest.objects.create(user=user)
    return user


def make_result(
    *,
    challenge: object,
    player: AbstractBaseUser | None = None,
    won: bool = True,
    score: int = 500,
    moves: int = 120,
    play_time_ms: int = 300_000,
    ranked: bool = True,
    assisted: bool = False,
    held: bool = False,
    disqualified: bool = False,
    status: str = Submission.Status.VALID,
) -> Result:
    player = player or make_user()
    finished_at = BASE_TIME + dt.timedelta(seconds=next(_seq))
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
        held=held,
    )
