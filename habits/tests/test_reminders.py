"""The streak reminder: sent by the beat task at the time the player chose in their own zone, only while a
streak is at risk, only to a confirmed address, never twice a day (two workers at once included), stopped by
the mail's one signed click; and its settings through the API and the page, refused for bad input."""

from __future__ import annotations

import datetime as dt
import re
import threading
from typing import Any

import pytest
import time_machine
from django.conf import settings
from django.core import mail
from django.test import Client

from games import services as game_services
from games.tests.factories import token_for
from habits import services
from habits.models import Reminder
from leaderboard.tests.factories import make_challenge, make_result, make_user

DAY = dt.date(2026, 1, 15)  # New York is UTC-5 then (no summer time): 18:00 there is 23:00 UTC
NEW_YORK_SIX_PM = dt.datetime(2026, 1, 15, 23, 0, tzinfo=dt.UTC)


def player_with_streak(name: str, *, email: str = "", won_yesterday: bool = True, won_today: bool = False) -> Any:
    player = make_user(name)
    player.email = email or f"{name}@example.com"
    player.save(update_fields=["email"])
    yesterday = make_challenge(date=DAY - dt.timedelta(days=1), game="klondike")
    today = make_challenge(date=DAY, game="klondike")
    make_result(challenge=yesterday, player=player, won=won_yesterday)
    if won_today:
        make_result(challenge=today, player=player, won=True)
    return player


def opt_in(player: Any, *, at: dt.time = dt.time(18, 0), zone: str = "America/New_York") -> Reminder:
    return services.reminder_set(player=player, enabled=True, remind_at=at, time_zone=zone)


@pytest.mark.django_db
def test_sent_once_at_the_chosen_time_in_the_player_s_zone_and_stopped_by_one_click() -> None:
    player = player_with_streak("ann")
    opt_in(player)
    with time_machine.travel(NEW_YORK_SIX_PM - dt.timedelta(minutes=1), tick=False) as clock:
        assert services.reminders_send() == 0  # 17:59 in New York (22:59 UTC)
        clock.move_to(NEW_YORK_SIX_PM)
        assert services.reminders_send() == 1
        clock.shift(dt.timedelta(minutes=5))  # beat's next round, and more: never twice a day
        assert services.reminders_send() == 0
        clock.shift(dt.timedelta(minutes=30))
        assert services.reminders_send() == 0
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.to == ["ann@example.com"] and "1-day streak" in sent.subject
    assert "ends at 19:00 (your time)" in sent.body  # midnight UTC is 19:00 in New York
    stop = re.search(r"https?://\S+/reminders/stop/(\S+)", str(sent.body))
    assert stop and sent.extra_headers["List-Unsubscribe"] == f"<{stop.group(0)}>"
    assert stop.group(0).startswith(settings.SITE_URL)
    response = Client().get(f"/reminders/stop/{stop.group(1)}")  # no login
    assert response.status_code == 200 and "Reminder stopped" in response.content.decode()
    assert Reminder.objects.get(player=player).enabled is False
    response = Client().post(f"/reminders/stop/{stop.group(1)}")  # a mail program's one-click POST, again
    assert response.status_code == 200
    with time_machine.travel(NEW_YORK_SIX_PM + dt.timedelta(days=1), tick=False):
        make_result(challenge=make_challenge(date=DAY + dt.timedelta(days=1), game="josephine"), player=player)
        assert services.reminders_send() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "case",
    ["no_address", "won_today", "no_streak", "turned_off", "guest_less_account_inactive"],
)
def test_nothing_is_sent_without_a_confirmed_address_or_a_streak_at_risk(case: str) -> None:
    player = player_with_streak("bo", won_today=case == "won_today", won_yesterday=case != "no_streak")
    opt_in(player)
    if case == "no_address":  # an address is stored only once confirmed: a pending one is not the account's
        player.email = ""
        player.save(update_fields=["email"])
    if case == "turned_off":
        services.reminder_set(player=player, enabled=False, remind_at=dt.time(18), time_zone="America/New_York")
    if case == "guest_less_account_inactive":
        player.is_active = False
        player.save(update_fields=["is_active"])
    with time_machine.travel(NEW_YORK_SIX_PM + dt.timedelta(minutes=1), tick=False):
        assert services.reminders_send() == 0
    assert mail.outbox == []


