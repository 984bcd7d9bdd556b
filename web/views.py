"""Pages of the web front end.

The pages carry no card of a deal: the table, the boards and the profile fetch what they
show from the public API (/api/v1/) in the browser, so the page sees exactly what the API
discloses to the player and nothing more (SPEC section 7). The views only check that the
address names something that exists and fill in the frame around it.
"""

from __future__ import annotations

import datetime as dt
import functools
import logging
import secrets
from collections.abc import Callable
from itertools import groupby
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import auth
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import Resolver404, resolve, reverse, reverse_lazy
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.csrf import csrf_exempt, ensure_csrf_cookie
from django.views.decorators.http import require_POST

from accounts import selfservice
from core import limits
from core.auth import request_player
from core.errors import ApplicationError
from core.net import client_network
from core.tasks import send
from engine import GAME_IDS, GAMES
from games import days, selectors, services
from games.models import Challenge
from games.services.fairplay import BROWSER_COOKIE, BROWSER_COOKIE_SECONDS
from habits import selectors as habit_selectors
from habits import services as habit_services
from leaderboard.selectors import days as day_selectors
from leaderboard.selectors import ranks as rank_selectors
from leaderboard.selectors import stats as stats_selectors
from leagues import selectors as league_selectors
from leagues.errors import LeagueNotFound
from web import email_address, friends
from web import learn as learn_rules
from web.forms import AccountDeleteForm, EmailForm, LoginForm, ReminderForm, ResetForm, SignupForm, reset_mail_send

ARCHIVE_DAYS = 60

logger = logging.getLogger(__name__)


