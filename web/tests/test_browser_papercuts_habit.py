"""The smaller papercuts of a new player's first days (issue 53 item 10), each looked at in a real browser
at 1366x768 and at a 390x844 phone: the guest notice after midnight, a game closed by midnight in its
review, a board's previous and next day, a past day's "your rank", a league tab whose members played with
help, the waiting home page, sign-up's errors at once and the game's words refused as passwords, and the
way to keep an account without an e-mail address."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model

from games import days, services
from games.models import Attempt
from games.tests.factories import make_challenge
from leagues import services as league_services
from web.tests.test_browser import PASSWORD, WINNING_LOGS
from web.tests.test_browser_habit import inside_viewport, press, shot, sign_up

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def yesterday_attempt(username: str, *, moves: list[str], assisted: bool = False, submit: bool = True) -> Attempt:
    """A ranked game of yesterday's Klondike, played on yesterday's clock at a person's pace."""
    yesterday = days.today() - dt.timedelta(days=1)
    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    User = get_user_model()
    with time_machine.travel(dt.datetime.combine(yesterday, dt.time(12), tzinfo=dt.UTC), tick=False) as clock:
        from games.models import Challenge

        challenge = Challenge.objects.filter(date=yesterday, game="klondike").first() or make_challenge(
            game="klondike", seed=data["seed"], day=yesterday, solution=data["moves"]
        )
        user = User.objects.filter(username=username).first() or User.objects.create_user(
            username=username, password=PASSWORD
        )
        attempt = services.attempt_start(player=user, challenge=challenge)
        clock.shift(dt.timedelta(seconds=20))
        services.attempt_append_moves(attempt_id=attempt.pk, player=user, start=0, moves=moves or data["moves"][:6])
        if assisted:
            Attempt.objects.filter(pk=attempt.pk).update(assisted=True)
        clock.shift(dt.timedelta(seconds=30))
        if submit:
            services.attempt_submit(attempt_id=attempt.pk, player=user)
    return Attempt.objects.get(pk=attempt.pk)


