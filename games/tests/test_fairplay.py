"""Fair-play holds, guests off the public boards, origin flags and the one play time, as an attacker tries them.

A bot's win (the whole line in one batch a tenth of a second after the start) is held: on no board,
the player sees "held for a fair-play check" with the reason, staff clear it (then it ranks) or disqualify it (then
it never does). A game played through the API at a person's pace is not held. A guest's win is on no
public board until an account claims it. Accounts ranking on one challenge from one address or one
browser are flagged, whatever X-Forwarded-For says. One game shows one play time everywhere.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from games import days, services
from games.models import Attempt, FairPlayCase, Result, Submission
from games.selectors import play_time_text
from games.tests.factories import make_challenge, make_result, make_staff, make_user, token_for
from games.tests.test_apis import Api, submit_valid

pytestmark = pytest.mark.django_db

LOGS = json.loads((Path(__file__).parent / "data" / "winning_logs.json").read_text())
SEED, LOG = LOGS["klondike"]["seed"], LOGS["klondike"]["moves"]


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks: Any) -> Any:
    return django_capture_on_commit_callbacks


def start(api: Api, **extra: Any) -> int:
    response = api.client.post(f"/api/v1/daily/{days.today()}/klondike/attempts", **api.headers, **extra)
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def bot_win(api: Api, on_commit: Any) -> tuple[int, dict[str, Any]]:
    """The whole winning line in one batch at once, then submit: what probe 3 of issue 24 did."""
    attempt_id = start(api)
    response = api.post(f"attempts/{attempt_id}/moves", {"from": 0, "moves": LOG})
    assert response.status_code == 200 and response.json()["state"]["won"], response.content
    return attempt_id, submit_valid(api, attempt_id, on_commit)


def human_win(api: Api, on_commit: Any, *, seconds_per_batch: float = 0.7, per_batch: int = 1) -> dict[str, Any]:
    """The same line, a batch at a time, at a person's pace by the server's (moved) clock."""
    with time_machine.travel(timezone.now(), tick=False) as clock:
        attempt_id = start(api)
        for at in range(0, len(LOG), per_batch):
            clock.shift(dt.timedelta(seconds=seconds_per_batch))
            response = api.post(f"attempts/{attempt_id}/moves", {"from": at, "moves": LOG[at : at + per_batch]})
            assert response.status_code == 200, response.content
        clock.shift(dt.timedelta(seconds=0.5))
        return submit_valid(api, attempt_id, on_commit)


def board(day: dt.date | None = None) -> list[dict[str, Any]]:
    body = Api().get(f"leaderboards/{day or days.today()}/klondike").json()
    return list(body["entries"])


def staff_client() -> Client:
    staff = get_user_model().objects.create_superuser("staff", password="not-a-common-pass-42")
    client = Client(HTTP_HOST="localhost")
    client.force_login(staff)
    return client


def admin_action(client: Client, action: str, case: FairPlayCase) -> None:
    response = client.post("/admin/games/fairplaycase/", {"action": action, "_selected_action": [case.pk]})
    assert response.status_code == 302, response.content


# --- fair-play holds --------------------------------------------------------------------------------


def test_a_tenth_of_a_second_win_is_held_until_staff_clear_it(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    honest = Api(token_for(make_user("honest")))
    human_win(honest, on_commit, seconds_per_batch=1.0)
    bot = Api(token_for(make_user("bot")))
    attempt_id, result = bot_win(bot, on_commit)

    assert result["won"] is True and result["rank"] is None and result["on_board"] is False
    assert result["fair_play"]["status"] == "held"
    assert "faster than a person" in result["fair_play"]["reason"]
    assert "rank" not in result["share"]
    assert [e["player"] for e in board()] == ["honest"]  # the bot's faster line is not above it
    assert Api().get("players/bot").json()["recent"] == []
    assert Api().get("players/bot").json()["played"] == 0
    case = FairPlayCase.objects.get(result__player__username="bot", kind=FairPlayCase.Kind.PACE)
    assert case.kind == FairPlayCase.Kind.PACE and case.holds and case.status == FairPlayCase.Status.OPEN
    attempt = Attempt.objects.get(pk=attempt_id)
    assert [n for _at, n in attempt.batches] == [len(LOG)]  # the receipt the judge read

    staff = staff_client()
    page = staff.get(f"/admin/games/fairplaycase/{case.pk}/change/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "faster than a person" in text and LOG[0] in text and "player&#x27;s latest results" in text
    assert staff.get("/admin/games/fairplaycase/").status_code == 200
    assert "Fair-play cases" in staff.get("/admin/").content.decode()

    with on_commit(execute=True):
        admin_action(staff, "clear", case)
    case.refresh_from_db()
    assert case.status == FairPlayCase.Status.CLEARED
    assert case.decided_by is not None and case.decided_by.username == "staff"
    assert case.decided_at is not None
    assert [e["player"] for e in board()] == ["bot", "honest"]  # cleared: it ranks as it played
    submission = Submission.objects.get(attempt_id=attempt_id)
    shown = bot.get(f"submissions/{submission.pk}").json()["result"]
    assert shown["fair_play"] is None and shown["rank"] == 1 and shown["on_board"] is True


def test_a_disqualified_held_win_never_reaches_a_board(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    bot = Api(token_for(make_user("bot")))
    _attempt_id, _result = bot_win(bot, on_commit)
    case = FairPlayCase.objects.get()
    staff = staff_client()
    with on_commit(execute=True):
        admin_action(staff, "disqualify", case)
    case.refresh_from_db()
    result = Result.objects.get()
    assert case.status == FairPlayCase.Status.DISQUALIFIED
    assert case.decided_by is not None and case.decided_by.username == "staff"
    assert result.disqualified
    assert board() == []
    with on_commit(execute=True):
        admin_action(staff, "clear", case)  # clearing does not undo a disqualification
    result.refresh_from_db()
    assert result.disqualified and board() == []
    shown = bot.get(f"submissions/{Submission.objects.get().pk}").json()["result"]
    assert shown["disqualified"] is True and shown["rank"] is None


def test_a_human_paced_api_game_is_not_held(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    api = Api(token_for(make_user("ada")))
    result = human_win(api, on_commit, seconds_per_batch=0.7)
    assert result["fair_play"] is None and result["rank"] == 1 and result["on_board"] is True
    assert not FairPlayCase.objects.exists()
    assert [e["player"] for e in board()] == ["ada"]


def test_a_client_sending_a_few_moves_per_request_at_a_persons_pace_is_not_held(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    api = Api(token_for(make_user("ada")))
    result = human_win(api, on_commit, seconds_per_batch=4.0, per_batch=10)  # 2.5 moves a second
    assert result["fair_play"] is None and result["rank"] == 1


def test_one_request_per_move_without_pause_is_held(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    api = Api(token_for(make_user("bot")))
    result = human_win(api, on_commit, seconds_per_batch=0.02)
    assert result["fair_play"] is not None and board() == []


def test_home_page_says_held_for_a_fair_play_check(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    user = make_user("bot")
    bot_win(Api(token_for(user)), on_commit)
    client = Client(HTTP_HOST="localhost")
    client.force_login(user)
    assert "Fair-play check" in client.get("/").content.decode()
    assert 'data-mine="held"' in client.get(f"/board/{days.today()}/klondike").content.decode()
    day = Api(token_for(user)).get("me/day").json()
    klondike = next(g for g in day["games"] if g["game"] == "klondike")
    assert (klondike["status"], klondike["words"]) == ("held", "held for a fair-play check")


# --- guests -------------------------------------------------------------------------------------------


def test_a_guest_win_is_on_no_public_board_until_an_account_claims_it(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    guest = services.guest_create()
    as_guest = Api(token_for(guest))
    result = human_win(as_guest, on_commit)
    assert result["won"] and result["fair_play"] is None
    assert result["on_board"] is False and result["rank"] == 1  # the rank it would have
    assert "rank" not in result["share"]
    assert board() == []
    assert Api().get(f"players/{guest.get_username()}").json()["recent"][0]["rank"] is None

    account = make_user("vic")
    with on_commit(execute=True):
        services.guest_claim(guest=guest, account=account)
    assert [e["player"] for e in board()] == ["vic"]
    mine = Api(token_for(account)).get(f"submissions/{Submission.objects.get().pk}").json()["result"]
    assert mine["on_board"] is True and mine["rank"] == 1


# --- origin flags -------------------------------------------------------------------------------------


def test_two_accounts_from_one_address_are_flagged_whatever_x_forwarded_for_says(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    scout, runner = (Api(token_for(make_user(name))) for name in ("scout", "runner"))
    scout_attempt = start(scout, REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.1")
    scout.post(f"attempts/{scout_attempt}/moves", {"from": 0, "moves": ["s"] * 24})
    runner_attempt = start(runner, REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR="198.51.100.2")
    submit_valid(scout, scout_attempt, on_commit)
    submit_valid(runner, runner_attempt, on_commit)
    flags = FairPlayCase.objects.select_related("result__player")
    flag = flags.get(kind=FairPlayCase.Kind.ADDRESS)  # one for the address
    assert (flag.result.player.username, flag.others, flag.players) == ("scout", ["runner", "scout"], 2)
    assert not flag.holds and len(board()) == 2  # a signal, not a ban
    origins = set(Attempt.objects.values_list("origin", flat=True))
    assert len(origins) == 1 and "203.0.113.7" not in origins.pop()  # a keyed hash, not the address


def test_two_accounts_from_one_browser_are_flagged(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    one, two, other = (Api(token_for(make_user(name))) for name in ("one", "two", "other"))
    cookie = "dp_browser"
    one.client.cookies[cookie] = two.client.cookies[cookie] = "same-browser-token"
    other.client.cookies[cookie] = "another-browser"
    started = [
        (api, start(api, REMOTE_ADDR=address))
        for api, address in ((one, "192.0.2.1"), (two, "192.0.2.2"), (other, "192.0.2.3"))
    ]
    for api, attempt_id in started:
        submit_valid(api, attempt_id, on_commit)
    flags = FairPlayCase.objects.select_related("result__player")
    assert [(f.kind, f.result.player.username, f.others, f.players) for f in flags] == [
        (FairPlayCase.Kind.BROWSER, "one", ["one", "two"], 2),  # one for the browser and day, naming both
    ]


def test_the_table_page_gives_the_browser_a_lasting_cookie() -> None:
    make_challenge(game="klondike", seed=SEED)
    client = Client(HTTP_HOST="localhost")
    response = client.get(f"/play/{days.today()}/klondike")
    morsel = response.cookies["dp_browser"]
    assert len(morsel.value) >= 20 and morsel["httponly"] and int(morsel["max-age"]) > 365 * 24 * 3600
    assert "dp_browser" not in client.get(f"/play/{days.today()}/klondike").cookies  # kept, not replaced


# --- one play time ------------------------------------------------------------------------------------


def test_one_play_time_for_the_attempt_the_result_the_board_and_the_share_text(on_commit: Any) -> None:
    # the challenge is the travelled-to day's, whatever day the test runs on
    make_challenge(game="klondike", seed=SEED, day=dt.date(2026, 12, 2))
    api = Api(token_for(make_user("ada")))
    noon = dt.datetime(2026, 12, 2, 12, 0, 0, 123456, tzinfo=ZoneInfo(settings.DAILY_TIMEZONE))  # that day's noon
    with time_machine.travel(noon, tick=False) as clock:
        attempt_id = start(api)
        for at in range(0, len(LOG), 10):
            clock.shift(dt.timedelta(seconds=6))
            api.post(f"attempts/{attempt_id}/moves", {"from": at, "moves": LOG[at : at + 10]})
        clock.shift(dt.timedelta(milliseconds=7_725.9))  # lands between hundredths
        # A batch answer's clock (the fast path's or the locked path's) is the same time, cut alike.
        batch = api.post(f"attempts/{attempt_id}/moves", {"from": len(LOG), "moves": []}).json()
        result = submit_valid(api, attempt_id, on_commit)
        attempt = api.get(f"attempts/{attempt_id}").json()
        entry = Api().get(f"leaderboards/{days.today()}/klondike").json()["entries"][0]
    ms = 15 * 6_000 + 7_720
    assert attempt["elapsed_ms"] == result["play_time_ms"] == entry["play_time_ms"] == ms
    assert batch["elapsed_ms"] == ms, batch
    assert entry["time"] == ms / 1000
    assert play_time_text(ms=ms) == "1:37.72" and "1:37.72" in result["share"]


def test_play_time_text_cuts_and_never_rounds() -> None:
    assert play_time_text(ms=0) == "0:00.00"
    assert play_time_text(ms=87_729) == "1:27.72"
    assert play_time_text(ms=59_999) == "0:59.99"
    assert play_time_text(ms=3_600_000) == "60:00.00"
    attempt = Attempt(started_at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC))
    assert attempt.play_time_ms(dt.datetime(2026, 1, 1, 0, 1, 27, 729_999, tzinfo=dt.UTC)) == 87_720


def test_a_revalidation_keeps_staffs_decision(on_commit: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    bot = Api(token_for(make_user("bot")))
    attempt_id, _result = bot_win(bot, on_commit)
    staff = staff_client()
    with on_commit(execute=True):
        admin_action(staff, "clear", FairPlayCase.objects.get())
    submission = Submission.objects.get(attempt_id=attempt_id)
    with on_commit(execute=True):
        response = staff.post("/admin/games/submission/", {"action": "revalidate", "_selected_action": [submission.pk]})
    assert response.status_code == 302
    case = FairPlayCase.objects.get()  # the new result's, checked again, with the decision carried over
    assert case.status == FairPlayCase.Status.CLEARED
    assert case.decided_by is not None and case.decided_by.username == "staff"
    assert not Result.objects.get().held and [e["player"] for e in board()] == ["bot"]


def test_behind_a_proxy_a_rotated_x_forwarded_for_prefix_does_not_escape_the_flag(
    on_commit: Any, settings: Any
) -> None:
    settings.NUM_PROXIES = 1  # our proxy appends the client's address: only that last entry is believed
    make_challenge(game="klondike", seed=SEED)
    one, two = (Api(token_for(make_user(name))) for name in ("one", "two"))
    first = start(one, HTTP_X_FORWARDED_FOR="10.0.0.1, 203.0.113.9")
    second = start(two, HTTP_X_FORWARDED_FOR="10.9.9.9, 198.51.100.77, 203.0.113.9")
    submit_valid(one, first, on_commit)
    submit_valid(two, second, on_commit)
    assert FairPlayCase.objects.get(kind=FairPlayCase.Kind.ADDRESS).others == ["one", "two"]
    third = Api(token_for(make_user("three")))
    submit_valid(third, start(third, HTTP_X_FORWARDED_FOR="203.0.113.10"), on_commit)  # another client: not flagged
    assert FairPlayCase.objects.get().others == ["one", "two"]


@pytest.mark.parametrize("value", ["x" * 4000, "\u00e9t\u00e9\u00ff", "a;b=c", ""])
def test_any_browser_cookie_is_taken_and_never_stored_as_sent(value: str) -> None:
    make_challenge(game="klondike", seed=SEED)
    api = Api(token_for(make_user()))
    api.client.cookies["dp_browser"] = value
    attempt = Attempt.objects.get(pk=start(api))
    assert len(attempt.browser) in (0, 32) and (value == "" or value not in attempt.browser)


def test_a_held_games_log_of_a_day_not_over_needs_the_permission_in_the_fair_play_cases(on_commit: Any) -> None:
    """A held winning line of today is the day's solution: staff see it only with the permission."""
    make_challenge(game="klondike", seed=SEED)
    bot_win(Api(token_for(make_user("bot"))), on_commit)
    case = FairPlayCase.objects.get(result__player__username="bot")
    url = f"/admin/games/fairplaycase/{case.pk}/change/"
    viewer, _ = make_staff("view_fairplaycase")
    answer = viewer.get(url)  # without it, the case of a day not over is in no list or page at all
    assert answer.status_code == 302 and " ".join(LOG[:6]) not in answer.content.decode()
    assert list(viewer.get("/admin/games/fairplaycase/?queue=all").context["cl"].result_list) == []
    allowed, _ = make_staff("view_fairplaycase", "view_future_deal")
    page = allowed.get(url).content.decode()
    assert "hidden until the day is over" not in page and " ".join(LOG[:6]) in page


