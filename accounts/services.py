"""A player's account as a whole: banning, deleting (erasure) and the export of everything we hold.

PostgreSQL is the truth: each service makes its change in one transaction, marks the boards it changed
in the same transaction and rebuilds their Redis mirror from PostgreSQL after the commit
(``leaderboard.services.leaderboard_boards_mark``); Redis down loses nothing (beat rebuilds the marked
boards once it is back). ``docs/operations.md`` ("Bans and erasure") is the operator's side of this module.

- :func:`player_ban` / :func:`player_unban`: a ``games.models.PlayerBan`` row. While it stands, none of
  the player's results counts (``games.selectors.counted_results``): on no board, day, all, league,
  profile ranks or statistics; their profile is hidden; a ranked start is refused with a message that
  says why. They can still sign in, play practice, export their data and delete their account. An
  unban puts their results back; nothing was deleted.
- :func:`player_delete`: the player's row and everything of theirs goes (attempts, results, fair-play
  cases of their results, statistics, tokens, memberships: cascades); their name leaves other players'
  fair-play cases (``games.services.erasure``) and the stored best-players lists of game reviews; each
  league they own passes to its longest-standing other member, or is deleted when they were its only
  member (``leagues.services.leagues_owner_deleted``). The other players' ranks close up: a board's ranks
  are row numbers over what remains, in PostgreSQL and, once repaired, in Redis.
- :func:`player_export`: a JSON-ready dict of what we hold about the player.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import User
from django.db import OperationalError, connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from core.errors import BadRequest
from follows.models import Follow
from games.models import ApiToken, Attempt, FairPlayCase, PlayerBan, Result, Submission
from games.services.erasure import fair_play_cases_forget_players, name_replace
from habits.models import Reminder
from leaderboard.models import PlayerStats
from leaderboard.services import leaderboard_boards_mark, leaderboard_player_boards_mark
from leagues.models import League, Membership
from leagues.services import leagues_owner_deleted
from ratings.models import RatingHistory
from reviews.models import GameReview

logger = logging.getLogger(__name__)

EXPORT_FORMAT = 2  # 2: the fair-play cases are "fair_play_cases" (were "reviews")
DEADLOCK_TRIES = 3


def _locked(player_id: int) -> User | None:
    """The player's row, locked for the transaction (bans, unbans and deletes of one player queue up)."""
    return User.objects.select_for_update().filter(pk=player_id).first()


def player_ban(*, player: User, by: User | None, reason: str = "") -> PlayerBan:
    """Ban ``player`` from the boards (idempotent: a second ban keeps the first, reason and all).

    Staff cannot be banned here (take their staff status away first), nor can anyone ban themselves.
    """
    if by is not None and by.pk == player.pk:
        raise BadRequest("You cannot ban yourself.")
    if player.is_staff or player.is_superuser:
        raise BadRequest(f"{player.get_username()} is staff: take away their staff status before banning them.")
    with transaction.atomic():
        if _locked(player.pk) is None:
            raise BadRequest(f"player {player.pk} no longer exists")
        ban, created = PlayerBan.objects.get_or_create(
            player_id=player.pk, defaults={"reason": reason.strip(), "banned_by": by}
        )
        if created:
            leaderboard_player_boards_mark(player_id=player.pk)
    if created:
        logger.info("player %s banned by %s", player.pk, by.pk if by is not None else None)
    return ban


def player_unban(*, player: User, by: User | None) -> bool:
    """Lift the ban: the player's results count again. False if they were not banned."""
    with transaction.atomic():
        if _locked(player.pk) is None:
            return False
        removed, _ = PlayerBan.objects.filter(player_id=player.pk).delete()
        if removed:
            leaderboard_player_boards_mark(player_id=player.pk)
    if removed:
        logger.info("player %s unbanned by %s", player.pk, by.pk if by is not None else None)
    return bool(removed)


@dataclass
class Deletion:
    """What :func:`player_delete` did."""

    username: str
    boards: list[int] = field(default_factory=list)  # challenges whose boards the player was on
    leagues_transferred: list[int] = field(default_factory=list)
    leagues_deleted: list[int] = field(default_factory=list)
    fair_play_cases_scrubbed: int = 0
    game_reviews_scrubbed: int = 0


def player_delete(*, player: User, by: User | None = None) -> Deletion:
    """Delete the player and erase them from what others see (see the module's docstring).

    The player's submissions and attempts are locked first: a submission being validated, or a batch of
    moves being stored, finishes before the delete goes on (and is deleted with it), or finds its rows
    gone. A deadlock with a validation (PostgreSQL breaks it) is tried again.
    """
    for tries_left in range(DEADLOCK_TRIES - 1, -1, -1):
        try:
            return _player_delete(player=player, by=by)
        except OperationalError as exc:
            # Inside a caller's transaction (the admin's delete view) that transaction is lost: its caller retries.
            if tries_left == 0 or "deadlock" not in str(exc) or connection.in_atomic_block:
                raise
            logger.warning("deleting player %s met a deadlock; trying again", player.pk)
    raise AssertionError("unreachable")