def friendly_404(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A page that is not there is our own 404 page, with the reason, also under DEBUG
    (where Django would show its technical page to a new user running bin/serve)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except Http404 as exc:
            return render(request, "404.html", {"message": str(exc)}, status=404)

    return wrapped


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page says: send them the icon."""
    return redirect(static("web/favicon.svg"), permanent=True)


def _challenge_or_404(date: str, game: str) -> Challenge:
    """The challenge a page's path names (the API's one getter); a page answers 404 for any refusal."""
    try:
        return selectors.challenge_from_path(date=date, game=game)
    except ApplicationError as exc:
        raise Http404(exc.message) from None


@ensure_csrf_cookie
def home(request: HttpRequest) -> HttpResponse:
    today = days.today()
    challenges = selectors.challenges_of_day(day=today)
    counts = selectors.challenge_counts(challenges=challenges)
    mine = (
        day_selectors.player_day_status(player=request.user, challenges=challenges)
        if request.user.is_authenticated
        else {}
    )
    rows = []
    for c in challenges:
        status = mine.get(c.pk)
        result = status.result if status else None
        rows.append(
            {
                "challenge": c,
                "name": GAMES[c.game].name,
                "summary": GAMES[c.game].summary,
                "counts": counts[c.pk],
                "mine": status,
                "share": rank_selectors.result_share(result=result) if status and result else "",
            }
        )
    signed_in = request.user.is_authenticated
    stats = None
    day = None
    if signed_in:  # the streak as the profile and the end of a game count it
        player = request_player(request)
        stats = stats_selectors.player_game_stats(username=player.get_username(), viewer=player, today=today).overall
        day = day_selectors.player_day_summary(
            player=player, day=today, challenges=challenges, streak=stats.current_streak
        )  # as GET /api/v1/me/day (player_today_summary), with the challenges and streak at hand
    return render(
        request,
        "web/home.html",
        {
            "today": today,
            "ends_at": days.next_day_starts_at(today),
            "rows": rows,
            "stats": stats,
            "day": day,
            "coming": len(GAME_IDS) - len(challenges),
            "games_total": len(GAME_IDS),
            "friends": friends.home_friends(request),
        },
    )


@friendly_404
@ensure_csrf_cookie
def play(request: HttpRequest, date: str, game: str) -> HttpResponse:
    challenge = _challenge_or_404(date, game)
    attempt, has_ranked = (
        selectors.player_latest_attempt(player=request_player(request), challenge=challenge)
        if request.user.is_authenticated
        else (None, False)
    )
    today = days.today()
    response = render(
        request,
        "web/play.html",
        {
            "challenge": challenge,
            "name": GAMES[game].name,
            "summary": GAMES[game].summary,
            "attempt": attempt,
            "over": challenge.date < today,
            "ends_at": days.next_day_starts_at(challenge.date),
            "today_ends_at": days.next_day_starts_at(today),
            # The first attempt on the challenge's own day is ranked; every other one is practice.
            "next_ranked": challenge.date == today and not has_ranked,
        },
    )
    if not request.COOKIES.get(BROWSER_COOKIE):  # the browser's name for the fair-play flags (games.services.fairplay)
        response.set_cookie(
            BROWSER_COOKIE,
            secrets.token_urlsafe(18),
            max_age=BROWSER_COOKIE_SECONDS,
            httponly=True,
            samesite="Lax",
            secure=request.is_secure(),
        )
    return response


@friendly_404
def board(request: HttpRequest, date: str, game: str) -> HttpResponse:
    challenge = _challenge_or_404(date, game)
    others = selectors.challenges_of_day(day=challenge.date)
    before, after = selectors.challenge_neighbour_days(challenge=challenge)
    return render(
        request,
        "web/board.html",
        {
            "challenge": challenge,
            "name": GAMES[game].name,
            "others": [(c.game, GAMES[c.game].name) for c in others],
            "over": selectors.challenge_is_over(challenge=challenge),
            "before": before,
            "after": after,
            "mine": _board_mine(request, challenge),
        },
    )


def _board_mine(request: HttpRequest, challenge: Challenge) -> str:
    """What the board page says of the viewer's own game when the board does not rank it: "" (no game, or
    not signed in), or its state: assisted (on the board with assisted games), held (for a fair-play check),
    checking, playing, practice (no ranked game: only practice)."""
    if not request.user.is_authenticated:
        return ""
    player = request_player(request)
    status = day_selectors.player_day_status(player=player, challenges=[challenge])[challenge.pk]
    if status.status in ("won", "lost"):
        return "assisted" if status.result is not None and status.result.assisted else "ranked"
    if status.status in ("held", "checking", "playing"):
        return status.status
    attempt, _ = selectors.player_latest_attempt(player=player, challenge=challenge)
    return "practice" if attempt is not None else ""


@friendly_404
def game_review(request: HttpRequest, attempt_id: int) -> HttpResponse:
    """One game played back with its review: the player's own, or anybody's ranked game once its day is
    over (``selectors.attempt_visible``); any other id is the same 404 page, whoever asks."""
    try:
        attempt = selectors.attempt_visible(attempt_id=attempt_id, viewer=request.user)
    except ApplicationError as exc:
        raise Http404(exc.message) from None
    challenge = attempt.challenge
    guest = services.player_is_guest(player=attempt.player)
    return render(
        request,
        "web/game.html",
        {
            "attempt": attempt,
            "challenge": challenge,
            "name": GAMES[challenge.game].name,
            # A guest's internal name (guest-1a2b3c) is nobody's to read: the page says "Guest".
            "player_name": "Guest" if guest else attempt.player.get_username(),
            "player_guest": guest,
            "over": selectors.challenge_is_over(challenge=challenge),
        },
    )


def archive(request: HttpRequest) -> HttpResponse:
    found = selectors.challenges_archived(days_back=ARCHIVE_DAYS)
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


def learn_index(request: HttpRequest) -> HttpResponse:
    """How to play: the eight games, each with its page."""
    return render(request, "web/learn_index.html", {"games": [(g, GAMES[g].name, GAMES[g].summary) for g in GAME_IDS]})


@friendly_404
def learn(request: HttpRequest, game: str) -> HttpResponse:
    """How to play one game: its rules in plain words and a few moves played on the table, from a small
    position written by hand (web/js/learn-demos.js): no deal of any day, nothing asked of the server but the
    games' rules (GET /api/v1/games)."""
    if game not in GAMES:
        raise Http404(f"there is no game {game!r}")
    today = days.today()
    return render(
        request,
        "web/learn.html",
        {
            "game": game,
            "name": GAMES[game].name,
            "summary": GAMES[game].summary,
            "rules": learn_rules.RULES[game],
            "common": learn_rules.COMMON,
            "scoring": learn_rules.SCORING,
            "play_today": any(c.game == game for c in selectors.challenges_of_day(day=today)),
            "today": today,
            "others": [(g, GAMES[g].name) for g in GAME_IDS],
        },
    )


