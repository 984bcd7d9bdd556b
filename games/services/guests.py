"""Guests nobody came back as: deleted after ``GUEST_KEEP_DAYS`` days without activity.

A guest (``games.models.Guest``) is a real player row made for a visitor who plays before signing up;
signing up or logging in moves its games to the account and deletes it (``.players.guest_claim``).
One that never does stays behind: beat (``games.delete_idle_guests``, daily) and ``manage.py
keep_days_ready`` delete those idle for ``GUEST_KEEP_DAYS`` (default 30): created, last logged in,
and last started or finished an attempt before then. Its attempts, submissions, practice results,
session token and its own memberships go with it (cascades), and its name leaves other players'
fair-play cases (``.erasure``). A guest with a ranked result is kept:
that result is on a day's board, and deleting it would move other players' ranks. A guest who owns a
league that other players belong to is kept too, league and all (the apps above answer
``hooks.guests_sweeping``): the cleanup loses nothing of others. A league of the guest alone goes
with it.
"""

from __future__ import annotations

import datetime as dt
import logging
from importlib import import_module

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from games import hooks
from games.models import Guest
from games.services.erasure import fair_play_cases_forget_players

logger = logging.getLogger(__name__)

BATCH = 500


def guests_delete_idle(*, now: dt.datetime | None = None, keep_days: int | None = None) -> int:
    """Delete the guests idle for ``keep_days`` (default ``settings.GUEST_KEEP_DAYS``); how many."""
    keep = settings.GUEST_KEEP_DAYS if keep_days is None else keep_days
    cutoff = (now or timezone.now()) - dt.timedelta(days=keep)
    idle = (
        Guest.objects.filter(created_at__lt=cutoff)
        .exclude(user__last_login__gte=cutoff)
        .exclude(user__attempts__started_at__gte=cutoff)
        .exclude(user__attempts__finished_at__gte=cutoff)
        .exclude(user__attempts__finished_at__isnull=True, user__attempts__challenge__date__gte=cutoff.date())
        .exclude(user__results__ranked=True)
        .values_list("user_id", flat=True)
        .distinct()
    )
    deleted = 0
    kept: set[int] = set()
    while True:
        ids = list(idle.exclude(user_id__in=kept)[:BATCH])
        if not ids:
            break
        with transaction.atomic():
            # Checked again under the delete: a guest that played since the query above is kept.
            still = list(idle.filter(user_id__in=ids))
            keep = _kept_by_others(still)
            kept |= keep
            doomed = [pk for pk in still if pk not in keep]
            players = get_user_model().objects.filter(pk__in=doomed)
            names = [str(name) for name in players.values_list("username", flat=True)]
            players.delete()
            fair_play_cases_forget_players(usernames=names)  # other players' fair-play cases naming them
        deleted += len(doomed)
        if len(ids) < BATCH or not still:
            break
    if deleted:
        logger.info("deleted %s guest(s) idle for %s days", deleted, keep)
    return deleted


def sessions_clear_expired() -> None:
    """Delete the expired sessions (what ``manage.py clearsessions`` does): beat, daily, and
    ``keep_days_ready``; every guest's visit leaves one."""
    import_module(settings.SESSION_ENGINE).SessionStore.clear_expired()


def _kept_by_others(ids: list[int]) -> set[int]:
    """The guests among ``ids`` that the apps above keep (``hooks.guests_sweeping``); all of them when
    one cannot answer: a guest kept a day longer costs nothing, another player's league lost does."""
    if not ids:
        return set()
    keep: set[int] = set()
    for receiver, outcome in hooks.guests_sweeping.send_robust(sender=None, guest_ids=list(ids)):
        if isinstance(outcome, Exception):
            logger.error("guest sweep: %r could not answer; keeping %s guest(s)", receiver, len(ids), exc_info=outcome)
            return set(ids)
        keep |= set(outcome or ())
    return keep