def _player_delete(*, player: User, by: User | None) -> Deletion:
    with transaction.atomic():
        # In the order a validation takes them (its submission, its attempt, then the player's row
        # through the result's key): a validation under way finishes first, one after finds its rows
        # gone. A submission made between the two reads is locked by the cascade; a validation
        # that took it first is a deadlock PostgreSQL breaks, and the loser tries again.
        _lock(Submission.objects.filter(attempt__player_id=player.pk))
        _lock(Attempt.objects.filter(player_id=player.pk))
        locked = _locked(player.pk)
        if locked is None:
            raise BadRequest(f"player {player.pk} no longer exists")
        name = locked.get_username()
        done = Deletion(username=name)
        done.boards = sorted(
            set(Result.objects.filter(player_id=player.pk, ranked=True).values_list("challenge_id", flat=True))
        )
        leagues = leagues_owner_deleted(player_id=player.pk)
        done.leagues_transferred, done.leagues_deleted = leagues["transferred"], leagues["deleted"]
        done.game_reviews_scrubbed = _game_reviews_forget(name, challenge_ids=done.boards)
        locked.delete()
        done.fair_play_cases_scrubbed = fair_play_cases_forget_players(usernames=[name])
        leaderboard_boards_mark(challenge_ids=done.boards)
    logger.info(
        "player %s deleted by %s: %s board(s), leagues %s passed on and %s deleted, %s fair-play case(s) scrubbed",
        player.pk,
        "themself" if by is None or by.pk == player.pk else by.pk,
        len(done.boards),
        done.leagues_transferred,
        done.leagues_deleted,
        done.fair_play_cases_scrubbed,
    )
    return done


def _lock(rows: QuerySet[Any]) -> None:
    list(rows.select_for_update(of=("self",)).order_by("pk").values_list("pk", flat=True))


def _game_reviews_forget(username: str, *, challenge_ids: list[int]) -> int:
    """Drop the player from the best-players lists stored in other players' game reviews (the review's
    page reads that list again from the boards; the stored copy must not keep the name either). Such a
    list names the best of one challenge's board: only the challenges the player ranked on can hold it."""
    changed = 0
    rows = GameReview.objects.select_for_update(of=("self",)).filter(
        attempt__challenge_id__in=challenge_ids, data__has_key="best_players"
    )
    for review in rows:
        data = review.data
        if not isinstance(data, dict) or not isinstance(data.get("best_players"), list):
            continue
        kept = [p for p in data["best_players"] if not (isinstance(p, dict) and p.get("player") == username)]
        if len(kept) != len(data["best_players"]):
            review.data = {**data, "best_players": kept}
            review.save(update_fields=["data"])
            changed += 1
    return changed


# --- The export -------------------------------------------------------------------------------------


def _when(value: Any) -> str | None:
    return None if value is None else value.isoformat()


def _redacted(text: str, others: list[Any]) -> str:
    """A fair-play case's reason with the other players' names taken out: their names are their data."""
    for name in sorted({str(o) for o in others if o}, key=len, reverse=True):
        text = name_replace(text=text, name=name, by="another player")
    return text


