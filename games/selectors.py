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


def log_frames(*, game: str, seed: int, moves: list[str]) -> list[dict[str, object]]:
    """The visible position before the first move and after each one of a legal log, compactly.

    For watching a log on the table. Each frame shows only what that prefix of the log has
    disclosed (SPEC section 7): face-down cards are "??", the stock is a count.
    """
    state = State(deal(game, seed))
    frames = [_frame(state)]
    for text in moves:
        state.play_text(text)
        frames.append(_frame(state))
    return frames


def _frame(state: State) -> dict[str, object]:
    view = visible(state)
    return {
        "t": [[c["card"] for c in column] for column in view["tableau"]],  # type: ignore[attr-defined]
        "s": view["stock"],
        "w": view["waste"],
        "f": [pile[-1] if pile else None for pile in view["foundations"]],  # type: ignore[attr-defined]
        "r": view["redeals_left"],
        "score": view["score"],
        "moves": view["moves"],
        "home": view["foundation_cards"],
        "won": view["won"],
    }
