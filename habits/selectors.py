"""Reads of a player's days: the month calendar (per game, or every game together) and the reminders due."""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.utils import timezone

from engine import GAME_IDS, GAMES
from games import days
from games.errors import BadRequest, UnknownGame
from games.selectors import challenges_shown, counted_results
from habits.models import Reminder
from leaderboard.selectors.stats import current_streak


@dataclass(frozen=True)
class CalendarDay:
    date: dt.date
    status: str  # won (a win that day: of the game, or of any game), lost (played, none won), none, future
    played: int  # ranked results counted that day
    won: int
    games: list[dict[str, object]] = field(default_factory=list)  # [{"game", "name", "won"}] in the games' order
    challenges: int = 0  # the day's challenges (of the game: 0 or 1)


@dataclass(frozen=True)
class MonthCalendar:
    month: dt.date  # its first day
    game: str | None
    days: list[CalendarDay]
    previous: dt.date
    next: dt.date | None  # None: the month is the current one (nothing of the future)
    streak: int


def month_parse(*, month: str | None, game: str | None) -> tuple[dt.date, str | None]:
    """``YYYY-MM`` (default: this month) and a game id or none; a 400 for anything else."""
    today = days.today()
    if game is not None and game not in GAMES:
        raise UnknownGame(f"unknown game {game!r}")
    if not month:
        return today.replace(day=1), game
    try:
        first = dt.date.fromisoformat(f"{month}-01") if len(month) == 7 else None
    except ValueError:
        first = None
    if first is None or first.year < 2000:
        raise BadRequest("month must be YYYY-MM, from 2000 on")
    return first, game  # a month to come: every day of it is "future"


def player_month(*, player: User | int, month: dt.date, game: str | None = None) -> MonthCalendar:
    """Each day of ``month`` for the player: what they won and played (their counted ranked results, as the
    profile counts them), of ``game`` or of every game."""
    player_id = player if isinstance(player, int) else player.pk
    today = days.today()
    last = month.replace(day=calendar.monthrange(month.year, month.month)[1])
    results = counted_results().filter(player_id=player_id, challenge__date__range=(month, last))
    shown = challenges_shown(today=today).filter(date__range=(month, last))
    if game is not None:
        results = results.filter(challenge__game=game)
        shown = shown.filter(game=game)
    by_day: dict[dt.date, list[tuple[str, bool]]] = {}
    for date, g, result_won in results.values_list("challenge__date", "challenge__game", "won"):
        by_day.setdefault(date, []).append((g, result_won))
    challenge_days: dict[dt.date, int] = {}
    for date in shown.values_list("date", flat=True):
        challenge_days[date] = challenge_days.get(date, 0) + 1
    order = {g: i for i, g in enumerate(GAME_IDS)}
    out = []
    for n in range(last.day):
        date = month + dt.timedelta(days=n)
        played = sorted(by_day.get(date, []), key=lambda r: order.get(r[0], 99))
        won = sum(1 for _, w in played if w)
        status = "future" if date > today else "won" if won else "lost" if played else "none"
        out.append(
            CalendarDay(
                date=date,
                status=status,
                played=len(played),
                won=won,
                games=[{"game": g, "name": GAMES[g].name, "won": w} for g, w in played],
                challenges=challenge_days.get(date, 0),
            )
        )
    wins = counted_results().filter(player_id=player_id, won=True)
    if game is not None:
        wins = wins.filter(challenge__game=game)
    win_dates = wins.order_by().values_list("challenge__date", flat=True).distinct()
    following = (last + dt.timedelta(days=1)).replace(day=1)
    return MonthCalendar(
        month=month,
        game=game,
        days=out,
        previous=(month - dt.timedelta(days=1)).replace(day=1),
        next=following if following <= today else None,
        streak=current_streak(win_dates=win_dates, today=today, today_open=True),
    )


# --- the reminder ------------------------------------------------------------------------------------------


def reminder_of(*, player: User) -> Reminder | None:
    return Reminder.objects.filter(player=player).first()


def streak_at_risk(*, player_id: int, today: dt.date) -> int:
    """The streak (over every game) that ends tonight unless a game of today is won: its length, or 0 when
    there is none to lose (no win yesterday) or it is safe (a win today already)."""
    win_dates = set(
        counted_results()
        .filter(player_id=player_id, won=True, challenge__date__in=(today, today - dt.timedelta(days=1)))
        .values_list("challenge__date", flat=True)
    )
    if today in win_dates or today - dt.timedelta(days=1) not in win_dates:
        return 0
    all_wins = counted_results().filter(player_id=player_id, won=True).values_list("challenge__date", flat=True)
    streak: int = current_streak(win_dates=all_wins, today=today, today_open=True)
    return streak


def reminder_is_due(*, reminder: Reminder, now: dt.datetime, today: dt.date) -> bool:
    """The chosen time of day has come in the player's zone, within today's challenge day, and nothing was
    sent for today yet. (A time chosen late in the player's evening may fall in the next challenge day: it
    is then that day's reminder, never one sent at once when a day begins.)"""
    if reminder.last_sent_day == today:
        return False
    zone = ZoneInfo(reminder.time_zone)
    local = now.astimezone(zone)
    chosen = dt.datetime.combine(local.date(), reminder.remind_at, tzinfo=zone)
    day_start = days.next_day_starts_at(today - dt.timedelta(days=1))
    return chosen <= now and chosen >= day_start


def reminders_due(*, now: dt.datetime | None = None) -> list[int]:
    """Ids of the reminders to send now: on, to a confirmed address (an account's address is stored only
    once its mailbox followed the confirmation link: web.email_address), due, the streak at risk."""
    now = now or timezone.now()
    today = days.today()
    due = []
    candidates = (
        Reminder.objects.filter(enabled=True)
        .exclude(player__email="")
        .exclude(last_sent_day=today)
        .filter(player__is_active=True)
        .only("id", "player_id", "remind_at", "time_zone", "last_sent_day")
    )
    for reminder in candidates.iterator():
        if reminder_is_due(reminder=reminder, now=now, today=today) and streak_at_risk(
            player_id=reminder.player_id, today=today
        ):
            due.append(reminder.pk)
    return due