# --- the model's rename (games migration 0018): staff keep their rights -------------------------------


@pytest.mark.django_db(transaction=True)
def test_staff_with_the_previous_releases_review_permissions_keep_the_fair_play_cases_after_migrating() -> None:
    """A database of the previous release (the model ``Review``, its content type and the permissions
    ``view_review``/``change_review``, held by a group and by a user directly) migrated: its staff see and
    decide the fair-play cases, and the previous release's codenames stay for its own admin."""
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.models import ContentType
    from django.core.management import call_command

    call_command("migrate", "games", "0017", verbosity=0)  # the previous release's schema
    try:
        # What that release's post_migrate made: the content type "review" and its permissions only.
        ContentType.objects.filter(app_label="games", model="fairplaycase").delete()
        ContentType.objects.clear_cache()
        review_type = ContentType.objects.get(app_label="games", model="review")
        old = {p.codename: p for p in Permission.objects.filter(content_type=review_type)}
        assert {"view_review", "change_review"} <= set(old), old
        group = Group.objects.create(name="fair play")
        group.permissions.add(old["view_review"], old["change_review"])
        in_group, direct = make_user("in-group"), make_user("direct")
        for user in (in_group, direct):
            user.is_staff = True
            user.save()
        in_group.groups.add(group)
        direct.user_permissions.add(old["view_review"])
    finally:
        call_command("migrate", "games", verbosity=0)
    ContentType.objects.clear_cache()

    case_type = ContentType.objects.get(app_label="games", model="fairplaycase")
    assert case_type.pk == review_type.pk  # renamed in place: the admin's history stays with it
    assert not ContentType.objects.filter(app_label="games", model="review").exists()
    decider = get_user_model().objects.get(username="in-group")
    viewer = get_user_model().objects.get(username="direct")
    assert decider.has_perms(["games.view_fairplaycase", "games.change_fairplaycase"])
    assert viewer.has_perm("games.view_fairplaycase") and not viewer.has_perm("games.change_fairplaycase")
    assert decider.has_perm("games.change_review")  # the previous release's admin still lets them decide
    assert Permission.objects.get(codename="view_fairplaycase").name == "Can view fair-play case"
    for user in (decider, viewer):
        client = Client(HTTP_HOST="localhost")
        client.force_login(user)
        assert client.get("/admin/games/fairplaycase/?queue=all").status_code == 200, user
    yesterday = make_challenge(game="klondike", seed=SEED, day=days.today() - dt.timedelta(days=1))
    held = make_result(challenge=yesterday, held=True)
    case = FairPlayCase.objects.create(result=held, kind=FairPlayCase.Kind.PACE, holds=True, reason="Held: a test.")
    client = Client(HTTP_HOST="localhost")
    client.force_login(decider)
    admin_action(client, "clear", case)
    case.refresh_from_db()
    assert case.status == FairPlayCase.Status.CLEARED and case.decided_by == decider
