"""Reads of the games app: challenges as players may see them."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Count, Q

from games import days
from games.engine import GAME_IDS, State, deal, find_rules, visible
from games.errors import BadRequest, NotFound
from games.models import Challenge


def parse_game(game: str) -> str:
    try:
        return find_rules(game).game
    except ValueError as exc:
        raise BadRequest(str(exc)) from None


def parse_date(text: str) -> dt.date:
    try:
        return days.parse_day(text)
    except ValueError:
        raise BadRequest(f"{text!r} is not a date: write it as YYYY-MM-DD") from None


def challenge_get(*, day: dt.date, game: str) -> Challenge:
    """A published, ready challenge of today or an earlier day; nothing of a future day exists outside."""
    today = days.today()
    if day > today:
        raise NotFound(f"the {game} challenge of {day} is not published yet")
    try:
        challenge = Challenge.objects.get(date=day, game=game, status=Challenge.Status.READY, published=True)
    except Challenge.DoesNotExist:
        raise NotFound(f"there is no {game} challenge for {day}") from None
    return challenge


def challenges_of_day(*, day: dt.date) -> list[Challenge]:
    order = {g: i for i, g in enumerate(GAME_IDS)}
    found = Challenge.objects.filter(date=day, status=Challenge.Status.READY, published=True)
    return sorted(found, key=lambda c: order.get(c.game, 99))


@dataclass(frozen=True)
class ChallengeCounts:
    players: int
    won: int


def challenge_counts(*, challenges: list[Challenge]) -> dict[int, ChallengeCounts]:
    """Ranked players and winners per challenge (valid, not disqualified results)."""
    from games.models import Result

    rows = (
        Result.objects.filter(challenge__in=challenges, ranked=True, disqualified=False)
        .values("challenge_id")
        .annotate(players=Count("id"), won=Count("id", filter=Q(won=True)))
    )
    counts = {row["challenge_id"]: ChallengeCounts(row["players"], row["won"]) for row in rows}
    return {c.pk: counts.get(c.pk, ChallengeCounts(0, 0)) for c in challenges}


def challenge_layout(challenge: Challenge) -> dict[str, object]:
    """The opening position as every player sees it: face-down cards and the stock hidden."""
    return visible(State(deal(challenge.game, challenge.seed_int)))


def challenge_is_over(challenge: Challenge) -> bool:
    return challenge.date < days.today()