@pytest.mark.django_db
def test_a_time_late_in_the_player_s_evening_belongs_to_the_next_challenge_day() -> None:
    """20:00 in Los Angeles is 04:00 UTC of the next challenge day: not sent when that day begins at
    midnight UTC (16:00 there), but at 20:00 there, for that day."""
    player = player_with_streak("cy")
    opt_in(player, at=dt.time(20, 0), zone="America/Los_Angeles")
    with time_machine.travel(dt.datetime(2026, 1, 15, 0, 1, tzinfo=dt.UTC), tick=False) as clock:
        make_result(challenge=make_challenge(date=DAY - dt.timedelta(days=2), game="klondike"), player=player)
        assert services.reminders_send() == 0  # 16:01 on the 14th in Los Angeles
        clock.move_to(dt.datetime(2026, 1, 15, 3, 59, tzinfo=dt.UTC))
        assert services.reminders_send() == 0
        clock.move_to(dt.datetime(2026, 1, 15, 4, 0, tzinfo=dt.UTC))
        assert services.reminders_send() == 1
    assert "2-day streak" in mail.outbox[0].subject


@pytest.mark.django_db(transaction=True)
def test_two_workers_at_the_same_moment_send_it_once() -> None:
    for n in range(3):
        opt_in(player_with_streak(f"dee{n}") if n == 0 else _another(n))
    barrier = threading.Barrier(2)
    counts: list[int] = []
    errors: list[BaseException] = []

    def worker() -> None:
        from django.db import connection

        try:
            barrier.wait(timeout=10)
            counts.append(services.reminders_send())
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    with time_machine.travel(NEW_YORK_SIX_PM, tick=False):
        threads = [threading.Thread(target=worker) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert not errors, errors
    assert sum(counts) == 3 and len(mail.outbox) == 3
    assert sorted(m.to[0] for m in mail.outbox) == ["dee0@example.com", "dee1@example.com", "dee2@example.com"]


def _another(n: int) -> Any:
    from games.models import Challenge

    player = make_user(f"dee{n}")
    player.email = f"dee{n}@example.com"
    player.save(update_fields=["email"])
    make_result(challenge=Challenge.objects.get(date=DAY - dt.timedelta(days=1), game="klondike"), player=player)
    return player


@pytest.mark.django_db
def test_a_mail_that_fails_is_tried_again_next_round(monkeypatch: pytest.MonkeyPatch) -> None:
    player = player_with_streak("eve")
    opt_in(player)

    def refuse(*args: Any, **kwargs: Any) -> int:
        raise ConnectionRefusedError("the SMTP server is down")

    with time_machine.travel(NEW_YORK_SIX_PM, tick=False):
        monkeypatch.setattr("django.core.mail.message.EmailMessage.send", refuse)
        assert services.reminders_send() == 0
        assert Reminder.objects.get(player=player).last_sent_day is None
        monkeypatch.undo()
        assert services.reminders_send() == 1
    assert len(mail.outbox) == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    "token",
    ["nope", "", "a" * 400, "MQ:1vXyZ:abc", "%00", "..%2F..%2Fadmin"],
)
def test_a_stop_link_not_ours_stops_nothing(token: str) -> None:
    player = player_with_streak("fay")
    opt_in(player)
    response = Client().get(f"/reminders/stop/{token}") if token else Client().get("/reminders/stop/x")
    assert response.status_code in (400, 404)
    assert Reminder.objects.get(player=player).enabled is True


@pytest.mark.django_db
def test_a_stop_token_names_its_player_only() -> None:
    ann, bob = player_with_streak("gus"), _another(7)
    opt_in(ann)
    opt_in(bob)
    token = services.stop_token(player=ann)
    signed_for_bob = token.replace(token.split(":")[0], services.stop_token(player=bob).split(":")[0])
    assert Client().get(f"/reminders/stop/{signed_for_bob}").status_code == 400  # pieces swapped: refused
    assert Client().get(f"/reminders/stop/{token}").status_code == 200
    assert Reminder.objects.get(player=ann).enabled is False and Reminder.objects.get(player=bob).enabled is True