@login_required
def month_calendar(request: HttpRequest) -> HttpResponse:
    """The player's month (GET /api/v1/me/calendar's data): each day won, played or not, of one game or every
    game, linking the day's board (one game) or the day in the archive (every game); today links its table."""
    try:
        month, game = habit_selectors.month_parse(month=request.GET.get("month"), game=request.GET.get("game") or None)
    except ApplicationError as exc:
        return render(request, "404.html", {"message": exc.message}, status=400)
    found = habit_selectors.player_month(player=request_player(request), month=month, game=game)
    today = days.today()
    archive_from = today - dt.timedelta(days=ARCHIVE_DAYS)
    cells: list[dict[str, Any] | None] = [None] * month.weekday()  # Monday first
    for day in found.days:
        link = ""
        if day.status != "future" and day.challenges:
            if game is not None:
                link = reverse("web:play" if day.date == today else "web:board", args=[day.date.isoformat(), game])
            elif day.date == today:
                link = reverse("web:home")
            elif day.date >= archive_from:
                link = f"{reverse('web:archive')}#day-{day.date.isoformat()}"
        cells.append({"day": day, "link": link, "today": day.date == today})
    cells += [None] * (-len(cells) % 7)
    weeks = [cells[i : i + 7] for i in range(0, len(cells), 7)]
    return render(
        request,
        "web/calendar.html",
        {
            "cal": found,
            "weeks": weeks,
            "game": game,
            "game_name": GAMES[game].name if game else "",
            "games": [(g, GAMES[g].name) for g in GAME_IDS],
            "weekdays": ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
        },
    )


@login_required
def reminder(request: HttpRequest) -> HttpResponse:
    """The e-mail reminder before a streak ends: on or off, at a time in the player's own zone; only to a
    confirmed address (a guest signs up first; an account without an address adds one first)."""
    if services.player_is_guest(player=request.user):
        return redirect(f"{reverse('web:signup')}?next={request.path}")
    player = request_player(request)
    current = habit_selectors.reminder_of(player=player)
    initial = {
        "enabled": bool(current and current.enabled),
        "remind_at": current.remind_at if current else habit_services.DEFAULT_TIME,
        "time_zone": current.time_zone if current else "",
    }
    form = ReminderForm(request.POST or None, initial=initial)
    saved = False
    if request.method == "POST" and form.is_valid():
        if form.cleaned_data["enabled"] and not player.email:
            form.add_error("enabled", "Add an e-mail address and follow its link first: nothing is sent without one.")
        else:
            habit_services.reminder_set(
                player=player,
                enabled=form.cleaned_data["enabled"],
                remind_at=form.cleaned_data["remind_at"],
                time_zone=form.cleaned_data["time_zone"],
            )
            saved = True
    status = 400 if request.method == "POST" and not saved else 200
    return render(
        request, "web/reminder.html", {"form": form, "saved": saved, "has_email": bool(player.email)}, status=status
    )


@csrf_exempt
def reminder_stop(request: HttpRequest, token: str) -> HttpResponse:
    """The mail's one-click stop: no login, the signed token names the player. A GET (the link) and a POST
    (RFC 8058's List-Unsubscribe-Post, sent by mail programs) both turn the reminder off; doing it twice is
    the same. A token not ours is a 400 that says so."""
    player = habit_services.reminder_stop(token=token)
    return render(request, "web/reminder_stopped.html", {"stopped": player}, status=200 if player else 400)


