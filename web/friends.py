"""The friends' parts of the pages: the home page's block of friends' results today, the friends board
of a day and game, and the follow button of a profile (it posts to the API: PUT/DELETE /me/follows/...).

What they show of a friend is what the public board shows (follows.selectors): finished, validated
results on the boards, never a game in play."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from core.auth import request_player
from core.errors import ApplicationError
from engine import GAMES
from follows import selectors as follows
from follows.models import Follow
from games import days, selectors, services


def home_friends(request: HttpRequest) -> dict[str, Any] | None:
    """The home page's friends block: None for a visitor or a guest (who cannot follow)."""
    if not request.user.is_authenticated or services.player_is_guest(player=request.user):
        return None
    player = request_player(request)
    results = follows.friends_today(player=player)
    return {
        "following": Follow.objects.filter(follower=player).count(),
        "results": [{"r": r, "time": selectors.play_time_text(ms=r.play_time_ms)} for r in results],
    }


def profile_follow(request: HttpRequest, *, username: str, guest: bool) -> dict[str, Any]:
    """The profile's follow button: shown to a signed-up player on somebody else's (signed-up) profile."""
    me = request.user
    show = (
        me.is_authenticated and not guest and me.get_username() != username and not services.player_is_guest(player=me)
    )
    following = show and follows.is_following(follower=request_player(request), followed=username)
    return {"can_follow": show, "following": following}


@login_required
def friends_board(request: HttpRequest, date: str, game: str) -> HttpResponse:
    """The day's board of a game among whom the player follows and the player (the day's board, or every
    ranked result with ``?board=all``)."""
    try:
        challenge = selectors.challenge_from_path(date=date, game=game)
    except ApplicationError as exc:  # the site's own 404 page, with the reason (as web.views.friendly_404)
        return render(request, "404.html", {"message": exc.message}, status=404)
    every = request.GET.get("board") == "all"
    player = request_player(request)
    page = follows.friends_board(
        player=player, day=challenge.date, game=challenge.game, offset=0, limit=200, clean=not every
    )
    others = selectors.challenges_of_day(day=challenge.date)
    context = {
        "challenge": challenge,
        "name": GAMES[challenge.game].name,
        "others": [(c.game, GAMES[c.game].name) for c in others],
        "every": every,
        "entries": [{"e": e, "time": selectors.play_time_text(ms=e.play_time_ms)} for e in page.entries],
        "total": page.total,
        "following": Follow.objects.filter(follower=player).count(),
        "today": challenge.date == days.today(),
    }
    return render(request, "web/friends_board.html", context)
