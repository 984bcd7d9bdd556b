"""Writes: rate a game's day once it is closed, as one match of all its players (OpenSkill's Weng-Lin model).

The model is Weng-Lin's Bradley-Terry with partial pairing (``openskill.models.BradleyTerryPart``): each
player's update weighs the players ranked nearest them (a window of 4 places each side), so a day costs
time in proportion to its players. Plackett-Luce, the same library's full many-player model, costs time
in proportion to their square: ``bench/ratings.py`` measured 1 s for a day of 2,000 players and 26 s for
10,000 on one core, past a task's time limit well before a day of the size docs/scaling.md plans for.

What a day's match is: the day's board of that game as it stands once the day is closed (SPEC section 7):
ranked results of valid submissions, not disqualified, not held for a fair-play check, not a guest's, and not
assisted (``games.selectors.board_results`` without the assisted ones). A result held, disqualified or
claimed later does not move anything: a day is rated once. The places follow the board's order (won
first, then higher score, fewer moves, shorter play time); results equal in all four share a place (the
board's last keys, the finish time and the id, only make its order total). A day with fewer than two
such results moves nobody; it is still marked rated.

A day is *closed* once it is over and none of its ranked games is still open or being checked
(``games.close_expired_attempts`` submits the open ones after midnight); or RATING_WAIT_HOURS after its
end whatever is left, so one stuck submission cannot hold a game's ratings for ever.

Days of a game are rated in date order (each day starts from the ratings the day before left): a day is
refused while an earlier closed day of that game is not rated. Rating a day is one transaction that
first inserts its ``RatingRun`` (unique per game and day): a second worker waits on that insert, then
finds the row and rates nothing; a worker that dies leaves no row and the day is rated again.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from openskill.models import BradleyTerryPart, BradleyTerryPartRating

from core.errors import Conflict
from engine import GAME_IDS
from games import days
from games.models import Attempt, Challenge, Submission
from games.selectors import board_results, challenges_shown
from ratings.models import Rating, RatingHistory, RatingRun

logger = logging.getLogger(__name__)

# The shown rating: the model's conservative estimate (mu - 3 sigma, the library's ``ordinal``), scaled so
# that a new player shows 1000 and one point of the model is 40 shown points.
SHOWN_ALPHA = 40.0
SHOWN_TARGET = 1000.0
DAYS_PER_RUN = 60  # days of one game rated per task at most (a first run after a long stop catches up in steps)
RUN_BUDGET_SECONDS = 120.0  # no day is started after this long (the task's soft time limit is 240 s)

MODEL = BradleyTerryPart()  # OpenSkill's defaults: mu 25, sigma 25/3, beta 25/6, window 4


class DayNotClosed(Conflict):
    code = "day_not_closed"


class EarlierDayNotRated(Conflict):
    code = "earlier_day_not_rated"


def shown_rating(*, rating: BradleyTerryPartRating) -> int:
    return round(rating.ordinal(alpha=SHOWN_ALPHA, target=SHOWN_TARGET))


def day_is_closed(*, challenge: Challenge, now: dt.datetime | None = None) -> bool:
    """Over, and nothing of its ranked play still to come (or RATING_WAIT_HOURS past its end)."""
    now = now or timezone.now()
    ends_at = days.next_day_starts_at(challenge.date)
    if now < ends_at:
        return False
    if now >= ends_at + dt.timedelta(hours=settings.RATING_WAIT_HOURS):
        return True
    ranked = Attempt.objects.filter(challenge=challenge, ranked=True)
    pending = Submission.objects.filter(attempt__challenge=challenge, attempt__ranked=True, status="pending")
    return not ranked.filter(finished_at__isnull=True).exists() and not pending.exists()


@dataclass(frozen=True)
class Place:
    player_id: int
    rank: int  # 1 = first; tied results share the lower number


def day_places(*, challenge: Challenge) -> list[Place]:
    """The day's match: each rated result's place, best first (see the module's docstring)."""
    rows = (
        board_results()
        .filter(challenge=challenge, assisted=False)
        .order_by("-won", "-score", "moves", "play_time_ms", "finished_at", "id")
        .values_list("player_id", "won", "score", "moves", "play_time_ms")
    )
    places: list[Place] = []
    previous: tuple[object, ...] | None = None
    for i, (player_id, *key) in enumerate(rows):
        rank = places[-1].rank if previous == tuple(key) and places else i + 1
        places.append(Place(player_id, rank))
        previous = tuple(key)
    return places


def rating_day_rate(*, game: str, day: dt.date, now: dt.datetime | None = None) -> RatingRun:
    """Rate (game, day) once: its RatingRun, new or found. DayNotClosed before it closes;
    EarlierDayNotRated while an earlier closed day of the game waits; Challenge.DoesNotExist for a day
    without a shown challenge of that game."""
    challenge = challenges_shown().get(game=game, date=day)
    if not day_is_closed(challenge=challenge, now=now):
        raise DayNotClosed(f"The {game} day of {day} is not closed yet: games of it are still open or being checked.")
    with transaction.atomic():
        run, created = RatingRun.objects.get_or_create(game=game, day=day)
        if not created:
            return run  # rated already (a redelivery, or another worker got there first)
        if _unrated_before(game=game, day=day).exists():
            raise EarlierDayNotRated(f"An earlier {game} day is not rated yet: days are rated in order.")
        places = day_places(challenge=challenge)
        if len(places) >= 2:
            _rate(game=game, day=day, places=places)
            run.players = len(places)
            run.save(update_fields=["players"])
    logger.info("ratings: %s %s rated, %d players", game, day, run.players)
    return run


def _unrated_before(*, game: str, day: dt.date) -> QuerySet[Challenge]:
    rated = RatingRun.objects.filter(game=game, day=OuterRef("date"))
    return challenges_shown().filter(game=game, date__lt=day).filter(~Exists(rated))


def _rate(*, game: str, day: dt.date, places: list[Place]) -> None:
    ids = [p.player_id for p in places]
    # Locked: a late second run (or an administrator) cannot interleave with this day's update.
    current = {r.player_id: r for r in Rating.objects.select_for_update().filter(game=game, player_id__in=ids)}
    before = [MODEL.rating(mu=current[i].mu, sigma=current[i].sigma) if i in current else MODEL.rating() for i in ids]
    after = MODEL.rate([[r] for r in before], ranks=[float(p.rank) for p in places])
    rows, history = [], []
    for place, old, (new,) in zip(places, before, after, strict=True):
        shown = shown_rating(rating=new)
        stored = current.get(place.player_id)
        rows.append(
            Rating(
                player_id=place.player_id,
                game=game,
                mu=new.mu,
                sigma=new.sigma,
                rating=shown,
                days=1 if stored is None else stored.days + 1,
                last_day=day,
            )
        )
        history.append(
            RatingHistory(
                player_id=place.player_id,
                game=game,
                day=day,
                mu=new.mu,
                sigma=new.sigma,
                rating=shown,
                previous=shown_rating(rating=old),
                rank=place.rank,
                players=len(places),
            )
        )
    # One INSERT ... ON CONFLICT DO UPDATE per batch, new and known players alike (an UPDATE per row, or
    # Django's bulk_update of CASE expressions, took most of a large day's time).
    Rating.objects.bulk_create(
        rows,
        batch_size=2000,
        update_conflicts=True,
        unique_fields=["player", "game"],
        update_fields=["mu", "sigma", "rating", "days", "last_day"],
    )
    RatingHistory.objects.bulk_create(history, batch_size=2000)


def ratings_rate_closed_days(
    *,
    now: dt.datetime | None = None,
    per_game: int = DAYS_PER_RUN,
    budget_seconds: float = RUN_BUDGET_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Every game's closed days not rated yet, in date order, up to ``per_game`` each: the days rated.
    A game stops at its first day not closed (the later ones wait for it). No day is started once
    ``budget_seconds`` have gone by (``clock``): a task ends well inside its time limit, and the next
    run goes on from there (bench/ratings.py: a day of 10,000 players takes about 7 s)."""
    now = now or timezone.now()
    today = days.today()
    started = clock()
    rated = 0
    for game in GAME_IDS:
        done = RatingRun.objects.filter(game=game, day=OuterRef("date"))
        waiting = (
            challenges_shown(today=today)
            .filter(game=game, date__lt=today)
            .filter(~Exists(done))
            .order_by("date")[:per_game]
        )
        for challenge in waiting:
            if clock() - started >= budget_seconds:
                return rated
            if not day_is_closed(challenge=challenge, now=now):
                break
            try:
                rating_day_rate(game=game, day=challenge.date, now=now)
            except EarlierDayNotRated:
                break  # another worker is rating the day before: the next run goes on from there
            rated += 1
    return rated