@friendly_404
def player(request: HttpRequest, username: str) -> HttpResponse:
    if "\x00" in username:  # no username holds one, and PostgreSQL refuses it in a query
        raise Http404("there is no such player")
    found = selectors.player_username(username=username)
    if found is None:
        raise Http404(f"there is no player {username!r}")
    name, guest = found
    context = {
        "username": name,
        "shown_name": "Guest" if guest else name,
        "guest": guest,
        **friends.profile_follow(request, username=name, guest=guest),
    }
    return render(request, "web/player.html", context)


@login_required
@ensure_csrf_cookie
def leagues(request: HttpRequest) -> HttpResponse:
    """The player's leagues, and the forms to create and join one: the page fetches and posts to the API."""
    return render(request, "web/leagues.html")


@ensure_csrf_cookie
def league_join(request: HttpRequest, code: str) -> HttpResponse:
    """A shareable invite link. A player joins with a button (POST /api/v1/leagues/join); a visitor is
    offered to log in or sign up and come back here. The page names the league and who invites (its
    owner), nothing else of it; an unknown code is a 404 that says the link does not work."""
    invite = league_selectors.league_invite_preview(invite_code=code)
    return render(request, "web/league_join.html", {"code": code, "invite": invite}, status=200 if invite else 404)


@login_required
@ensure_csrf_cookie
def league(request: HttpRequest, league_id: int) -> HttpResponse:
    """A league: the page fetches it and its boards from the API, which shows a league to members only.

    A non-member (or an unknown league) gets the same "not found" as from the API, with a 404 status.
    """
    try:
        league_selectors.league_get(league_id=league_id, player=request_player(request))
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
    """Log in; a guest who logs in brings the games played as a guest (see games.services.guest_claim)."""

    template_name = "web/login.html"
    redirect_authenticated_user = True
    next_page = "web:home"
    form_class = LoginForm  # limited per account and per address (core.limits)

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if getattr(form, "throttled", False):
            response.status_code = 429  # the page says how long to wait
        return response

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if request.user.is_authenticated and services.player_is_guest(player=request.user):
            self.redirect_authenticated_user = False  # a guest may log in to an account
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form: Any) -> HttpResponse:
        guest = request_player(self.request) if services.player_is_guest(player=self.request.user) else None
        if guest is not None:  # first the games, leagues and results, in one transaction; then the session
            services.guest_claim(guest=guest, account=form.get_user())
        response = super().form_valid(form)
        if form.login_outcome is not None:  # this browser is known to the account from now on (core.limits)
            limits.device_cookie_set(response, form.login_outcome, secure=self.request.is_secure())
        return response


@require_POST
def guest_play(request: HttpRequest) -> HttpResponse:
    """Play at once, before signing up: the visitor becomes a guest player kept in the session, and
    the press (this POST, with its CSRF token) starts the attempt on the table it came from.
    Nothing but a press starts one: a link (a GET) only ever opens a page."""
    if not request.user.is_authenticated:
        try:
            limits.creation_guard(request=request, limit=limits.GUEST)
        except limits.Throttled as exc:
            return render(request, "web/throttled.html", {"message": exc.message}, status=429)
        auth.login(request, services.guest_create(), backend="django.contrib.auth.backends.ModelBackend")
    target = _next_url(request) or "/"
    _start_on_table(request, target)
    return redirect(target)


def _start_on_table(request: HttpRequest, target: str) -> None:
    """Start an attempt on the challenge of the table page ``target``, if it is one and none is open."""
    try:
        match = resolve(urlsplit(target).path)
    except Resolver404:
        return
    if match.view_name != "web:play":
        return
    try:
        challenge = selectors.challenge_from_path(date=match.kwargs["date"], game=match.kwargs["game"])
        services.attempt_start(
            player=request_player(request),
            challenge=challenge,
            # Where it started, as the API's start records it (SPEC section 7: identities share disclosures).
            origin=services.origin_hash(kind="address", value=client_network(request)),
            browser=services.origin_hash(kind="browser", value=request.COOKIES.get(BROWSER_COOKIE, "")),
        )
    except ApplicationError:
        pass  # not playable, or an attempt is open already: the page shows what there is


