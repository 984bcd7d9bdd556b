"""Reads of the games app: challenges as players may see them."""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.cache import cache
from django.db.models import Count, Exists, OuterRef, Q, QuerySet

from core import names
from core.held import held
from engine import GAME_IDS, GAMES, State, deal, find_rules, play_log, visible
from games import days
from games.errors import InvalidDate, NotFound, UnknownGame
from games.models import Attempt, Challenge, Guest, PlayerBan, PlayerNameKey, Result, Submission

logger = logging.getLogger(__name__)


def parse_game(*, game: str) -> str:
    """A game id of SPEC section 1; UnknownGame (400) for anything else."""
    try:
        return find_rules(game).game
    except ValueError:
        raise UnknownGame(f"unknown game {game!r}: the games are {', '.join(GAME_IDS)}") from None


def parse_date(*, text: str) -> dt.date:
    """A day written YYYY-MM-DD; InvalidDate (400) for anything else."""
    try:
        return days.parse_day(text)
    except ValueError:
        raise InvalidDate(f"{text!r} is not a date: write it as YYYY-MM-DD, e.g. 2026-11-30") from None


def parse_challenge_path(*, date: str, game: str) -> tuple[dt.date, str]:
    """The (day, game) of every /daily/, /leaderboards/ and league board path: the one parser."""
    return parse_date(text=date), parse_game(game=game)


def challenges_shown(*, today: dt.date | None = None) -> QuerySet[Challenge]:
    """The challenges players may see: ready, published, of today or an earlier day (nothing of a
    future day exists outside). The one definition: every getter and list of challenges starts here."""
    return Challenge.objects.filter(status=Challenge.Status.READY, published=True, date__lte=today or days.today())


def challenge_get(*, day: dt.date, game: str) -> Challenge:
    """A challenge players may see (:func:`challenges_shown`); NotFound otherwise."""
    today = days.today()
    if day > today:
        raise NotFound(f"the {game} challenge of {day} is not published yet")
    challenge = challenges_shown(today=today).filter(date=day, game=game).first()
    if challenge is None:
        raise NotFound(f"there is no {game} challenge for {day}")
    return challenge


def challenge_from_path(*, date: str, game: str) -> Challenge:
    """The challenge a path names (``/daily/{date}/{game}``, ``/play/{date}/{game}``): 400, 404 or it."""
    day, game = parse_challenge_path(date=date, game=game)
    return challenge_get(day=day, game=game)


def challenges_of_day(*, day: dt.date) -> list[Challenge]:
    order = {g: i for i, g in enumerate(GAME_IDS)}
    found = challenges_shown().filter(date=day)
    return sorted(found, key=lambda c: order.get(c.game, 99))


def challenge_neighbour_days(*, challenge: Challenge) -> tuple[dt.date | None, dt.date | None]:
    """The nearest earlier and later days players may see with a challenge of the same game (the board's
    previous and next day links); None where there is none."""
    same = challenges_shown().filter(game=challenge.game)
    before = same.filter(date__lt=challenge.date).order_by("-date").values_list("date", flat=True).first()
    after = same.filter(date__gt=challenge.date).order_by("date").values_list("date", flat=True).first()
    return before, after


@dataclass(frozen=True)
class ChallengeCounts:
    players: int
    won: int


# What counts as a result, everywhere (home page, boards, statistics, leagues, admin): ranked, of a
# valid submission, not disqualified. COUNTED is the same condition from a challenge's side.
# Not held for a fair-play check either (games.services.fairplay): a held result counts once staff clear it.
# Assisted results count (statistics, the board of all results); the day's boards rank only the
# unassisted ones (``counted_results().filter(assisted=False)``: SPEC section 7).
COUNTED = Q(results__ranked=True, results__disqualified=False, results__submission__status="valid") & Q(
    results__held=False
)


def counted_results() -> QuerySet[Result]:
    """Results that count: ranked, of a valid submission, not disqualified (and not held for a fair-play check), of a
    player who is not banned (``PlayerBan``: NOT EXISTS by the result's own player_id, like the guests)."""
    return (
        Result.objects.filter(ranked=True, disqualified=False, submission__status=Submission.Status.VALID)
        .filter(held=False)
        .filter(~Exists(PlayerBan.objects.filter(player_id=OuterRef("player_id"))))
    )


