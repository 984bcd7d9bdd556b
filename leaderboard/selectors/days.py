"""A player's day: where they stand on each of the day's challenges, and the day as one share (the home
page): eight squares in a fixed game order, no card, no score, no rank."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth.models import User

from engine import GAME_IDS, GAMES
from games import days as dates
from games.models import Attempt, Challenge, Result
from games.selectors import challenges_of_day, counted_results
from leaderboard.selectors.ranks import result_rank
from leaderboard.selectors.stats import player_game_stats


@dataclass(frozen=True)
class DayStatus:
    """Where a player stands on one challenge of a day."""

    status: str  # "won", "lost", "held" (for a fair-play check), "checking", "playing" or "new"
    result: Result | None = None
    rank: int | None = None


def player_day_status(*, player: User | int, challenges: list[Challenge]) -> dict[int, DayStatus]:
    """Per challenge: won or lost (the counted ranked result, with its rank), checking (submitted,
    not validated yet), playing (the ranked attempt is open) or new."""
    player_id = player if isinstance(player, int) else player.pk
    ids = [c.pk for c in challenges]
    results = {
        r.challenge_id: r
        for r in counted_results().filter(player_id=player_id, challenge_id__in=ids).select_related("challenge")
    }
    ranked = {
        a.challenge_id: a
        for a in Attempt.objects.filter(player_id=player_id, challenge_id__in=ids, ranked=True).only(
            "id", "challenge_id", "finished_at"
        )
    }
    statuses: dict[int, DayStatus] = {}
    held = set(
        Result.objects.filter(
            player_id=player_id, challenge_id__in=ids, ranked=True, held=True, disqualified=False
        ).values_list("challenge_id", flat=True)
    )
    for challenge in challenges:
        result = results.get(challenge.pk)
        attempt = ranked.get(challenge.pk)
        if result is not None:
            statuses[challenge.pk] = DayStatus("won" if result.won else "lost", result, result_rank(result=result))
        elif challenge.pk in held:
            statuses[challenge.pk] = DayStatus("held")
        elif attempt is not None and attempt.finished_at is None:
            statuses[challenge.pk] = DayStatus("playing")
        elif attempt is not None:
            statuses[challenge.pk] = DayStatus("checking")
        else:
            statuses[challenge.pk] = DayStatus("new")
    return statuses


DAY_SQUARES = {"won": "🟩", "lost": "🟥"}  # anything else (not played, open, checking, held): ⬜
DAY_WORDS = {
    "won": "won",
    "lost": "not won",
    "held": "held for a fair-play check",
    "checking": "checking",
    "playing": "in progress",
    "new": "not played",
    "absent": "not out yet",
}


@dataclass(frozen=True)
class DayGame:
    game: str
    name: str
    status: str  # a DayStatus status, or "absent": no deal of that game out that day (yet)
    words: str
    square: str


@dataclass(frozen=True)
class DaySummary:
    day: dt.date
    games: list[DayGame]  # every game, in GAME_IDS order
    won: int
    lost: int
    not_played: int  # neither won nor lost yet (not started, open, being checked, held, not out)
    streak: int
    share: str


def player_day_summary(*, player: User | int, day: dt.date, challenges: list[Challenge], streak: int) -> DaySummary:
    """The player's day over every game, in the fixed order of GAME_IDS, and its share text: no card,
    no score, no rank (nothing another player of the day could use), a square per game and the streak."""
    statuses = player_day_status(player=player, challenges=challenges)
    by_game = {c.game: statuses[c.pk].status for c in challenges}
    games = []
    for game in GAME_IDS:
        status = by_game.get(game, "absent")
        games.append(DayGame(game, GAMES[game].name, status, DAY_WORDS[status], DAY_SQUARES.get(status, "⬜")))
    won = sum(g.status == "won" for g in games)
    lost = sum(g.status == "lost" for g in games)
    share = "\n".join(
        [
            f"Daily Patience, {day:%d %b %Y}: {won} of {len(games)} won",
            "".join(g.square for g in games),
            f"Streak: {streak} day{'s' if streak != 1 else ''} won in a row",
        ]
    )
    return DaySummary(day, games, won, lost, len(games) - won - lost, streak, share)


def player_today_summary(*, player: User) -> DaySummary:
    """The caller's day as of now: today's challenges out so far, the streak as the profile counts it."""
    today = dates.today()
    streak = player_game_stats(username=player.get_username(), viewer=player, today=today).overall.current_streak
    return player_day_summary(player=player, day=today, challenges=challenges_of_day(day=today), streak=streak)