class LogoutView(auth_views.LogoutView):
    next_page = "web:home"


def _next_url(request: HttpRequest) -> str | None:
    target = request.POST.get("next") or request.GET.get("next")
    if target and url_has_allowed_host_and_scheme(target, {request.get_host()}, require_https=request.is_secure()):
        return target
    return None


def signup(request: HttpRequest) -> HttpResponse:
    """Sign up; a guest who signs up keeps the games played as a guest, ranked results included."""
    guest = request_player(request) if services.player_is_guest(player=request.user) else None
    if request.user.is_authenticated and guest is None:
        return redirect(_next_url(request) or "web:home")
    form = SignupForm(request.POST or None)
    context = {"form": form, "next": _next_url(request) or ""}
    if request.method == "POST" and form.is_valid():
        try:
            limits.creation_guard(request=request, limit=limits.SIGNUP)
            # The account, its name keys and the guest's games, leagues and results: one transaction.
            user = services.player_create(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                guest=guest,
            )
        except limits.Throttled as exc:
            form.add_error(None, exc.message)
            return render(request, "web/signup.html", context, status=429)
        except ApplicationError as exc:
            form.add_error("username", exc.message)  # a taken or look-alike name: the form says so
            return render(request, "web/signup.html", context)
        email = services.player_email_normalize(email=form.cleaned_data.get("email") or "")
        if email:  # stored once its mailbox follows the link: resets go only to a confirmed address
            email_address.confirm_link_send(user=user, email=email)
        auth.login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect(_next_url(request) or "web:home")
    return render(request, "web/signup.html", context)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The account's e-mail address, for password resets. A guest signs up instead (it has no password).
    A change asks for the password; a new address is stored once its mailbox follows the link mailed
    to it, and the old address is told, with a way back (web.email_address)."""
    if services.player_is_guest(player=request.user):
        return redirect(f"{reverse_lazy('web:signup')}?next={request.path}")
    user = request_player(request)
    form = EmailForm(request.POST or None, initial={"email": user.email})
    saved = sent = ""
    if request.method == "POST" and form.is_valid():
        new = services.player_email_normalize(email=form.cleaned_data["email"] or "")
        try:
            with limits.login_guard(request=request, username=user.get_username()) as outcome:
                if user.check_password(form.cleaned_data["password"]):
                    outcome.success()
                else:
                    outcome.failure()
        except limits.Throttled as exc:
            form.add_error(None, exc.message)
            return render(request, "web/account.html", {"form": form}, status=429)
        if outcome.succeeded is not True:
            form.add_error("password", "That is not your password.")
        elif new == user.email:
            saved = "unchanged"
        elif not new:
            old = user.email
            services.player_email_set(player=user, email="")
            email_address.old_address_tell(user=user, old=old, new="")
            saved = "removed"
        else:
            email_address.confirm_link_send(user=user, email=new)
            email_address.old_address_tell(user=user, old=user.email, new=new)
            sent = new
    ban = selectors.player_ban_get(player_id=user.pk)
    banned = selectors.player_banned_message(reason=ban.reason) if ban else ""
    context = {"form": form, "saved": saved, "sent": sent, "banned": banned}
    return render(request, "web/account.html", context)


@login_required
def account_delete(request: HttpRequest) -> HttpResponse:
    """Delete one's own account (a guest's too): the password and a confirmation, as POST /api/v1/me/delete."""
    user = request_player(request)
    guest = services.player_is_guest(player=user)
    form = AccountDeleteForm(request.POST if request.method == "POST" else None)
    if guest:
        del form.fields["password"]  # a guest has none: its session is its only key
    if request.method == "POST" and form.is_valid():
        try:
            selfservice.account_delete_self(
                request=request, player=user, password=form.cleaned_data.get("password") or "", confirmed=True
            )
        except limits.Throttled as exc:
            form.add_error(None, exc.message)
            return render(request, "web/account_delete.html", {"form": form, "guest": guest}, status=429)
        except selfservice.WrongPassword:
            form.add_error("password", "That is not your password: nothing was deleted.")
        else:
            auth.logout(request)
            return render(request, "web/account_deleted.html")
    return render(request, "web/account_delete.html", {"form": form, "guest": guest})


def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to a new address: it becomes the account's (where reset links go)."""
    user = email_address.confirm_apply(token=token)
    return render(request, "web/email_confirm.html", {"confirmed": user}, status=200 if user else 400)