def player_ban_get(*, player_id: int) -> PlayerBan | None:
    """The player's ban, or None (``PlayerBan``)."""
    return PlayerBan.objects.filter(player_id=player_id).first()


def player_hidden(*, username: str) -> bool:
    """Whether the profile of ``username`` is hidden from everybody: the player is banned."""
    return PlayerBan.objects.filter(player__username=username).exists()


def player_banned_message(*, reason: str) -> str:
    """What a banned player is told, wherever they are refused (``reason``: their ban's)."""
    why = f" Reason: {reason}" if reason else ""
    return (
        "Your account is banned from the boards: your results are on no board and new ranked games are "
        f"refused.{why} You can still download your data or delete your account (/api/v1/me/export, "
        "/api/v1/me/delete)."
    )


def board_results() -> QuerySet[Result]:
    """The results on the public boards (the day's, league boards, the ranks of profiles): those that
    count, except a guest's, until an account claims it (``services.guest_claim``): a guest, free and
    unlimited, is a way to look at a deal, not a player on the boards. The guest still sees its own
    result and the rank it would have (``leaderboard.selectors.ranks.result_rank``)."""
    # NOT EXISTS on the guests table by the result's own player_id: no join through auth_user, so the
    # plan starts from the results asked for, whatever the tables' statistics (a LEFT JOIN ... IS NULL
    # through the user walked every user while games_guest had none).
    return counted_results().filter(~Exists(Guest.objects.filter(user_id=OuterRef("player_id"))))


def challenge_counts(*, challenges: list[Challenge]) -> dict[int, ChallengeCounts]:
    """Players and winners per challenge, over the results that count. The same for every caller (/daily,
    a challenge's page, the home page): each process holds them ``COUNTS_SECONDS`` (core.held)."""
    key = ("challenge_counts", *(c.pk for c in challenges))
    return held(key, settings.COUNTS_SECONDS, lambda: _challenge_counts(challenges))


def _challenge_counts(challenges: list[Challenge]) -> dict[int, ChallengeCounts]:
    rows = (
        counted_results()
        .filter(challenge__in=challenges)
        .values("challenge_id")
        .annotate(players=Count("id"), won=Count("id", filter=Q(won=True)))
    )
    counts = {row["challenge_id"]: ChallengeCounts(row["players"], row["won"]) for row in rows}
    return {c.pk: counts.get(c.pk, ChallengeCounts(0, 0)) for c in challenges}


def challenge_layout(*, challenge: Challenge) -> dict[str, object]:
    """The opening position as every player sees it: face-down cards and the stock hidden."""
    return visible(State(deal(challenge.game, challenge.seed_int)))


def challenge_is_over(*, challenge: Challenge) -> bool:
    return challenge.date < days.today()


def log_frames(*, game: str, seed: int, moves: list[str]) -> list[dict[str, object]]:
    """The visible position before the first move and after each one of a legal log, compactly.

    For watching a log on the table. Each frame shows only what that prefix of the log has
    disclosed (SPEC section 7): face-down cards are "??", the stock is a count.
    """
    state = State(deal(game, seed))
    frames = [_frame(state)]
    for text in moves:
        state.play_text(text)
        frames.append(_frame(state))
    return frames


# An attempt's replay comes a page at a time: a page costs the frames of its own moves, from the
# position cached at its start (each page computed leaves the one at its end), or at worst one
# replay of the log from the deal (about 5 ms for 5,000 moves); a page is cached as answered. The
# log only grows, so a page and a position at a given length never change (its start time tells
# the attempt from another one that reused its id: a test database).
REPLAY_PAGE_MOVES = 100
REPLAY_CACHE_SECONDS = 24 * 60 * 60


def attempt_replay_page(*, attempt: Attempt, page: int) -> dict[str, Any]:
    """Page ``page`` of the attempt's replay: its stored moves ``first`` to ``first + len(moves) - 1``
    and ``len(moves) + 1`` frames, ``frames[i]`` the visible position before ``moves[i]`` (after the
    first ``first + i`` moves). Frames disclose only what their prefix of the log did (SPEC
    section 7). NotFound past the last page (an empty log has one page: the deal)."""
    return log_replay_page(
        game=attempt.challenge.game,
        seed=attempt.challenge.seed_int,
        moves=list(attempt.moves),
        page=page,
        base=f"dp:replay:{attempt.pk}:{attempt.started_at.timestamp()}",
        what=f"the replay of attempt {attempt.pk}",
    )


