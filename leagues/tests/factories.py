"""Builders for the leagues' tests: rows made directly, not through the services."""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable

from django.contrib.auth.models import User

from leagues.models import League, Membership, new_invite_code

_seq = itertools.count(1)


def make_league(
    *,
    owner: User,
    members: Iterable[User] = (),
    name: str | None = None,
    created_at: dt.datetime | None = None,
) -> League:
    """A league with its owner as a member, then ``members`` in order."""
    league = League.objects.create(owner=owner, name=name or f"League {next(_seq)}", invite_code=new_invite_code())
    if created_at is not None:
        League.objects.filter(pk=league.pk).update(created_at=created_at)
        league.refresh_from_db()
    Membership.objects.create(league=league, player=owner)
    for member in members:
        Membership.objects.create(league=league, player=member)
    return league


def snapshot() -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Every league and membership row, to check that a failed service changed nothing."""
    return (
        list(League.objects.order_by("id").values_list()),
        list(Membership.objects.order_by("id").values_list()),
    )
