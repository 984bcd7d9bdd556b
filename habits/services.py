"""Writes of the habits app: a player's reminder settings, the one-click stop, and sending the reminders due
(the beat task ``habits.send_streak_reminders`` calls :func:`reminders_send`)."""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo

from django.conf import settings
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import EmailMessage
from django.db import transaction
from django.template.loader import render_to_string

from games import days
from games.errors import BadRequest
from habits import selectors
from habits.models import Reminder

logger = logging.getLogger(__name__)

STOP_SALT = "habits.reminder-stop"
DEFAULT_TIME = dt.time(19, 0)


def time_zone_clean(*, name: str) -> str:
    """An IANA time zone the server knows, or a 400."""
    if name not in zoneinfo.available_timezones():
        raise BadRequest(f"unknown time zone {name!r}")
    return name


def reminder_set(*, player: User, enabled: bool, remind_at: dt.time, time_zone: str) -> Reminder:
    """Turn the player's reminder on or off, at a time of day in their own zone. Changing the time does not
    send a second reminder the same day (``last_sent_day`` stays)."""
    time_zone = time_zone_clean(name=time_zone)
    values = {"enabled": enabled, "remind_at": remind_at.replace(second=0, microsecond=0), "time_zone": time_zone}
    reminder, _ = Reminder.objects.update_or_create(player=player, defaults=values)
    return reminder


def stop_token(*, player: User) -> str:
    """The signed token of the one-click stop link (no login needed): it names the player and nothing else."""
    return signing.dumps(player.pk, salt=STOP_SALT, compress=True)


def reminder_stop(*, token: str) -> User | None:
    """Turn off the reminder the token names; None for a token not ours (tampered, or another salt)."""
    try:
        player_id = signing.loads(token, salt=STOP_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(player_id, int):
        return None
    player = User.objects.filter(pk=player_id).first()
    if player is None:
        return None
    Reminder.objects.filter(player=player).update(enabled=False)
    return player


def reminders_send(*, now: dt.datetime | None = None) -> int:
    """Send every reminder due now; returns how many went. Each is claimed for today by one conditional
    update before it is mailed, so two workers (or two beats) running this at once send it once: the one
    whose update changed the row sends. A mail that fails gives the claim back, to be tried next round."""
    today = days.today()
    sent = 0
    for reminder_id in selectors.reminders_due(now=now):
        with transaction.atomic():
            claimed = (
                Reminder.objects.filter(pk=reminder_id, enabled=True)
                .exclude(last_sent_day=today)
                .update(last_sent_day=today)
            )
        if not claimed:
            continue  # another worker has it, or it was turned off meanwhile
        reminder = Reminder.objects.select_related("player").get(pk=reminder_id)
        try:
            _mail(reminder, today=today)
        except Exception:
            logger.exception("the streak reminder %s could not be sent", reminder_id)
            Reminder.objects.filter(pk=reminder_id, last_sent_day=today).update(last_sent_day=None)
            continue
        sent += 1
    if sent:
        logger.info("sent %s streak reminders", sent)
    return sent


def _mail(reminder: Reminder, *, today: dt.date) -> None:
    player = reminder.player
    streak = selectors.streak_at_risk(player_id=player.pk, today=today)
    stop_url = f"{settings.SITE_URL.rstrip('/')}/reminders/stop/{stop_token(player=player)}"
    context = {
        "username": player.get_username(),
        "streak": streak,
        "site": settings.SITE_URL.rstrip("/"),
        "stop_url": stop_url,
        # In the player's zone, written here: the template's date filter would show it in the server's.
        "ends_at": f"{days.next_day_starts_at(today).astimezone(zoneinfo.ZoneInfo(reminder.time_zone)):%H:%M}",
    }
    message = EmailMessage(
        subject=f"Your {streak}-day streak ends tonight",
        body=render_to_string("habits/reminder_email.txt", context),
        to=[player.email],
        headers={"List-Unsubscribe": f"<{stop_url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"},
    )
    message.send()