def test_a_guest_s_notice_stops_saying_today_at_midnight(sized: Any) -> None:
    page = sized
    make_challenge(game="klondike", seed=1)
    page.clock.install()  # the page's clock runs on as usual until moved past the day's end
    page.goto(f"/play/{days.today().isoformat()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    press(page, "#guest-button")
    page.wait_for_selector("#game[data-ready=true]")
    page.wait_for_function("window.patience.game.attempt !== null")
    press(page, "#giveup")
    press(page, "#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    notice = page.locator("#guest-keep")
    assert "today" in notice.inner_text()
    ends = dt.datetime.fromisoformat(page.locator("#game").get_attribute("data-ends-at"))
    left = (ends - dt.datetime.now(dt.UTC)).total_seconds()
    page.clock.fast_forward(int((left + 2) * 1000))  # past midnight, in the page
    page.wait_for_function("document.getElementById('guest-keep').dataset.dayOver === 'true'")
    words = notice.inner_text()
    assert "today" not in words, words
    assert "this game's day is over" in words and "sign up" in words and "practice only" in words
    notice.scroll_into_view_if_needed()
    inside_viewport(page, "#guest-keep")
    shot(page, "guest-notice-after-midnight")


def test_a_game_closed_by_midnight_is_reviewed_as_unfinished_not_given_up(sized: Any) -> None:
    from games.services import attempts_close_expired
    from reviews import services as reviews

    page = sized
    name = f"owl{page.viewport_size['width']}"
    attempt = yesterday_attempt(name, moves=[], submit=False)
    assert attempts_close_expired() == 1  # the day is over: closed as it stood, timed as of midnight
    reviews.reviews_sweep()
    page.goto(f"/games/{attempt.pk}")
    page.wait_for_selector("#game-review[data-ready=true]")
    claims = page.locator("#review-claims").inner_text()
    assert "given up" not in claims, claims
    assert "still open when ranked play closed at midnight" in claims and "unfinished" in claims
    page.locator("#review-claims li").first.scroll_into_view_if_needed()
    inside_viewport(page, "#review-claims li >> nth=0")
    shot(page, "review-closed-at-midnight", full_page=True)


def test_a_board_links_the_day_before_and_after_and_says_where_a_played_game_is(sized: Any) -> None:
    page = sized
    name = f"kim{page.viewport_size['width']}"
    sign_up(page, name)
    today = days.today()
    yesterday = today - dt.timedelta(days=1)
    yesterday_attempt(name, moves=[], assisted=True)  # played, with help: not on the day's board
    make_challenge(game="klondike", seed=7, day=today - dt.timedelta(days=3))  # a gap of a day: skipped over
    make_challenge(game="klondike", seed=8, day=today)
    page.goto(f"/board/{yesterday}/klondike")
    page.wait_for_selector("#board[data-ready=true]")
    before, after = page.locator("#day-before"), page.locator("#day-after")
    assert before.get_attribute("href") == f"/board/{today - dt.timedelta(days=3)}/klondike"
    assert after.get_attribute("href") == f"/board/{today}/klondike"
    for link in ("#day-before", "#day-after"):
        box = inside_viewport(page, link)
        assert box["height"] >= 24  # a finger hits it
    summary = page.locator("#board .summary").inner_text()
    assert "none yet" not in summary and "did not play" not in summary, summary
    assert "Your game was assisted" in summary and "board with assisted games" in summary
    shot(page, "board-past-day-played")
    press(page, "#day-after")
    page.wait_for_selector("#board[data-ready=true]")
    assert page.url.endswith(f"/board/{today}/klondike")
    assert page.locator("#day-after").inner_text() == "No later day yet"
    assert "Your rank: none yet" in page.locator("#board .summary").inner_text()  # today, not played yet


def test_a_league_tab_says_members_played_with_help_and_what_played_counts(sized: Any) -> None:
    page = sized
    name = f"lea{page.viewport_size['width']}"
    sign_up(page, name)
    owner = get_user_model().objects.get(username=name)
    league = league_services.league_create(owner=owner, name="Sunday club")
    challenge = make_challenge(game="josephine", seed=1)
    attempt = services.attempt_start(player=owner, challenge=challenge)
    Attempt.objects.filter(pk=attempt.pk).update(assisted=True)
    services.attempt_submit(attempt_id=attempt.pk, player=owner)
    page.goto(f"/leagues/{league.pk}")
    page.wait_for_selector("#league[data-ready=true]")
    words = page.locator("#daily-board").inner_text()
    assert "No member has finished" not in words, words
    assert "1 member finished it with a hint or a look taken back" in words
    alltime = page.locator("#alltime-board .summary").inner_text()
    assert "Played counts those games only" in alltime and "Unassisted" in alltime
    shot(page, "league-tab-assisted", full_page=True)
    page.check("#all-results")
    page.wait_for_selector("#daily-board[data-ready=true] table")
    assert name in page.locator("#daily-board table").inner_text()


def test_the_waiting_home_page_says_it_once(sized: Any) -> None:
    page = sized
    sign_up(page, f"wait{page.viewport_size['width']}")
    page.goto("/")
    text = page.locator("main").inner_text()
    assert text.count("still being checked") == 1, text
    assert page.locator("#day-summary").count() == 0  # eight "not out yet": nothing to sum up
    inside_viewport(page, "#coming")
    shot(page, "home-waiting")


def test_sign_up_reports_every_error_at_once_and_refuses_the_game_s_words(sized: Any) -> None:
    page = sized
    get_user_model().objects.create_user(username="taken", password=PASSWORD)
    page.goto("/accounts/signup/")
    page.fill("#id_username", "Taken")
    page.fill("#id_password1", "solitaire")
    page.fill("#id_password2", "solitaire")
    page.get_by_role("button", name="Sign up").click()
    errors = page.locator(".errorlist").all_inner_texts()
    joined = " ".join(errors)
    assert "taken" in joined and "word of the game" in joined, errors  # both in the first round
    assert page.locator(".field.invalid").count() == 2
    shot(page, "signup-errors-at-once", full_page=True)
    page.fill("#id_username", "fresh")
    for password in ("Klondike2026", "patience!"):
        page.fill("#id_password1", password)
        page.fill("#id_password2", password)
        page.get_by_role("button", name="Sign up").click()
        assert "word of the game" in page.locator(".errorlist").inner_text()
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/$"))


def test_without_an_e_mail_the_way_to_keep_the_account_is_said(sized: Any) -> None:
    page = sized
    page.goto("/accounts/password-reset/")
    words = page.locator("#no-address").inner_text()
    assert "sign up" not in words.lower() and "new name" not in words
    assert "add an address" in words and "your account" in words
    page.locator("#no-address").scroll_into_view_if_needed()
    inside_viewport(page, "#no-address")
    shot(page, "reset-no-address", full_page=True)
    name = f"nomail{page.viewport_size['width']}"
    sign_up(page, name)
    page.goto(f"/players/{name}")
    nudge = page.locator("#add-email")
    assert "no e-mail address" in nudge.inner_text()
    inside_viewport(page, "#add-email")
    press(page, "#account-link")
    page.wait_for_url(re.compile(r"/accounts/account/$"))
