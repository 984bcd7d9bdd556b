"""Bans and deletion: the player leaves every board, in PostgreSQL and on the Redis mirror, and the
others' ranks close up (1..N, no gap), with Redis up or down; names leave other players' fair-play
cases; a league owned by a deleted player passes on (or goes, when nobody else is in it)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.utils import timezone
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from accounts import services
from core.circuit import reset_all
from core.errors import BadRequest
from games import services as games_services
from games.models import Attempt, FairPlayCase, Guest, PlayerBan, Result
from games.services.erasure import DELETED_PLAYER
from leaderboard import redis_store
from leaderboard.models import BoardRepair, PlayerStats
from leaderboard.selectors.boards import leaderboard_page, leaderboard_rank
from leaderboard.selectors.profiles import player_stats_compute
from leaderboard.tasks import repair_boards
from leaderboard.tests.factories import make_challenge, make_result, make_user
from leagues.models import League, Membership
from reviews.models import GameReview

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 11, 20)
DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens there: every command fails at once


def board_of(n: int, *, banned_at: int = 1) -> tuple[Any, list[Any], Any]:
    """A board of ``n`` players (scores 900, 890, ...): the player ranked ``banned_at + 1`` is returned apart."""
    challenge = make_challenge(date=DAY)
    players = [make_user(f"p{i}-{challenge.pk}") for i in range(n)]
    for i, player in enumerate(players):
        make_result(challenge=challenge, player=player, score=900 - 10 * i)
    return challenge, players, players[banned_at]


def ranks(challenge: Any, *, clean: bool = False) -> tuple[list[tuple[int, str]], str]:
    page = leaderboard_page(challenge=challenge, offset=0, limit=100, clean=clean)
    assert page.total == len(page.entries)
    return [(e.rank, e.player) for e in page.entries], page.source


def assert_closed_up(challenge: Any, players: list[Any], gone: Any, *, source: str) -> None:
    """The others, in their order, ranked 1..N without a gap, on both boards, by page and by rank."""
    others = [p for p in players if p.pk != gone.pk]
    for clean in (False, True):
        listed, read_from = ranks(challenge, clean=clean)
        assert listed == [(i + 1, p.username) for i, p in enumerate(others)]
        assert read_from == source
        for i, player in enumerate(others):
            assert leaderboard_rank(challenge=challenge, player=player, clean=clean) == i + 1
        assert leaderboard_rank(challenge=challenge, player=gone.pk, clean=clean) is None


# --- Bans -------------------------------------------------------------------------------------------


def test_a_ban_takes_the_player_off_every_board_and_the_others_close_up(
    backend: str, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    challenge, players, banned = board_of(5)
    staff = make_user("mod")
    assert ranks(challenge)[0][1] == (2, banned.username)  # on the board (and in Redis, built by that read)
    with django_capture_on_commit_callbacks(execute=True):
        services.player_ban(player=banned, by=staff, reason="botting")
    assert_closed_up(challenge, players, banned, source=backend)
    assert PlayerBan.objects.get(player=banned).banned_by == staff
    assert player_stats_compute(player=banned.pk, today=DAY).played == 0  # no result of theirs counts
    assert PlayerStats.objects.get(player=banned).played == 0
    # Lifted: back in their place, nothing was deleted.
    with django_capture_on_commit_callbacks(execute=True):
        assert services.player_unban(player=banned, by=staff) is True
    assert ranks(challenge)[0] == [(i + 1, p.username) for i, p in enumerate(players)]
    assert services.player_unban(player=banned, by=staff) is False


@pytest.mark.redis
def test_the_redis_board_itself_loses_the_banned_entry(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    challenge, _, banned = board_of(4)
    ranks(challenge)  # built
    client = redis_store.get_client()
    assert client is not None
    keys = redis_store.board_keys(challenge=challenge)
    assert client.hget(keys.members, str(banned.pk)) is not None
    with django_capture_on_commit_callbacks(execute=True):
        services.player_ban(player=banned, by=None)
    assert client.hget(keys.members, str(banned.pk)) is None
    assert client.zcard(keys.all) == 3 and client.zcard(keys.clean) == 3


def test_a_ban_is_idempotent_and_refuses_staff_and_oneself() -> None:
    _, _, player = board_of(2)
    staff = make_user("mod2")
    first = services.player_ban(player=player, by=staff, reason="first")
    assert services.player_ban(player=player, by=staff, reason="second").pk == first.pk
    assert PlayerBan.objects.get(player=player).reason == "first"
    with pytest.raises(BadRequest):
        services.player_ban(player=staff, by=staff)
    staff.is_staff = True
    staff.save()
    with pytest.raises(BadRequest, match="staff"):
        services.player_ban(player=staff, by=player)


def test_a_banned_players_new_ranked_result_does_not_count(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """A result validated after the ban (a game open when it came) is on no board either."""
    _, _, banned = board_of(3)
    services.player_ban(player=banned, by=None)
    later = make_challenge(date=DAY + dt.timedelta(days=1))
    other = make_user("later-other")
    make_result(challenge=later, player=other, score=100)
    with django_capture_on_commit_callbacks(execute=True):
        make_result(challenge=later, player=banned, score=999)
    assert ranks(later)[0] == [(1, other.username)]


@pytest.mark.redis
def test_redis_down_during_a_ban_postgresql_stays_the_truth_and_the_board_is_repaired(
    settings: Settings, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    challenge, players, banned = board_of(5)
    assert ranks(challenge)[1] == "redis"  # the mirror holds the banned player
    up = settings.REDIS_URL
    settings.REDIS_URL = DEAD_REDIS
    with django_capture_on_commit_callbacks(execute=True):
        services.player_ban(player=banned, by=None)  # the repair fails: logged, the ban stands
    assert PlayerBan.objects.filter(player=banned).exists()
    assert ranks(challenge)[0] == [(i + 1, p.username) for i, p in enumerate(p for p in players if p != banned)]
    assert list(BoardRepair.objects.values_list("challenge_id", flat=True)) == [challenge.pk]  # with the ban
    assert repair_boards() == 1  # beat, while Redis is still down: nothing lost, still marked
    settings.REDIS_URL = up  # back, with the board as it stood before the ban
    reset_all()
    client = redis_store.get_client()
    assert client is not None
    assert client.hget(redis_store.board_keys(challenge=challenge).members, str(banned.pk)) is not None  # stale
    first = ranks(challenge)  # a page naming a result that no longer counts: read from PostgreSQL, dropped
    assert first[0] == [(i + 1, p.username) for i, p in enumerate(p for p in players if p != banned)]
    assert repair_boards() == 0  # beat's next run rebuilds it from PostgreSQL
    assert not BoardRepair.objects.exists()
    assert_closed_up(challenge, players, banned, source="redis")


@pytest.mark.redis
def test_beat_repairs_a_board_left_stale_without_waiting_for_a_page_read(
    settings: Settings, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    """The ranks read through Redis (``leaderboard_rank``) are right once beat has run, page read or not."""
    challenge, players, banned = board_of(5, banned_at=0)
    ranks(challenge)
    up = settings.REDIS_URL
    settings.REDIS_URL = DEAD_REDIS
    with django_capture_on_commit_callbacks(execute=True):
        services.player_ban(player=banned, by=None)
    settings.REDIS_URL = up
    reset_all()
    assert leaderboard_rank(challenge=challenge, player=players[1]) == 2  # stale: the banned one still ahead
    assert repair_boards() == 0
    assert [leaderboard_rank(challenge=challenge, player=p) for p in players[1:]] == [1, 2, 3, 4]


# --- Deletion ---------------------------------------------------------------------------------------


def test_deleting_a_player_purges_the_boards_and_the_others_close_up(
    backend: str, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    challenge, players, doomed = board_of(5, banned_at=0)
    ranks(challenge)
    with django_capture_on_commit_callbacks(execute=True):
        done = services.player_delete(player=doomed)
    assert done.boards == [challenge.pk]
    assert not get_user_model().objects.filter(pk=doomed.pk).exists()
    assert not Result.objects.filter(player_id=doomed.pk).exists()
    assert_closed_up(challenge, players, doomed, source=backend)


@pytest.mark.redis
def test_redis_down_during_a_delete(
    settings: Settings, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks
) -> None:
    challenge, players, doomed = board_of(4, banned_at=0)
    ranks(challenge)
    up = settings.REDIS_URL
    settings.REDIS_URL = DEAD_REDIS
    with django_capture_on_commit_callbacks(execute=True):
        services.player_delete(player=doomed)
    assert not get_user_model().objects.filter(pk=doomed.pk).exists()
    assert BoardRepair.objects.filter(challenge=challenge).exists()
    settings.REDIS_URL = up
    reset_all()
    assert repair_boards() == 0
    assert_closed_up(challenge, players, doomed, source="redis")


def test_deleting_a_player_takes_their_name_out_of_other_players_fair_play_cases() -> None:
    challenge, players, doomed = board_of(3, banned_at=0)
    victim = Result.objects.get(player=players[1], challenge=challenge)
    names = sorted([doomed.username, players[2].username])
    case = FairPlayCase.objects.create(
        result=victim,
        kind=FairPlayCase.Kind.ADDRESS,
        holds=False,
        others=names,
        reason=f"Flagged: {', '.join(names)} also ranked on this challenge from the same client address.",
    )
    # A name that merely contains the deleted one is left alone.
    longer = FairPlayCase.objects.create(
        result=victim,
        kind=FairPlayCase.Kind.BROWSER,
        holds=False,
        others=[f"{doomed.username}x"],
        reason=f"Flagged: {doomed.username}x also ranked on this challenge from the same browser.",
    )
    attempt = Attempt.objects.get(player=players[1], challenge=challenge)
    game_review = GameReview.objects.create(
        attempt=attempt,
        status=GameReview.Status.DONE,
        data={"best_players": [{"player": doomed.username, "score": 900}, {"player": players[2].username}]},
    )
    done = services.player_delete(player=doomed)
    assert done.fair_play_cases_scrubbed == 1 and done.game_reviews_scrubbed == 1
    case.refresh_from_db()
    assert doomed.username not in case.reason and doomed.username not in case.others
    assert DELETED_PLAYER in case.others and players[2].username in case.others
    assert case.reason.count(DELETED_PLAYER) == 1
    longer.refresh_from_db()
    assert longer.others == [f"{doomed.username}x"]
    game_review.refresh_from_db()
    assert game_review.data["best_players"] == [{"player": players[2].username}]


def test_a_league_of_a_deleted_owner_passes_to_its_longest_standing_member_or_goes() -> None:
    owner, first, second = make_user("owner"), make_user("first"), make_user("second")
    shared = League.objects.create(name="shared", owner=owner)
    Membership.objects.create(league=shared, player=owner)
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=1), tick=False):
        Membership.objects.create(league=shared, player=first)
    with time_machine.travel(timezone.now() + dt.timedelta(minutes=2), tick=False):
        Membership.objects.create(league=shared, player=second)
    alone = League.objects.create(name="alone", owner=owner)
    Membership.objects.create(league=alone, player=owner)
    done = services.player_delete(player=owner)
    assert done.leagues_transferred == [shared.pk] and done.leagues_deleted == [alone.pk]
    shared.refresh_from_db()
    assert shared.owner_id == first.pk  # transferred, members kept
    assert set(Membership.objects.filter(league=shared).values_list("player_id", flat=True)) == {first.pk, second.pk}
    assert not League.objects.filter(pk=alone.pk).exists()


def test_deleting_a_player_that_is_gone_says_so() -> None:
    player = make_user()
    stale = get_user_model().objects.get(pk=player.pk)
    services.player_delete(player=player)
    with pytest.raises(BadRequest, match="no longer exists"):
        services.player_delete(player=stale)


def test_the_guest_sweep_takes_swept_guests_names_out_of_fair_play_cases() -> None:
    challenge, players, _ = board_of(2)
    now = timezone.now()
    with time_machine.travel(now - dt.timedelta(days=40), tick=False):
        guest = games_services.guest_create()
    victim = Result.objects.get(player=players[0], challenge=challenge)
    case = FairPlayCase.objects.create(
        result=victim,
        kind=FairPlayCase.Kind.ADDRESS,
        holds=True,
        others=[guest.username],
        reason=f"Held: hidden cards of this deal were disclosed to {guest.username} from the same client address.",
    )
    assert games_services.guests_delete_idle(now=now) == 1
    assert not Guest.objects.filter(user_id=guest.pk).exists()
    case.refresh_from_db()
    assert case.others == [DELETED_PLAYER] and guest.username not in case.reason