def log_replay_page(*, game: str, seed: int, moves: list[str], page: int, base: str, what: str) -> dict[str, Any]:
    """Page ``page`` of a legal log of the deal (``game``, ``seed``), as ``attempt_replay_page`` describes,
    cached under ``base``: a key that changes whenever the log could change other than by growing."""
    pages = max(1, -(-len(moves) // REPLAY_PAGE_MOVES))
    if not 0 <= page < pages:
        raise NotFound(
            f"{what} has {pages} page{'s' if pages > 1 else ''} "
            f"of {REPLAY_PAGE_MOVES} moves (0 to {pages - 1}); no page {page}"
        )
    first = page * REPLAY_PAGE_MOVES
    last = min(len(moves), first + REPLAY_PAGE_MOVES)
    page_key = f"{base}:page:{first}:{last}"
    body = _cache_get(page_key)
    if not isinstance(body, dict):
        state = _position_at(game, seed, moves, first, f"{base}:at:{first}")
        frames = [_frame(state)]
        for text in moves[first:last]:
            state.play_text(text)
            frames.append(_frame(state))
        body = {"moves": moves[first:last], "frames": frames}
        _cache_set({page_key: body, f"{base}:at:{last}": state.snapshot()})
    return {"length": len(moves), "page": page, "pages": pages, "page_moves": REPLAY_PAGE_MOVES, "first": first, **body}


def challenge_solution_replay(*, challenge: Challenge) -> dict[str, Any]:
    """The solver's line of a day that is over with its frames (public, the same for everybody): made
    once and cached, as the day's seed and line no longer change (the key names both all the same)."""
    moves = list(challenge.solution)
    digest = hashlib.sha256(" ".join(moves).encode()).hexdigest()[:16]
    key = f"dp:solution:{challenge.pk}:{challenge.seed_int}:{digest}"
    body = _cache_get(key)
    if not isinstance(body, dict):
        body = {"moves": moves, "frames": log_frames(game=challenge.game, seed=challenge.seed_int, moves=moves)}
        _cache_set({key: body})
    return body


def _position_at(game: str, seed: int, moves: list[str], length: int, key: str) -> State:
    """The position after the log's first ``length`` moves: cached, else replayed from the deal."""
    dealt = deal(game, seed)
    snapshot = _cache_get(key) if length else None
    if snapshot is not None:
        try:
            return State.restore(dealt, snapshot)
        except (TypeError, ValueError):
            logger.warning("replay position %s does not fit its deal: replaying", key)
    state = State(dealt)
    error = play_log(state, moves[:length])
    if error is not None:  # pragma: no cover - stored logs are checked move by move
        raise RuntimeError(f"stored log does not replay: {error}")
    return state


def _cache_get(key: str) -> Any:
    try:
        return cache.get(key)
    except Exception:  # a cache is never needed: compute
        logger.warning("replay cache unreadable", exc_info=True)
        return None


def _cache_set(values: dict[str, Any]) -> None:
    try:
        cache.set_many(values, REPLAY_CACHE_SECONDS)
    except Exception:
        logger.warning("replay cache not written", exc_info=True)


def _frame(state: State) -> dict[str, object]:
    view = visible(state)
    return {
        "t": [[c["card"] for c in column] for column in view["tableau"]],  # type: ignore[attr-defined]
        "s": view["stock"],
        "w": view["waste"],
        "f": [pile[-1] if pile else None for pile in view["foundations"]],  # type: ignore[attr-defined]
        "r": view["redeals_left"],
        "score": view["score"],
        "moves": view["moves"],
        "home": view["foundation_cards"],
        "won": view["won"],
    }


def player_latest_attempt(*, player: User, challenge: Challenge) -> tuple[Attempt | None, bool]:
    """The player's latest attempt on the challenge, and whether a ranked one exists."""
    mine = Attempt.objects.filter(player=player, challenge=challenge)
    return mine.order_by("-started_at", "-id").first(), mine.filter(ranked=True).exists()


def challenges_archived(*, days_back: int) -> list[Challenge]:
    """Published, ready challenges of the last ``days_back`` days before today, newest first."""
    today = days.today()
    return list(
        challenges_shown(today=today)
        .filter(date__lt=today, date__gte=today - dt.timedelta(days=days_back))
        .order_by("-date")
    )


def player_name_clash(*, name: str) -> str | None:
    """Why a cleaned name cannot be signed up (taken, or too like an existing name), or None: what
    ``services.player_create`` would refuse, asked first so that a form says it with its other errors at
    once. The create itself decides (its unique keys), so a name taken in between is still refused."""
    if User.objects.filter(username__iexact=name).exists():
        return f"The username {name!r} is taken."
    clash = PlayerNameKey.objects.filter(key__in=names.name_keys(name)).select_related("user").order_by("key").first()
    if clash is None:
        return None
    if clash.key.startswith("f:"):
        return f"The username {name!r} is taken."
    return f"The username {name!r} looks too much like the existing name {clash.user.get_username()!r}: choose another."


def player_username(*, username: str) -> tuple[str, bool] | None:
    """The stored spelling of a player's name and whether the player is a guest (whose internal name
    means nothing to anybody: pages say "Guest"), or None when there is no such player."""
    user = User.objects.filter(username=username, ban__isnull=True).only("username").first()
    if user is None:  # (a banned player's page is hidden: PlayerBan)
        return None
    return user.get_username(), Guest.objects.filter(user_id=user.pk).exists()


def play_time_text(*, ms: int) -> str:
    """A play time as every display shows it: minutes, seconds and hundredths, cut (never rounded)
    from the server's measure (``Attempt.play_time_ms``), e.g. ``1:27.72``."""
    centis = max(0, ms) // 10
    return f"{centis // 6000}:{centis // 100 % 60:02d}.{centis % 100:02d}"


def result_share_text(*, result: Result, rank: int | None, total: int | None = None) -> str:
    """Spoiler-free: the game, the day and the numbers (the play time too), never a card.

    ``rank`` of ``total``: the result's place on the day's board (SPEC section 7: the unassisted ranked
    results), given only when it is there and won. Anything else says what it is instead of a rank: not won,
    practice, assisted (a hint, or a look taken back), held for a fair-play check, or not on the board (a guest's)."""
    challenge = result.challenge
    lines = [f"Daily Patience: {GAMES[challenge.game].name}, {challenge.date:%d %b %Y}"]
    outcome = "Won" if result.won else f"{result.foundation_cards}/{GAMES[challenge.game].cards} cards home"
    moves = f"{result.moves} move{'s' if result.moves != 1 else ''}"
    parts = [outcome, f"{result.score} points", moves, play_time_text(ms=result.play_time_ms)]
    if GAMES[challenge.game].passes != 1:
        parts.append(f"{result.redeals} redeal{'s' if result.redeals != 1 else ''}")
    if not result.ranked:
        parts.append("practice, not on the board")
    elif result.assisted:
        parts.append("assisted, not on the day's board")
    elif result.disqualified:
        parts.append("disqualified")
    elif result.held:
        parts.append("held for a fair-play check")
    elif rank is None:
        parts.append("not on the board")
    elif not result.won:
        parts.append("not won")  # a loss never reads "rank 1": its place is below every win
    else:
        # The board grows all day: the rank is the one when the text was made, and says so.
        parts.append(f"rank {rank} of {total} at the time of sharing" if total else f"rank {rank}")
    lines.append(" | ".join(parts))
    return "\n".join(lines)


def attempt_is_public(*, attempt: Attempt) -> bool:
    """Whether anybody may watch the attempt and read its review: a finished ranked game of a day that is
    over (as on Lichess, ranked games are public after their day) whose result the public boards show
    (:func:`board_results`: valid, not held, not disqualified, not a guest's until an account claims it).
    Practice stays its player's; nothing of a day that is not over is anybody else's; a held game is
    nobody else's until staff clear it (SPEC section 7)."""
    return (
        attempt.ranked
        and attempt.finished_at is not None
        and days.is_over(attempt.challenge.date)
        and board_results().filter(submission__attempt_id=attempt.pk).exists()
    )


def attempt_visible(*, attempt_id: int, viewer: object) -> Attempt:
    """The attempt, for its own player at any time, for anybody (guests and anonymous callers included)
    once :func:`attempt_is_public`. Otherwise not found: whether it exists says nothing."""
    attempt = Attempt.objects.select_related("challenge", "player").filter(pk=attempt_id).first()
    if attempt is not None:
        owner = getattr(viewer, "is_authenticated", False) and attempt.player_id == getattr(viewer, "pk", None)
        if owner or attempt_is_public(attempt=attempt):
            return attempt
    raise NotFound(f"attempt {attempt_id} not found")