@ensure_csrf_cookie
def email_way_back(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to the old address: a page whose button (a POST) puts it back and locks the
    account until the owner chooses a new password through a reset."""
    found = email_address.way_back_check(token=token)
    if found is None:
        return render(request, "web/email_way_back.html", {"invalid": True}, status=400)
    done = None
    if request.method == "POST":
        done = email_address.way_back_apply(token=token)
        if request.user.is_authenticated and done is not None and request.user.pk == done.pk:
            auth.logout(request)
    return render(request, "web/email_way_back.html", {"email": found[1], "done": done})


class PasswordResetView(auth_views.PasswordResetView):
    """Ask for a reset link by e-mail. The answer is the same page whether or not an account has the
    address (Django's view sends only if one has); asking is limited per (client address, address
    asked for) (core.limits.RESET) and per client address (RESET_SOURCE), checked before anything is
    looked up. Past a cap nothing is sent and the answer is the same "sent" page, never a 429: the
    owner asking from their own address is never refused because strangers asked. The link is built
    from ``SITE_URL``, never from the request's host."""

    template_name = "web/password_reset_form.html"
    form_class = ResetForm
    success_url = reverse_lazy("web:password_reset_done")

    def form_valid(self, form: Any) -> HttpResponse:
        email = form.cleaned_data["email"]
        source = client_network(self.request)
        try:
            limits.creation_guard(request=self.request, limit=limits.RESET_SOURCE)
            limits.creation_guard(request=self.request, limit=limits.RESET, who=f"{source} {limits.account_key(email)}")
        except limits.Throttled:
            logger.info("password reset past its hourly cap: nothing sent, the same answer")
            return HttpResponseRedirect(self.get_success_url())
        # The same work whatever the address: one task sent, which looks the accounts up and mails them.
        domain, use_https = site_domain()
        reset_mail_queue(email=email, domain=domain, use_https=use_https)
        return HttpResponseRedirect(self.get_success_url())


def site_domain() -> tuple[str, bool]:
    """The configured site's host (with its port, if any) and whether it is https (``SITE_URL``)."""
    parts = urlsplit(settings.SITE_URL)
    return parts.netloc, parts.scheme == "https"


def reset_mail_queue(*, email: str, domain: str, use_https: bool) -> None:
    """Send the reset mail's task; while the broker is down (``core.circuit.BROKER``), mail in the request."""
    if not send("web.send_password_reset", kwargs={"email": email, "domain": domain, "use_https": use_https}):
        logger.warning("could not queue a password-reset mail: sent in the request")
        reset_mail_send(email=email, domain=domain, use_https=use_https)


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "web/password_reset_done.html"

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "timeout_minutes": settings.PASSWORD_RESET_TIMEOUT // 60}


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The link from the e-mail: a new password. The token hashes the password and the last login, so
    it works once, and for PASSWORD_RESET_TIMEOUT seconds; a guest never gets one."""

    template_name = "web/password_reset_confirm.html"
    success_url = reverse_lazy("web:password_reset_complete")

    def get_user(self, uidb64: str) -> Any:
        user = super().get_user(uidb64)
        return None if user is None or services.player_is_guest(player=user) else user  # None: "the link is invalid"

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        limits.limits_forget(usernames=(form.user.get_username(),))  # the owner is back: no back-off left
        return response


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "web/password_reset_complete.html"