def player_export(*, player: User) -> dict[str, Any]:
    """Everything we hold about the player, JSON-ready: the account, every attempt with its move log,
    submission and result, fair-play cases of their results and those of others' results that name them
    (without the other players' names), their statistics, leagues and tokens (never a token's key)."""
    name = player.get_username()
    ban = PlayerBan.objects.filter(player_id=player.pk).first()
    attempts = (
        Attempt.objects.filter(player_id=player.pk)
        .select_related("challenge", "submission", "submission__result")
        .order_by("started_at", "pk")
    )
    results_cases: dict[int, list[FairPlayCase]] = {}
    for case in FairPlayCase.objects.filter(result__player_id=player.pk).order_by("created_at", "pk"):
        results_cases.setdefault(case.result_id, []).append(case)
    game_reviews = {r.attempt_id: r for r in GameReview.objects.filter(attempt__player_id=player.pk)}
    stats = PlayerStats.objects.filter(player_id=player.pk).first()
    naming = [
        case
        for case in FairPlayCase.objects.filter(reason__contains=name)
        .exclude(result__player_id=player.pk)
        .select_related("result__challenge")
        .order_by("created_at", "pk")
        if name in [str(o) for o in (case.others or [])]
    ]
    return {
        "format": EXPORT_FORMAT,
        "exported_at": timezone.now().isoformat(),
        "account": {
            "id": player.pk,
            "username": name,
            "email": player.email,
            "date_joined": _when(player.date_joined),
            "last_login": _when(player.last_login),
            "guest": hasattr(player, "guest"),
            "is_staff": player.is_staff,
            "banned": None if ban is None else {"since": _when(ban.created_at), "reason": ban.reason},
        },
        "statistics": None
        if stats is None
        else {
            "played": stats.played,
            "won": stats.won,
            "current_streak": stats.current_streak,
            "best_streak": stats.best_streak,
            "last_played_date": _when(stats.last_played_date),
            "last_won_date": _when(stats.last_won_date),
        },
        "attempts": [_attempt_export(a, results_cases, game_reviews) for a in attempts],
        "fair_play_cases_naming_me": [
            {
                "date": _when(r.result.challenge.date),
                "game": r.result.challenge.game,
                "kind": r.kind,
                "status": r.status,
                "created_at": _when(r.created_at),
                "reason": _redacted(r.reason, [o for o in (r.others or []) if o != name]),
            }
            for r in naming
        ],
        "leagues": [
            {
                "id": m.league_id,
                "name": m.league.name,
                "owner": m.league.owner_id == player.pk,
                "invite_code": m.league.invite_code if m.league.owner_id == player.pk else None,
                "joined_at": _when(m.joined_at),
            }
            for m in Membership.objects.filter(player_id=player.pk).select_related("league").order_by("joined_at")
        ],
        "leagues_owned_without_membership": [
            {"id": lg.pk, "name": lg.name}
            for lg in League.objects.filter(owner_id=player.pk).exclude(memberships__player_id=player.pk)
        ],
        "api_tokens": [{"created": _when(t.created)} for t in _tokens(player)],
        # Whom they follow (a list only its owner reads); who follows them is the followers' data.
        "follows": [
            {"username": f.followed.get_username(), "since": _when(f.created_at)}
            for f in Follow.objects.filter(follower_id=player.pk).select_related("followed").order_by("created_at")
        ],
        "reminder": None
        if (reminder := Reminder.objects.filter(player_id=player.pk).first()) is None
        else {
            "enabled": reminder.enabled,
            "remind_at": reminder.remind_at.isoformat() if reminder.remind_at else None,
            "time_zone": reminder.time_zone,
            "last_sent_day": _when(reminder.last_sent_day),
        },
        "ratings": [
            {
                "game": h.game,
                "day": _when(h.day),
                "rating": h.rating,
                "previous": h.previous,
                "mu": h.mu,
                "sigma": h.sigma,
                "rank": h.rank,
                "players": h.players,
            }
            for h in RatingHistory.objects.filter(player_id=player.pk).order_by("game", "day")
        ],
    }


def _tokens(player: User) -> list[ApiToken]:
    return list(ApiToken.objects.filter(user_id=player.pk).order_by("created"))


def _attempt_export(
    attempt: Attempt, cases: dict[int, list[FairPlayCase]], game_reviews: dict[int, GameReview]
) -> dict[str, Any]:
    submission = getattr(attempt, "submission", None)
    result: Result | None = getattr(submission, "result", None) if submission is not None else None
    game_review = game_reviews.get(attempt.pk)
    return {
        "id": attempt.pk,
        "date": _when(attempt.challenge.date),
        "game": attempt.challenge.game,
        "ranked": attempt.ranked,
        "assisted": attempt.assisted,
        "started_at": _when(attempt.started_at),
        "finished_at": _when(attempt.finished_at),
        "moves": list(attempt.moves or []),
        "batches": list(attempt.batches or []),  # per stored batch: [ms since the start, moves]
        "origin": attempt.origin,  # keyed hashes of the address and browser it was started from (never either)
        "browser": attempt.browser,
        "submission": None
        if submission is None
        else {"status": submission.status, "error": submission.error, "created_at": _when(submission.created_at)},
        "result": None
        if result is None
        else {
            "won": result.won,
            "score": result.score,
            "moves": result.moves,
            "foundation_cards": result.foundation_cards,
            "play_time_ms": result.play_time_ms,
            "finished_at": _when(result.finished_at),
            "assisted": result.assisted,
            "held": result.held,
            "disqualified": result.disqualified,
            "fair_play_cases": [
                {
                    "kind": r.kind,
                    "status": r.status,
                    "holds": r.holds,
                    "created_at": _when(r.created_at),
                    "reason": _redacted(r.reason, list(r.others or [])),
                }
                for r in cases.get(result.pk, [])
            ],
        },
        "game_review": None if game_review is None else {"status": game_review.status, "outcome": game_review.outcome},
    }
