"""Pages of the web front end.

The pages carry no card of a deal: the table, the boards and the profile fetch what they
show from the public API (/api/v1/) in the browser, so the page sees exactly what the API
discloses to the player and nothing more (SPEC section 7). The views only check that the
address names something that exists and fill in the frame around it.
"""

from __future__ import annotations

import datetime as dt
from itertools import groupby

from django.contrib import auth
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import ensure_csrf_cookie

from games import days, selectors
from games.engine import GAME_IDS, GAMES
from games.models import Attempt, Challenge
from leagues import selectors as league_selectors
from leagues.errors import LeagueNotFound

ARCHIVE_DAYS = 60


def _challenge_or_404(date: str, game: str) -> Challenge:
    """The published, ready challenge of a day that has come; 404 for anything else."""
    if game not in GAMES:
        raise Http404(f"there is no game {game!r}")
    try:
        day = days.parse_day(date)
    except ValueError:
        raise Http404(f"{date!r} is not a date (YYYY-MM-DD)") from None
    if day > days.today():
        raise Http404(f"the {game} challenge of {day} is not published yet")
    challenge = Challenge.objects.filter(date=day, game=game, status=Challenge.Status.READY, published=True).first()
    if challenge is None:
        raise Http404(f"there is no {game} challenge for {day}")
    return challenge


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    today = days.today()
    challenges = selectors.challenges_of_day(day=today)
    counts = selectors.challenge_counts(challenges=challenges)
    rows = [
        {"challenge": c, "name": GAMES[c.game].name, "summary": GAMES[c.game].summary, "counts": counts[c.pk]}
        for c in challenges
    ]
    return render(
        request,
        "web/home.html",
        {"today": today, "ends_at": days.next_day_starts_at(today), "rows": rows},
    )


@ensure_csrf_cookie
def play(request: HttpRequest, date: str, game: str) -> HttpResponse:
    challenge = _challenge_or_404(date, game)
    attempt = None
    has_ranked = False
    if request.user.is_authenticated:
        mine = Attempt.objects.filter(player=request.user, challenge=challenge)
        attempt = mine.order_by("-started_at", "-id").first()
        has_ranked = mine.filter(ranked=True).exists()
    today = days.today()
    return render(
        request,
        "web/play.html",
        {
            "challenge": challenge,
            "name": GAMES[game].name,
            "summary": GAMES[game].summary,
            "attempt": attempt,
            "over": challenge.date < today,
            # The first attempt on the challenge's own day is ranked; every other one is practice.
            "next_ranked": challenge.date == today and not has_ranked,
        },
    )


def board(request: HttpRequest, date: str, game: str) -> HttpResponse:
    challenge = _challenge_or_404(date, game)
    others = selectors.challenges_of_day(day=challenge.date)
    return render(
        request,
        "web/board.html",
        {"challenge": challenge, "name": GAMES[game].name, "others": [(c.game, GAMES[c.game].name) for c in others]},
    )


def archive(request: HttpRequest) -> HttpResponse:
    today = days.today()
    found = Challenge.objects.filter(
        date__lt=today,
        date__gte=today - dt.timedelta(days=ARCHIVE_DAYS),
        status=Challenge.Status.READY,
        published=True,
    ).order_by("-date")
    order = {g: i for i, g in enumerate(GAME_IDS)}
    archive_days = [
        {
            "date": day,
            "challenges": [
                {"challenge": c, "name": GAMES[c.game].name} for c in sorted(group, key=lambda c: order.get(c.game, 99))
            ],
        }
        for day, group in groupby(found, key=lambda c: c.date)
    ]
    return render(request, "web/archive.html", {"days": archive_days})


def player(request: HttpRequest, username: str) -> HttpResponse:
    if "\x00" in username:  # no username holds one, and PostgreSQL refuses it in a query
        raise Http404("there is no such player")
    user = auth.get_user_model().objects.filter(username=username).first()
    if user is None:
        raise Http404(f"there is no player {username!r}")
    return render(request, "web/player.html", {"username": user.get_username()})


@login_required
@ensure_csrf_cookie
def leagues(request: HttpRequest) -> HttpResponse:
    """The player's leagues, and the forms to create and join one: the page fetches and posts to the API."""
    return render(request, "web/leagues.html")


@ensure_csrf_cookie
def league_join(request: HttpRequest, code: str) -> HttpResponse:
    """A shareable invite link. A player joins with a button (POST /api/v1/leagues/join); a visitor is
    offered to log in or sign up and come back here. Nothing of the league is looked up or shown."""
    return render(request, "web/league_join.html", {"code": code})


@login_required
@ensure_csrf_cookie
def league(request: HttpRequest, league_id: int) -> HttpResponse:
    """A league: the page fetches it and its boards from the API, which shows a league to members only.

    A non-member (or an unknown league) gets the same "not found" as from the API, with a 404 status.
    """
    try:
        league_selectors.league_get(league_id=league_id, player=request.user)
    except LeagueNotFound:
        return render(request, "web/league.html", {"league_id": league_id, "missing": True}, status=404)
    today = days.today()
    challenges = selectors.challenges_of_day(day=today)
    games = [(c.game, GAMES[c.game].name) for c in challenges]
    wanted = request.GET.get("game", "")
    game = wanted if wanted in dict(games) else (games[0][0] if games else "")
    return render(
        request,
        "web/league.html",
        {"league_id": league_id, "missing": False, "today": today, "games": games, "game": game},
    )


class LoginView(auth_views.LoginView):
    template_name = "web/login.html"
    redirect_authenticated_user = True
    next_page = "web:home"


class LogoutView(auth_views.LogoutView):
    next_page = "web:home"


def _next_url(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        return target
    return None


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect(_next_url(request) or "web:home")
    form = UserCreationForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        auth.login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request) or "web:home")
    return render(request, "web/signup.html", {"form": form, "next": _next_url(request) or ""})
