"""A player's profile: the stored statistics (or the ones derived from results) and the latest results."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Count, Max, Q

from games import days as dates
from games.selectors import board_results, counted_results
from leaderboard.errors import PlayerNotFound
from leaderboard.models import PlayerStats
from leaderboard.selectors.boards import _ranks
from leaderboard.selectors.stats import best_streak, current_streak

RECENT_RESULTS = 30


@dataclass(frozen=True)
class PlayerStatsData:
    played: int
    won: int
    current_streak: int
    best_streak: int
    last_played_date: dt.date | None
    last_won_date: dt.date | None


@dataclass(frozen=True)
class RecentResult:
    date: dt.date
    game: str
    won: bool
    score: int
    moves: int
    play_time_ms: int
    assisted: bool
    finished_at: dt.datetime
    rank: int | None
    attempt: int | None = None  # once the day is over (its game is public then), else None

    @property
    def seconds(self) -> float:
        return self.play_time_ms / 1000


@dataclass(frozen=True)
class PlayerProfile:
    username: str
    played: int
    won: int
    current_streak: int
    best_streak: int
    last_played_date: dt.date | None
    last_won_date: dt.date | None
    recent: list[RecentResult]

    @property
    def win_rate(self) -> float:
        return round(self.won / self.played, 4) if self.played else 0.0


def player_stats_compute(*, player: User | int, today: dt.date) -> PlayerStatsData:
    """The statistics defined on PlayerStats, computed from Result rows."""
    player_id = player if isinstance(player, int) else player.pk
    counted = counted_results().filter(player_id=player_id)
    totals = counted.aggregate(
        played=Count("id"),
        won=Count("id", filter=Q(won=True)),
        last_played=Max("challenge__date"),
    )
    win_dates = list(counted.filter(won=True).order_by().values_list("challenge__date", flat=True).distinct())
    return PlayerStatsData(
        played=totals["played"],
        won=totals["won"],
        # Stored at validation: the run up to today, or up to yesterday whatever today's game became.
        current_streak=current_streak(win_dates=win_dates, today=today, today_open=True),
        best_streak=best_streak(win_dates=win_dates),
        last_played_date=totals["last_played"],
        last_won_date=max(win_dates) if win_dates else None,
    )


def player_recent_results(*, player: User | int, limit: int = RECENT_RESULTS) -> list[RecentResult]:
    """The player's latest counted results (by challenge date), each with its rank on its board."""
    player_id = player if isinstance(player, int) else player.pk
    recent = list(
        counted_results()
        .filter(player_id=player_id)
        .select_related("challenge", "submission")
        .order_by("-challenge__date", "-finished_at", "-id")[:limit]
    )
    ranks: dict[int, int] = {}
    for assisted in (False, True):  # each result's rank on its own board (result_rank)
        mine = [r.pk for r in recent if r.assisted is assisted]
        if not mine:
            continue
        boards = board_results().filter(challenge_id__in={r.challenge_id for r in recent})
        if not assisted:
            boards = boards.filter(assisted=False)
        placeholders = ", ".join(["%s"] * len(mine))
        ranks.update(_ranks(boards, where=f'board."id" IN ({placeholders})', params=mine, partition=True))
    return [
        RecentResult(
            date=r.challenge.date,
            game=r.challenge.game,
            won=r.won,
            score=r.score,
            moves=r.moves,
            play_time_ms=r.play_time_ms,
            assisted=r.assisted,
            finished_at=r.finished_at,
            rank=ranks.get(r.pk),
            attempt=r.submission.attempt_id if dates.is_over(r.challenge.date) else None,
        )
        for r in recent
    ]


def player_profile(*, username: str, today: dt.date | None = None) -> PlayerProfile:
    """Statistics and recent results of a player; PlayerNotFound for an unknown username."""
    today = today or dates.today()
    user_model = get_user_model()
    player = user_model._default_manager.filter(**{user_model.USERNAME_FIELD: username}).first()
    if player is None:
        raise PlayerNotFound(f"There is no player named {username!r}.")
    stored = PlayerStats.objects.filter(player=player).first()
    if stored is not None:
        stats = PlayerStatsData(
            played=stored.played,
            won=stored.won,
            current_streak=stored.current_streak_on(today),
            best_streak=stored.best_streak,
            last_played_date=stored.last_played_date,
            last_won_date=stored.last_won_date,
        )
    else:  # never recomputed (e.g. results older than the stats): derive, do not write
        stats = player_stats_compute(player=player, today=today)
    return PlayerProfile(
        username=player.get_username(),
        played=stats.played,
        won=stats.won,
        current_streak=stats.current_streak,
        best_streak=stats.best_streak,
        last_played_date=stats.last_played_date,
        last_won_date=stats.last_won_date,
        recent=player_recent_results(player=player),
    )
