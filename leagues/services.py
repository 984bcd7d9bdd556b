"""Writes: create, join, leave, delete a league, and regenerate its invite code.

Limits: an owner has at most MAX_OWNED_LEAGUES leagues and a league at most
MAX_MEMBERS members (the owner included). Both are checked inside a
transaction under a row lock (the owner's user row, the league row), so
concurrent requests cannot push a count past its limit.

The owner cannot leave their league: they delete it instead (ownership is
never passed on implicitly).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import F, Q

from core import names
from leagues.errors import InvalidLeagueName, LeagueFull, LeagueNotFound, OwnerCannotLeave, TooManyLeagues
from leagues.models import NAME_MAX_LENGTH, NAME_MIN_LENGTH, League, Membership, new_invite_code
from leagues.selectors import league_get, normalize_invite_code

MAX_OWNED_LEAGUES = 20
MAX_MEMBERS = 500
CODE_ATTEMPTS = 5


def league_name_clean(*, name: str) -> str:
    """The name without surrounding whitespace; InvalidLeagueName unless 3..60 printable characters.

    Refused too: bidirectional controls (they make the name show in another order than it is
    written, and spill into the text around it) and invisible characters (zero-width spaces and
    joiners, fillers): a name shows what it holds. Letters of any script, accents and emoji pass."""
    if not isinstance(name, str):
        raise InvalidLeagueName("The league name must be a string.")
    name = name.strip()
    if not NAME_MIN_LENGTH <= len(name) <= NAME_MAX_LENGTH:
        raise InvalidLeagueName(f"A league name has {NAME_MIN_LENGTH} to {NAME_MAX_LENGTH} characters.")
    if any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in name):
        raise InvalidLeagueName("A league name cannot contain control characters or line breaks.")
    hidden = names.hidden_characters(name)
    if hidden:
        raise InvalidLeagueName(
            "A league name cannot contain invisible or text-direction characters "
            f"({', '.join(hidden[:5])}): it must show what it holds."
        )
    if not name.strip():
        raise InvalidLeagueName("A league name needs visible characters.")
    return name


def _with_fresh_code(write: Callable[[str], League]) -> League:
    """``write(code)`` with a new random code, drawing again if it is taken (in a savepoint)."""
    for _ in range(CODE_ATTEMPTS):
        code = new_invite_code()
        if League.objects.filter(invite_code=code).exists():
            continue
        try:
            with transaction.atomic():
                return write(code)
        except IntegrityError:
            if not League.objects.filter(invite_code=code).exists():
                raise  # another constraint failed
    raise RuntimeError(f"no free invite code after {CODE_ATTEMPTS} draws")


def league_create(*, owner: User, name: str) -> League:
    """A new league owned by (and with as its first member) ``owner``; TooManyLeagues past the limit."""
    name = league_name_clean(name=name)
    with transaction.atomic():
        # The owner's row serializes their concurrent creations, so the count below stays true.
        get_user_model()._default_manager.select_for_update().filter(pk=owner.pk).values_list("pk").first()
        if League.objects.filter(owner=owner).count() >= MAX_OWNED_LEAGUES:
            raise TooManyLeagues(f"You already own {MAX_OWNED_LEAGUES} leagues, the most a player can own.")
        league = _with_fresh_code(lambda code: League.objects.create(owner=owner, name=name, invite_code=code))
        Membership.objects.create(league=league, player=owner)
    return league


def league_join(*, player: User, invite_code: str) -> League:
    """Join the league with this code. Idempotent; LeagueNotFound for an unknown code, LeagueFull at the limit."""
    code = normalize_invite_code(code=invite_code)
    with transaction.atomic():
        # The league's row serializes concurrent joins, so the member count below stays true.
        league = League.objects.select_for_update().filter(invite_code=code).first() if code else None
        if league is None:
            raise LeagueNotFound("No league has this invite code.")
        if Membership.objects.filter(league=league, player=player).exists():
            return league
        if Membership.objects.filter(league=league).count() >= MAX_MEMBERS:
            raise LeagueFull(f"This league is full: it has {MAX_MEMBERS} members.")
        Membership.objects.create(league=league, player=player)
    return league


def league_leave(*, player: User, league_id: int) -> None:
    """Leave a league. The owner cannot (OwnerCannotLeave): they delete it instead."""
    with transaction.atomic():
        league = league_get(league_id=league_id, player=player)
        if league.owner_id == player.pk:
            raise OwnerCannotLeave("The owner cannot leave the league: delete it instead.")
        Membership.objects.filter(league=league, player=player).delete()


def league_guest_merge(*, guest_id: int, account_id: int) -> None:
    """A guest who signs up or logs in keeps its leagues: those it owns pass to the account (the
    owner's limit is for creating, not for this), its memberships become the account's, and one
    already held by the account is dropped rather than doubled. The leagues' rows are locked first,
    as a join locks them, so a join by the account at the same moment cannot make a second membership."""
    with transaction.atomic():
        league_ids = list(
            League.objects.select_for_update()
            .filter(Q(pk__in=Membership.objects.filter(player_id=guest_id).values("league_id")) | Q(owner_id=guest_id))
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        if not league_ids:
            return
        League.objects.filter(owner_id=guest_id).update(owner_id=account_id)
        mine = Membership.objects.filter(player_id=account_id, league_id__in=league_ids)
        held = set(mine.values_list("league_id", flat=True))
        Membership.objects.filter(player_id=guest_id, league_id__in=held).delete()
        Membership.objects.filter(player_id=guest_id).update(player_id=account_id)


def leagues_owner_deleted(*, player_id: int) -> dict[str, list[int]]:
    """Before a player's row is deleted (``accounts.services.player_delete``, in its transaction): each
    league they own passes to its longest-standing other member (the earliest to join, then the lowest
    membership id), so its other members keep their league and its boards; a league of the player alone
    is deleted. Their own memberships go with the row (cascade). Returns the ids ``transferred`` and
    ``deleted``."""
    transferred: list[int] = []
    deleted: list[int] = []
    for league in League.objects.select_for_update().filter(owner_id=player_id).order_by("pk"):
        heir = (
            Membership.objects.filter(league=league)
            .exclude(player_id=player_id)
            .order_by("joined_at", "pk")
            .values_list("player_id", flat=True)
            .first()
        )
        if heir is None:
            deleted.append(league.pk)  # (before the delete, which clears the instance's pk)
            league.delete()
        else:
            League.objects.filter(pk=league.pk).update(owner_id=heir)
            transferred.append(league.pk)
    return {"transferred": transferred, "deleted": deleted}


def guests_owning_leagues(*, guest_ids: list[int]) -> set[int]:
    """The guests among ``guest_ids`` who own a league that another player belongs to."""
    others = Membership.objects.filter(league__owner_id__in=guest_ids).exclude(player_id=F("league__owner_id"))
    return set(others.values_list("league__owner_id", flat=True))


def on_guests_sweeping(*, sender: object, guest_ids: list[int], **kwargs: object) -> set[int]:
    """games.hooks.guests_sweeping, inside the idle-guest sweep: a guest who owns a league of others is kept."""
    return guests_owning_leagues(guest_ids=guest_ids)


def on_guest_claimed(*, sender: object, guest_id: int, account_id: int, **kwargs: object) -> None:
    """games.hooks.guest_claimed, inside the claim's transaction."""
    league_guest_merge(guest_id=guest_id, account_id=account_id)


def _owned_for_update(*, owner: User, league_id: int) -> League:
    """The league, locked; LeagueNotFound for a non-member, NotLeagueOwner for a member who is not the owner."""
    league = league_get(league_id=league_id, player=owner, require_owner=True)
    locked = League.objects.select_for_update().filter(pk=league.pk).first()
    if locked is None:  # deleted in between
        raise LeagueNotFound(f"League {league_id} not found.")
    return locked


def league_delete(*, owner: User, league_id: int) -> None:
    """Delete the league, its memberships with it. Only its owner may."""
    with transaction.atomic():
        _owned_for_update(owner=owner, league_id=league_id).delete()


def league_regenerate_code(*, owner: User, league_id: int) -> League:
    """Give the league a new invite code; the old one stops working. Only its owner may."""
    with transaction.atomic():
        league = _owned_for_update(owner=owner, league_id=league_id)

        def write(code: str) -> League:
            league.invite_code = code
            league.save(update_fields=["invite_code"])
            return league

        return _with_fresh_code(write)