# --- settings: the API and the page -----------------------------------------------------------------------


def api(user: Any) -> Client:
    if user is None:
        return Client()
    return Client(HTTP_AUTHORIZATION=f"Token {token_for(user)}")


@pytest.mark.django_db
def test_the_reminder_api_reads_and_sets_and_refuses_bad_input() -> None:
    player = make_user("hal")
    assert api(None).get("/api/v1/me/reminder").status_code in (401, 403)
    body = api(player).get("/api/v1/me/reminder").json()
    assert body == {"enabled": False, "remind_at": "19:00", "time_zone": "UTC", "address_confirmed": False}
    good = {"enabled": True, "remind_at": "07:30", "time_zone": "Europe/Paris"}
    refused = api(player).put("/api/v1/me/reminder", good, content_type="application/json")
    assert refused.status_code == 409 and "e-mail" in refused.json()["error"]["message"]  # no address yet
    player.email = "hal@example.com"
    player.save(update_fields=["email"])
    answer = api(player).put("/api/v1/me/reminder", good, content_type="application/json")
    assert answer.status_code == 200 and answer.json() == {**good, "address_confirmed": True}
    bad: object  # any JSON body, valid or not
    for bad in (
        {**good, "time_zone": "Mars/Olympus"},
        {**good, "time_zone": "../../etc/passwd"},
        {**good, "remind_at": "25:00"},
        {**good, "remind_at": 7},
        {**good, "remind_at": "07:30:00"},
        {**good, "remind_at": "7:30"},
        {**good, "remind_at": ""},
        {**good, "enabled": "maybe"},
        {**good, "enabled": 1},
        {**good, "enabled": "true"},
        {"enabled": True},
        [],
        "x",
    ):
        response = api(player).put("/api/v1/me/reminder", bad, content_type="application/json")
        assert response.status_code == 400, (bad, response.content)
        assert "error" in response.json()
    assert api(player).get("/api/v1/me/reminder").json()["time_zone"] == "Europe/Paris"  # unchanged


@pytest.mark.django_db
def test_a_guest_gets_no_reminder() -> None:
    guest = game_services.guest_create()
    response = api(guest).put(
        "/api/v1/me/reminder",
        {"enabled": False, "remind_at": "07:30", "time_zone": "UTC"},
        content_type="application/json",
    )
    assert response.status_code == 409
    client = Client()
    client.force_login(guest)
    assert client.get("/accounts/reminder/").status_code == 302


@pytest.mark.django_db
def test_the_reminder_page_saves_and_says_what_it_needs() -> None:
    player = make_user("ida")
    client = Client()
    client.force_login(player)
    page = client.get("/accounts/reminder/").content.decode()
    assert 'id="reminder-no-email"' in page
    form = {"enabled": "on", "remind_at": "21:15", "time_zone": "Asia/Tokyo"}
    response = client.post("/accounts/reminder/", form)
    assert response.status_code == 400 and "follow its link first" in response.content.decode()
    assert not Reminder.objects.filter(player=player, enabled=True).exists()
    player.email = "ida@example.com"
    player.save(update_fields=["email"])
    response = client.post("/accounts/reminder/", form)
    assert response.status_code == 200 and "a reminder at 21:15 (Asia/Tokyo)" in response.content.decode()
    reminder = Reminder.objects.get(player=player)
    assert reminder.enabled and reminder.remind_at == dt.time(21, 15) and reminder.time_zone == "Asia/Tokyo"
    assert client.post("/accounts/reminder/", {**form, "time_zone": "Nowhere/Land"}).status_code == 400
    assert Client().get("/accounts/reminder/").status_code == 302  # signed in only


def test_the_task_is_on_the_one_beat_schedule() -> None:
    entries = {spec["task"]: spec for spec in settings.CELERY_BEAT_SCHEDULE.values()}
    schedule = entries["habits.send_streak_reminders"]["schedule"]
    assert isinstance(schedule, int | float) and schedule <= 5 * 60  # within minutes of the chosen time
    from habits.tasks import send_streak_reminders

    assert send_streak_reminders.name == "habits.send_streak_reminders"
