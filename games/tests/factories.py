"""Small builders for the games app's tests (real rows in the real database)."""

from __future__ import annotations

import datetime as dt
import itertools

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Permission, User
from django.test import Client
from django.utils import timezone

from games import days
from games.models import Attempt, Challenge, Result, Submission

_names = itertools.count(1)


def make_user(username: str | None = None, *, new: bool = False) -> User:
    """A player; an established account (made a month ago) unless ``new`` (made now, today): SPEC section 7
    holds a result when a new identity at the same address saw the deal's hidden cards first, and the test
    client's players all share one address."""
    name = username or f"player{next(_names)}"
    user = get_user_model().objects.create_user(username=name, password="not-a-common-pass-42")
    if not new:
        user.date_joined = timezone.now() - dt.timedelta(days=30)
        user.save(update_fields=["date_joined"])
    return user


def token_for(user: AbstractBaseUser) -> str:
    """A new API token of ``user`` (its key: only its digest is stored, so each call makes one)."""
    from games.auth import token_create

    return token_create(user=user)


def make_challenge(
    *,
    game: str = "klondike",
    seed: int = 2026,
    day: dt.date | None = None,
    solution: list[str] | None = None,
    status: str = Challenge.Status.READY,
    difficulty: int | None = 2,
) -> Challenge:
    return Challenge.objects.create(
        date=day or days.today(),
        game=game,
        seed=seed,
        status=status,
        difficulty=difficulty,
        solution=solution or [],
    )


def make_staff(*codenames: str) -> tuple[Client, User]:
    """A logged-in client of a staff user holding only these permissions of the games app (codenames)."""
    user = make_user()
    user.is_staff = True
    user.save()
    for codename in codenames:
        user.user_permissions.add(Permission.objects.get(codename=codename, content_type__app_label="games"))
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    return client, user


_results = itertools.count(1)
RESULTS_BASE_TIME = dt.datetime(2026, 11, 1, 12, 0, tzinfo=dt.UTC)


def make_result(
    *,
    challenge: Challenge,
    player: User | None = None,
    ranked: bool = True,
    won: bool = True,
    score: int = 500,
    moves: int = 120,
    play_time_ms: int = 300_000,
    finished_at: dt.datetime | None = None,
    assisted: bool = False,
    disqualified: bool = False,
    held: bool = False,
    status: str = Submission.Status.VALID,
) -> Result:
    """A ranked (by default) result of a valid submission, with its attempt and submission."""
    player = player or make_user()
    finished_at = finished_at or RESULTS_BASE_TIME + dt.timedelta(seconds=next(_results))
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
