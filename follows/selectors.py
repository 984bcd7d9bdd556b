"""Reads: the caller's follows, their friends' results of today, and a friends board.

Follows are private (decided so, unlike Lichess, whose follows lists were public): who follows whom tells
who plays with whom (a household, colleagues, someone watched), and nothing on the site needs a stranger
to read it. So a list is read only by its follower (the API has no path to anybody else's), and nobody's
followers are shown or counted.

What a friend's result shows is what the public board shows of it, and only that (SPEC section 7): a
result on the boards (``games.selectors.board_results``: ranked, valid, not disqualified, not held, not a
guest's), never a game still being played or checked, and a link to the game itself only once its day
is over. The friends board is the public board of a day and game restricted to the people the caller
follows and the caller, ranked 1, 2, 3... among them (as a league's board is).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from engine import GAME_IDS, GAMES
from follows.models import Follow
from games import days
from games.selectors import board_results
from leaderboard.selectors.boards import LeaderboardPage, board_page_of, leaderboard_challenge_get, leaderboard_results

FRIENDS_TODAY_LIMIT = 100


@dataclass(frozen=True)
class FollowedPlayer:
    player: str
    since: dt.datetime


@dataclass(frozen=True)
class FriendResult:
    player: str
    game: str
    name: str
    won: bool
    score: int
    moves: int
    play_time_ms: int
    assisted: bool
    finished_at: dt.datetime

    @property
    def seconds(self) -> float:
        return self.play_time_ms / 1000


def follows_of(*, player: User) -> list[FollowedPlayer]:
    """The players ``player`` follows, by name (theirs to read only)."""
    field = f"followed__{get_user_model().USERNAME_FIELD}"
    rows = Follow.objects.filter(follower=player).order_by(field).values_list(field, "created_at")
    return [FollowedPlayer(name, since) for name, since in rows]


def is_following(*, follower: User, followed: str) -> bool:
    field = f"followed__{get_user_model().USERNAME_FIELD}"
    return Follow.objects.filter(follower=follower, **{field: followed}).exists()


def _followed_ids(player: User) -> list[int]:
    return list(Follow.objects.filter(follower=player).values_list("followed_id", flat=True))


def friends_today(*, player: User, today: dt.date | None = None) -> list[FriendResult]:
    """The results of today that the people ``player`` follows have on the public boards, latest first
    (at most FRIENDS_TODAY_LIMIT)."""
    today = today or days.today()
    followed = Follow.objects.filter(follower=player).values("followed_id")
    rows = (
        board_results()
        .filter(player_id__in=followed, challenge__date=today, challenge__published=True)
        .select_related("player", "challenge")
        .order_by("-finished_at", "-id")[:FRIENDS_TODAY_LIMIT]
    )
    order = {g: i for i, g in enumerate(GAME_IDS)}
    found = [
        FriendResult(
            player=r.player.get_username(),
            game=r.challenge.game,
            name=GAMES[r.challenge.game].name if r.challenge.game in order else r.challenge.game,
            won=r.won,
            score=r.score,
            moves=r.moves,
            play_time_ms=r.play_time_ms,
            assisted=r.assisted,
            finished_at=r.finished_at,
        )
        for r in rows
    ]
    return found


def friends_board(
    *, player: User, day: dt.date, game: str, offset: int, limit: int, clean: bool = True
) -> LeaderboardPage:
    """The public board of (day, game) restricted to whom ``player`` follows and ``player``, ranked among
    them. leaderboard.errors.BoardNotFound when that board does not exist (unknown or a future day)."""
    challenge = leaderboard_challenge_get(date=day, game=game)
    people = [*_followed_ids(player), player.pk]
    rows = leaderboard_results(challenge=challenge, clean=clean).filter(player_id__in=people)
    return board_page_of(results=rows, offset=offset, limit=limit)
