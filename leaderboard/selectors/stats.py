"""A player's statistics per game (the profile page, the end of a game): streaks, records, the distribution."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model

from engine import GAME_IDS
from games import days as dates
from games.selectors import board_results, challenges_shown, counted_results
from leaderboard.errors import PlayerNotFound

# The distribution's bars: a won game by its play time, [low, high) seconds (the last one open-ended),
# then one bar for every game not won, as Wordle's guesses and its "X". Fixed edges, the same in every
# game: a bar means the same on every profile and every day.
TIME_EDGES_S = (60, 120, 180, 300, 600)
NOT_WON = "not won"


@dataclass(frozen=True)
class StatsBucket:
    label: str
    won: bool  # a bar of won games (by time) or the bar of games not won
    low_ms: int | None
    high_ms: int | None  # exclusive; None: no upper bound
    count: int
    today: int  # how many of today's results fall in it (the bar the page marks)


@dataclass(frozen=True)
class StatsToday:
    """The player's own counted result of today in that game (nothing else of today's deal)."""

    won: bool
    score: int
    moves: int
    play_time_ms: int
    assisted: bool
    bucket: int


@dataclass(frozen=True)
class GameStats:
    game: str | None  # None: every game together
    played: int
    won: int
    current_streak: int
    best_streak: int
    best_time_ms: int | None
    best_score: int | None
    last_played_date: dt.date | None
    distribution: list[StatsBucket]
    today: StatsToday | None

    @property
    def win_rate(self) -> float:
        return round(self.won / self.played, 4) if self.played else 0.0


@dataclass(frozen=True)
class PlayerGameStats:
    username: str
    today: dt.date
    own: bool  # the viewer's own statistics (counted results) or another player's (the public boards' part)
    overall: GameStats
    games: list[GameStats]


def _bucket_labels() -> list[tuple[str, int | None, int | None]]:
    """(label, low ms, high ms) of each bar: ``under 1 min``, ``1-2 min``, ... ``10+ min``, ``not won``."""
    edges = [s // 60 for s in TIME_EDGES_S]
    bars: list[tuple[str, int | None, int | None]] = [(f"under {edges[0]} min", None, TIME_EDGES_S[0] * 1000)]
    for (low, high), (low_s, high_s) in zip(itertools.pairwise(edges), itertools.pairwise(TIME_EDGES_S), strict=True):
        bars.append((f"{low}-{high} min", low_s * 1000, high_s * 1000))
    bars.append((f"{edges[-1]}+ min", TIME_EDGES_S[-1] * 1000, None))
    bars.append((NOT_WON, None, None))
    return bars


BUCKETS = _bucket_labels()  # the bars, the same for every game and player


def stats_bucket(*, won: bool, play_time_ms: int) -> int:
    """The index of a result's bar: its time's bar when won, else the last bar ("not won")."""
    if not won:
        return len(TIME_EDGES_S) + 1
    return sum(1 for edge in TIME_EDGES_S if play_time_ms >= edge * 1000)


def best_streak(*, win_dates: Iterable[dt.date]) -> int:
    """The longest run of consecutive dates."""
    best = run = 0
    previous: dt.date | None = None
    for day in sorted(set(win_dates)):
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        best = max(best, run)
        previous = day
    return best


def current_streak(*, win_dates: Iterable[dt.date], today: dt.date, today_open: bool) -> int:
    """The run of consecutive winning dates that ends today, or yesterday while today can still be won.

    ``today_open``: today's game (or, over every game, one of today's games) is not yet lost: unplayed,
    in play, being checked or held for a fair-play check. A missed day breaks the run; today's unplayed game does not
    yet, a lost ranked game of today does at once (its day can no longer be won)."""
    wins = set(win_dates)
    if today in wins:
        end = today
    elif today_open and today - dt.timedelta(days=1) in wins:
        end = today - dt.timedelta(days=1)
    else:
        return 0
    run = 0
    while end - dt.timedelta(days=run) in wins:
        run += 1
    return run


def _game_stats(rows: list[tuple[Any, ...]], *, game: str | None, today: dt.date, today_open: bool) -> GameStats:
    """Rows (date, game, won, score, moves, play_time_ms, assisted) of one player, one game (or all)."""
    labels = BUCKETS
    counts = [0] * len(labels)
    todays = [0] * len(labels)
    for date, _game, won, _score, _moves, ms, _assisted in rows:
        b = stats_bucket(won=won, play_time_ms=ms)
        counts[b] += 1
        todays[b] += int(date == today)
    win_dates = [r[0] for r in rows if r[2]]
    clean = [r for r in rows if not r[6]]  # records are those the day's board would rank: unassisted
    clean_wins = [r[5] for r in clean if r[2]]
    mine = next((r for r in rows if r[0] == today), None) if game is not None else None
    return GameStats(
        game=game,
        played=len(rows),
        won=len(win_dates),
        current_streak=current_streak(win_dates=win_dates, today=today, today_open=today_open),
        best_streak=best_streak(win_dates=win_dates),
        best_time_ms=min(clean_wins) if clean_wins else None,
        best_score=max((r[3] for r in clean), default=None),
        last_played_date=max((r[0] for r in rows), default=None),
        distribution=[
            StatsBucket(label=label, won=i < len(labels) - 1, low_ms=low, high_ms=high, count=c, today=t)
            for i, ((label, low, high), c, t) in enumerate(zip(labels, counts, todays, strict=True))
        ],
        today=None
        if mine is None
        else StatsToday(
            won=mine[2],
            score=mine[3],
            moves=mine[4],
            play_time_ms=mine[5],
            assisted=mine[6],
            bucket=stats_bucket(won=mine[2], play_time_ms=mine[5]),
        ),
    )


def player_game_stats(
    *, username: str, viewer: object = None, today: dt.date | None = None, game: str | None = None
) -> PlayerGameStats:
    """A player's statistics over every game and per game: played, won, win share, current and best
    streak, best time and best score, and the distribution of results (won games by time, and not won).

    Only ranked results count (``counted_results``: valid, not disqualified, not held); practice never.
    The player themself (``viewer``) sees their own counted results, a guest's included; anybody else sees
    the part that is public (``board_results``: a guest's results are on no public board). Nothing of
    today's deal is read but the player's own result: no other player's, no card.

    Streaks (per game, and over every game: a winning date then has a win in any game): consecutive
    challenge dates (the challenge's date, not the finish time) with a won ranked result. The current
    streak ends today, or yesterday while today can still be won (:func:`current_streak`).
    Best time: the fastest unassisted win; best score: the highest unassisted score (the records the
    day's board would rank). ``game`` keeps only that game in ``games``; without it, every game played.
    """
    today = today or dates.today()
    user_model = get_user_model()
    player = user_model._default_manager.filter(**{user_model.USERNAME_FIELD: username}).first()
    if player is None:
        raise PlayerNotFound(f"There is no player named {username!r}.")
    own = bool(getattr(viewer, "is_authenticated", False)) and getattr(viewer, "pk", None) == player.pk
    source = counted_results() if own else board_results()
    rows = list(
        source.filter(player_id=player.pk, challenge__date__lte=today)
        .order_by("challenge__date", "challenge__game")
        .values_list("challenge__date", "challenge__game", "won", "score", "moves", "play_time_ms", "assisted")
    )
    lost_today = {r[1] for r in rows if r[0] == today and not r[2]}
    todays_games = set(challenges_shown(today=today).filter(date=today).values_list("game", flat=True))
    all_lost = bool(todays_games) and todays_games <= lost_today  # (no challenge yet today: nothing lost)
    overall = _game_stats(rows, game=None, today=today, today_open=not all_lost)
    by_game: dict[str, list[tuple[Any, ...]]] = {}
    for r in rows:
        by_game.setdefault(r[1], []).append(r)
    shown = [game] if game is not None else [g for g in GAME_IDS if g in by_game]
    games = [_game_stats(by_game.get(g, []), game=g, today=today, today_open=g not in lost_today) for g in shown]
    return PlayerGameStats(username=player.get_username(), today=today, own=own, overall=overall, games=games)
