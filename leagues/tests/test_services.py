"""Creating, joining, leaving and deleting leagues; limits, also under concurrency on PostgreSQL."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from django.db import IntegrityError, connections, transaction

from leaderboard.tests.factories import make_user
from leagues import services
from leagues.errors import (
    InvalidLeagueName,
    LeagueFull,
    LeagueNotFound,
    NotLeagueOwner,
    OwnerCannotLeave,
    TooManyLeagues,
)
from leagues.models import INVITE_CODE_ALPHABET, INVITE_CODE_LENGTH, League, Membership
from leagues.tests.factories import make_league, snapshot

pytestmark = pytest.mark.django_db


def members_of(league: League) -> list[str]:
    return list(Membership.objects.filter(league=league).order_by("id").values_list("player__username", flat=True))


# --- Create --------------------------------------------------------------------------------------


def test_create_makes_the_owner_a_member() -> None:
    owner = make_user("olga")
    league = services.league_create(owner=owner, name="  Tuesday Club  ")
    league.refresh_from_db()
    assert (league.name, league.owner_id) == ("Tuesday Club", owner.pk)
    assert members_of(league) == ["olga"]
    assert len(league.invite_code) == INVITE_CODE_LENGTH
    assert set(league.invite_code) <= set(INVITE_CODE_ALPHABET)


def test_invite_codes_differ() -> None:
    owner = make_user()
    codes = {services.league_create(owner=owner, name=f"League {i}").invite_code for i in range(20)}
    assert len(codes) == 20


@pytest.mark.parametrize("name", ["ab", "   ab   ", "", "x" * 61, "bad\nname", "tab\there"])
def test_create_refuses_a_bad_name(name: str) -> None:
    owner = make_user()
    before = snapshot()
    with pytest.raises(InvalidLeagueName):
        services.league_create(owner=owner, name=name)
    assert snapshot() == before


@pytest.mark.parametrize(
    "name",
    [
        "evil\u202egnp.exe",  # right-to-left override: shows as "evilexe.png"
        "\u2067Tuesday\u2069 Club",  # isolates
        "Tues\u200eday",  # left-to-right mark
        "zero\u200bwidth",  # zero-width space
        "jo\u200din",  # zero-width joiner between letters
        "\ufeffBOM club",  # zero-width no-break space
        "soft\u00adhyphen",
        "Hangul\u3164filler",
        "tag\U000e0041s",  # a tag character
        "line\u2028break",
        "\u200b\u200b\u200b",  # nothing visible at all
    ],
)
def test_create_refuses_bidi_controls_and_invisible_characters(name: str) -> None:
    before = snapshot()
    with pytest.raises(InvalidLeagueName, match=r"U\+|control"):
        services.league_create(owner=make_user(), name=name)
    assert snapshot() == before


@pytest.mark.parametrize(
    "name",
    ["abc", "x" * 60, "Ünïcødé ♠♥", " padded name ", "I \u2764\ufe0f cards", "👨\u200d👩\u200d👧 club", "東京クラブ"],
)
def test_create_accepts_names_of_3_to_60_characters(name: str) -> None:
    league = services.league_create(owner=make_user(), name=name)
    assert league.name == name.strip()


def test_the_database_refuses_a_short_name() -> None:
    owner = make_user()
    with pytest.raises(IntegrityError), transaction.atomic():
        League.objects.create(owner=owner, name="ab", invite_code="abcdefghjk")


def test_an_owner_has_at_most_20_leagues() -> None:
    owner = make_user()
    for i in range(services.MAX_OWNED_LEAGUES):
        services.league_create(owner=owner, name=f"League {i}")
    before = snapshot()
    with pytest.raises(TooManyLeagues):
        services.league_create(owner=owner, name="One too many")
    assert snapshot() == before
    # Membership of other leagues does not count; another owner is not limited.
    other = make_user()
    services.league_join(player=owner, invite_code=services.league_create(owner=other, name="Other's").invite_code)
    # Deleting one frees a place.
    league = League.objects.filter(owner=owner).first()
    assert league is not None
    services.league_delete(owner=owner, league_id=league.pk)
    services.league_create(owner=owner, name="Room again")


def test_a_taken_code_is_drawn_again() -> None:
    taken = make_league(owner=make_user()).invite_code
    with mock.patch("leagues.services.new_invite_code", side_effect=[taken, "fresh00000"]):
        league = services.league_create(owner=make_user(), name="Lucky")
    assert league.invite_code == "fresh00000"


def test_a_code_collision_at_insert_time_is_retried() -> None:
    """The code was free when checked but taken when inserted (a concurrent creation)."""
    taken = make_league(owner=make_user()).invite_code
    real_exists = League.objects.filter  # the manager leagues.services reads
    calls = {"n": 0}

    def filter_once_blind(*args: Any, **kwargs: Any) -> Any:
        qs = real_exists(*args, **kwargs)
        if kwargs.get("invite_code") == taken and calls["n"] == 0:
            calls["n"] += 1
            return League.objects.none()
        return qs

    with (
        mock.patch("leagues.services.new_invite_code", side_effect=[taken, "fresh11111"]),
        mock.patch.object(League.objects, "filter", side_effect=filter_once_blind),
    ):
        league = services.league_create(owner=make_user(), name="Race")
    assert league.invite_code == "fresh11111"
    assert Membership.objects.filter(league=league).count() == 1


# --- Join ----------------------------------------------------------------------------------------


def test_join_is_idempotent() -> None:
    league = make_league(owner=make_user("owner"))
    player = make_user("joiner")
    assert services.league_join(player=player, invite_code=league.invite_code) == league
    before = snapshot()
    assert services.league_join(player=player, invite_code=league.invite_code) == league
    assert snapshot() == before
    assert members_of(league) == ["owner", "joiner"]


def test_the_owner_joining_again_changes_nothing() -> None:
    owner = make_user()
    league = make_league(owner=owner)
    before = snapshot()
    services.league_join(player=owner, invite_code=league.invite_code)
    assert snapshot() == before


def test_join_accepts_the_code_in_capitals_and_with_spaces() -> None:
    league = make_league(owner=make_user())
    player = make_user()
    services.league_join(player=player, invite_code=f"  {league.invite_code.upper()} ")
    assert Membership.objects.filter(league=league, player=player).exists()


@pytest.mark.parametrize("code", ["nope000000", "", "   ", "x" * 200])
def test_join_with_a_wrong_code_is_not_found(code: str) -> None:
    make_league(owner=make_user())
    before = snapshot()
    with pytest.raises(LeagueNotFound) as caught:
        services.league_join(player=make_user(), invite_code=code)
    assert caught.value.message == "No league has this invite code."
    assert snapshot() == before


def test_a_league_has_at_most_500_members() -> None:
    league = make_league(owner=make_user())
    Membership.objects.bulk_create(
        Membership(league=league, player=make_user()) for _ in range(services.MAX_MEMBERS - 1)
    )
    before = snapshot()
    with pytest.raises(LeagueFull):
        services.league_join(player=make_user(), invite_code=league.invite_code)
    assert snapshot() == before
    # A member joining again is still fine when the league is full.
    last = Membership.objects.filter(league=league).last()
    assert last is not None
    member = last.player
    services.league_join(player=member, invite_code=league.invite_code)
    assert snapshot() == before


# --- Leave, delete, regenerate -------------------------------------------------------------------------


def test_leave() -> None:
    owner, member = make_user("owner"), make_user("member")
    league = make_league(owner=owner, members=[member])
    services.league_leave(player=member, league_id=league.pk)
    assert members_of(league) == ["owner"]
    with pytest.raises(LeagueNotFound):  # not a member any more
        services.league_leave(player=member, league_id=league.pk)
    services.league_join(player=member, invite_code=league.invite_code)  # and back
    assert members_of(league) == ["owner", "member"]


def test_the_owner_cannot_leave() -> None:
    owner = make_user()
    league = make_league(owner=owner, members=[make_user()])
    before = snapshot()
    with pytest.raises(OwnerCannotLeave):
        services.league_leave(player=owner, league_id=league.pk)
    assert snapshot() == before


def test_leave_of_an_unknown_or_foreign_league_is_not_found() -> None:
    league = make_league(owner=make_user())
    before = snapshot()
    for league_id in (league.pk, league.pk + 1000):
        with pytest.raises(LeagueNotFound):
            services.league_leave(player=make_user(), league_id=league_id)
    assert snapshot() == before


def test_delete_takes_the_memberships_with_it() -> None:
    owner, member = make_user(), make_user()
    league = make_league(owner=owner, members=[member])
    kept = make_league(owner=member, members=[owner])
    services.league_delete(owner=owner, league_id=league.pk)
    assert list(League.objects.all()) == [kept]
    assert Membership.objects.count() == 2


@pytest.mark.parametrize(
    "operation",
    [
        lambda player, league_id: services.league_delete(owner=player, league_id=league_id),
        lambda player, league_id: services.league_regenerate_code(owner=player, league_id=league_id),
    ],
    ids=["delete", "regenerate"],
)
def test_owner_only_operations(operation: Callable[[Any, int], object]) -> None:
    owner, member, stranger = make_user(), make_user(), make_user()
    league = make_league(owner=owner, members=[member])
    before = snapshot()
    with pytest.raises(NotLeagueOwner):
        operation(member, league.pk)
    with pytest.raises(LeagueNotFound):
        operation(stranger, league.pk)
    with pytest.raises(LeagueNotFound):
        operation(owner, league.pk + 1000)
    assert snapshot() == before


def test_regenerate_replaces_the_code() -> None:
    owner = make_user()
    league = make_league(owner=owner)
    old = league.invite_code
    renewed = services.league_regenerate_code(owner=owner, league_id=league.pk)
    assert renewed.invite_code != old
    assert League.objects.get(pk=league.pk).invite_code == renewed.invite_code
    with pytest.raises(LeagueNotFound):
        services.league_join(player=make_user(), invite_code=old)
    services.league_join(player=make_user(), invite_code=renewed.invite_code)


# --- Concurrency (PostgreSQL: SQLite has no row locks) -----------------------------------------------------

postgres_only = pytest.mark.postgres(reason="row locks")


def run_together(calls: list[Callable[[], object]]) -> list[object]:
    """Run each call in its own thread (and database connection), all released at once."""
    barrier = threading.Barrier(len(calls))
    outcomes: list[object] = [None] * len(calls)

    def worker(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            outcomes[i] = calls[i]()
        except Exception as exc:  # the outcome is checked by the test
            outcomes[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return outcomes


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_cannot_pass_the_member_limit() -> None:
    league = make_league(owner=make_user())
    players = [make_user() for _ in range(12)]
    with mock.patch.object(services, "MAX_MEMBERS", 5):
        outcomes = run_together(
            [functools.partial(services.league_join, player=p, invite_code=league.invite_code) for p in players]
        )
    assert sum(isinstance(o, League) for o in outcomes) == 4, outcomes
    assert sum(isinstance(o, LeagueFull) for o in outcomes) == 8, outcomes
    assert Membership.objects.filter(league=league).count() == 5


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_of_one_player_make_one_membership() -> None:
    league = make_league(owner=make_user())
    player = make_user()
    outcomes = run_together([lambda: services.league_join(player=player, invite_code=league.invite_code)] * 6)
    assert all(isinstance(o, League) for o in outcomes), outcomes
    assert Membership.objects.filter(league=league, player=player).count() == 1


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_creations_cannot_pass_the_ownership_limit() -> None:
    owner = make_user()
    with mock.patch.object(services, "MAX_OWNED_LEAGUES", 3):
        outcomes = run_together(
            [functools.partial(services.league_create, owner=owner, name=f"League {i}") for i in range(8)]
        )
    assert sum(isinstance(o, League) for o in outcomes) == 3, outcomes
    assert sum(isinstance(o, TooManyLeagues) for o in outcomes) == 5, outcomes
    assert League.objects.filter(owner=owner).count() == 3
