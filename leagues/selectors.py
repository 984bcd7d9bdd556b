"""Reads: a player's leagues, one league (members only) and the league boards.

The daily board is the public board (leaderboard.selectors.boards: same rows, same
order) restricted to the league's current members, ranked 1, 2, 3... within
the league: the day's board (unassisted results only) by default, or the board
of all results (``clean=False``), the assisted ones marked. The all-time board
ranks every member by wins over the results on the day's boards (ranked,
valid, not disqualified, unassisted: SPEC section 7) of challenges dated from
the league's creation day on, then by total score, then fewer total moves,
then username. Both are read
from the database: a league has at most 500 members.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import BigIntegerField, Count, Exists, F, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce

from games.models import Guest
from games.selectors import board_results
from games.services import player_is_guest
from leaderboard.selectors.boards import LeaderboardPage, board_page_of, leaderboard_challenge_get, leaderboard_results
from leagues.errors import LeagueNotFound, NotLeagueOwner
from leagues.models import INVITE_CODE_ALPHABET, INVITE_CODE_LENGTH, League, Membership


@dataclass(frozen=True)
class LeagueMember:
    player_id: int
    player: str
    joined_at: dt.datetime
    owner: bool
    guest: bool = False  # a guest's internal name (guest-1a2b3c) is shown as "Guest"


@dataclass(frozen=True)
class AllTimeEntry:
    rank: int
    player_id: int
    player: str
    wins: int
    played: int
    score: int
    moves: int
    guest: bool = False  # shown as "Guest"


@dataclass(frozen=True)
class AllTimePage:
    since: dt.date
    total: int
    entries: list[AllTimeEntry]


def normalize_invite_code(*, code: str) -> str:
    """Codes are shown in lower case; a code typed in capitals or with spaces around still works.
    Anything that cannot be a code (a NUL byte, a wrong length, another alphabet) is "", found nowhere,
    and never reaches the database."""
    code = code.strip().lower()
    return code if len(code) == INVITE_CODE_LENGTH and set(code) <= _INVITE_ALPHABET else ""


_INVITE_ALPHABET = frozenset(INVITE_CODE_ALPHABET)


@dataclass(frozen=True)
class InvitePreview:
    """What an invite link tells whoever holds it: the league's name and who invites (its owner;
    None for a guest, whose internal name means nothing). Nothing else: no id, no members."""

    name: str
    owner: str | None


def league_invite_preview(*, invite_code: str) -> InvitePreview | None:
    """The league this invite code opens, as its invite page may show it; None for an unknown code."""
    code = normalize_invite_code(code=invite_code)
    league = League.objects.select_related("owner").filter(invite_code=code).first() if code else None
    if league is None:
        return None
    owner = league.owner
    return InvitePreview(name=league.name, owner=None if player_is_guest(player=owner) else owner.get_username())


def _with_member_counts(qs: QuerySet[League]) -> QuerySet[League]:
    return qs.select_related("owner").annotate(member_count=Count("memberships"))


def league_get(*, league_id: int, player: User, require_owner: bool = False) -> League:
    """One of the player's leagues (annotated with ``member_count``).

    LeagueNotFound when it does not exist or the player is not a member (the
    two look the same); NotLeagueOwner when ``require_owner`` and the member
    is not the owner.
    """
    mine = Membership.objects.filter(player=player).values("league_id")
    league = _with_member_counts(League.objects.filter(pk=league_id, pk__in=mine)).first()
    if league is None:
        raise LeagueNotFound(f"League {league_id} not found.")
    if require_owner and league.owner_id != player.pk:
        raise NotLeagueOwner("Only the league's owner can do this.")
    return league


def leagues_of_player(*, player: User) -> list[League]:
    """The leagues the player is a member of (owned ones included), by name, with ``member_count``."""
    mine = Membership.objects.filter(player=player).values("league_id")
    return list(_with_member_counts(League.objects.filter(pk__in=mine)).order_by("name", "id"))


def league_members(*, league: League) -> list[LeagueMember]:
    """The members in the order they joined (the owner first)."""
    memberships = Membership.objects.filter(league=league).select_related("player__guest").order_by("joined_at", "id")
    return [
        LeagueMember(
            player_id=m.player_id,
            player=m.player.get_username(),
            joined_at=m.joined_at,
            owner=m.player_id == league.owner_id,
            guest=hasattr(m.player, "guest"),
        )
        for m in memberships
    ]


def league_start_day(*, league: League) -> dt.date:
    """The challenge day on which the league was created (in DAILY_TIMEZONE)."""
    return league.created_at.astimezone(ZoneInfo(settings.DAILY_TIMEZONE)).date()


def _member_ids(league: League) -> QuerySet[Membership, Any]:
    return Membership.objects.filter(league=league).values("player_id")


def league_daily_board(
    *, league: League, day: dt.date, game: str, offset: int, limit: int, clean: bool = True
) -> LeaderboardPage:
    """The public board of (day, game) restricted to the league's members, ranked within the league.

    leaderboard.errors.BoardNotFound when that challenge has no board (unknown or a future day).
    """
    challenge = leaderboard_challenge_get(date=day, game=game)
    members = leaderboard_results(challenge=challenge, clean=clean).filter(player_id__in=_member_ids(league))
    return board_page_of(results=members, offset=offset, limit=limit)


def league_alltime_board(*, league: League, offset: int, limit: int) -> AllTimePage:
    """Every member, by wins since the league's creation day, then score, then fewer moves, then username."""
    if offset < 0 or limit < 0:
        raise ValueError("offset and limit must not be negative")
    since = league_start_day(league=league)
    counted = (
        board_results()
        .filter(player_id=OuterRef("player_id"), challenge__date__gte=since, assisted=False)
        .order_by()
        .values("player_id")
    )

    def total(aggregate: Count | Sum) -> Coalesce:
        return Coalesce(
            Subquery(counted.annotate(total=aggregate).values("total")), Value(0), output_field=BigIntegerField()
        )

    members = (
        Membership.objects.filter(league=league)
        .annotate(
            username=F(f"player__{get_user_model().USERNAME_FIELD}"),
            wins=total(Count("id", filter=Q(won=True))),
            played=total(Count("id")),
            total_score=total(Sum("score")),
            total_moves=total(Sum("moves")),
            guest=Exists(Guest.objects.filter(user_id=OuterRef("player_id"))),
        )
        .order_by("-wins", "-total_score", "total_moves", "username", "player_id")
    )
    count = Membership.objects.filter(league=league).count()
    page = members.values_list("player_id", "username", "wins", "played", "total_score", "total_moves", "guest")
    entries = [
        AllTimeEntry(
            rank=offset + i + 1,
            player_id=pid,
            player=name,
            wins=wins,
            played=played,
            score=score,
            moves=moves,
            guest=guest,
        )
        for i, (pid, name, wins, played, score, moves, guest) in enumerate(page[offset : offset + limit])
    ]
    return AllTimePage(since=since, total=count, entries=entries)
