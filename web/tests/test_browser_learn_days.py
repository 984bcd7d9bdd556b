"""How to play (issue 53 item 5) and a player's days (item 6) in a real browser, at 1366x768 and at a
390x844 phone: each game's page with its rules and a few moves played on the real table from a made-up
position (no deal is asked for), the offer on a first visit to a two-deck game, the month calendar linking
each day, the reminder's settings in the browser's own time zone, and axe-core on the new pages in the
light and the dark theme."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, cast

import pytest
from django.contrib.auth import get_user_model

from engine import GAME_IDS
from games import days
from games.tests.factories import make_challenge
from leaderboard.tests.factories import make_result
from web.tests.chromium import SIZES
from web.tests.test_browser_a11y import Audit, axe_script, new_page
from web.tests.test_browser_habit import inside_viewport, press, shot, sign_up

__all__ = ["axe_script"]  # the fixture, found here by its name

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def api_calls(page: Any) -> list[str]:
    calls: list[str] = []
    page.on("request", lambda request: calls.append(request.url) if "/api/" in request.url else None)
    return calls


def paused(page: Any) -> None:
    """The page's clock stands still (its timers fire only when the test runs it on): the demo moves
    when the test says, whatever the machine's load."""
    start = dt.datetime(2026, 1, 15, 12, tzinfo=dt.UTC)
    page.clock.install(time=start)
    page.clock.pause_at(start + dt.timedelta(seconds=1))


def no_sideways_scroll(page: Any) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]


@pytest.mark.parametrize("game", ["klondike", "forty-thieves", "josephine", "lucas"])
def test_how_to_play_shows_the_rules_and_plays_moves_on_the_table(sized: Any, game: str) -> None:
    page = sized
    calls = api_calls(page)
    paused(page)
    page.goto(f"/learn/{game}")
    page.wait_for_selector("#game[data-ready=true]")
    rules = page.locator("#rules li")
    assert rules.count() >= 4 and "foundations" in page.locator("#rules").inner_text()
    cards = page.locator("#table .card.up")
    assert cards.count() >= 8
    assert cards.first.bounding_box()["width"] >= 28  # the table's cards, not chips
    assert page.locator("#demo-pos").inner_text().startswith("move 0 of")
    page.clock.run_for(1000)
    page.wait_for_selector("#table .hint-card")  # the cards about to move are marked, and said in words
    said = page.locator("#demo-say").inner_text()
    assert len(said) > 20
    before = page.locator("#moves").inner_text()
    page.clock.run_for(2000)
    page.wait_for_function("document.getElementById('demo-pos').textContent.startsWith('move 1 of')")
    assert page.locator("#moves").inner_text() != before
    press(page, "#demo-play")  # pause: nothing moves by itself
    assert page.locator("#demo-play").inner_text() == "Play"
    stopped = page.locator("#demo-pos").inner_text()
    page.clock.run_for(10_000)
    assert page.locator("#demo-pos").inner_text() == stopped
    press(page, "#demo-next")
    page.clock.run_for(1000)
    page.wait_for_function(f"document.getElementById('demo-pos').textContent !== {stopped!r}")
    button = page.locator("#demo-play").bounding_box()
    assert button["width"] >= 44 and button["height"] >= 24  # a finger hits it
    no_sideways_scroll(page)
    shot(page, f"learn-{game}", full_page=True)
    asked = [url.split("/api/v1/")[-1] for url in calls]
    assert asked == ["games"], asked  # the games' rules only: no deal, no attempt, no day


def test_the_table_and_the_home_page_link_it_and_a_first_two_deck_visit_offers_it_once(sized: Any) -> None:
    page = sized
    for game in ("klondike", "lucas"):
        make_challenge(game=game, seed=3)
    today = days.today().isoformat()
    page.goto("/")
    assert page.locator("#learn-index-link").get_attribute("href") == "/learn"
    assert page.locator('.challenge[data-game="lucas"] a[href="/learn/lucas"]').count() == 1
    page.goto(f"/play/{today}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    assert not page.locator("#learn-offer").is_visible()  # one deck: a game everybody knows
    assert page.locator("#learn-link").get_attribute("href") == "/learn/klondike"
    page.goto(f"/play/{today}/lucas")
    page.wait_for_selector("#game[data-ready=true]")
    offer = page.locator("#learn-offer")
    assert offer.is_visible() and "New to Lucas?" in offer.inner_text()
    inside_viewport(page, "#learn-offer-link")
    inside_viewport(page, "#guest-button")  # the offer does not push "Play now" away
    shot(page, "learn-offer")
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    assert not offer.is_visible()  # offered once, remembered in this browser
    press(page, "#learn-link")
    page.wait_for_url("**/learn/lucas")


def test_the_calendar_shows_the_month_and_links_each_day(sized: Any) -> None:
    page = sized
    name = f"cal{page.viewport_size['width']}"
    sign_up(page, name)
    player = get_user_model().objects.get(username=name)
    today = days.today()
    first = today.replace(day=1)
    for n, won in ((1, True), (2, False)):
        day = today - dt.timedelta(days=n)
        challenge = make_challenge(game="klondike", seed=40 + n, day=day)
        make_result(challenge=challenge, player=player, won=won)
    make_challenge(game="klondike", seed=50, day=today)
    page.goto("/")
    press(page, "#calendar-link")
    page.wait_for_url("**/calendar")
    assert "Your streak: 1 day" in page.locator("#calendar-streak").inner_text()
    yesterday = today - dt.timedelta(days=1)
    if yesterday >= first:  # the month's first days: yesterday is in the month before
        cell = page.locator(f'td[data-date="{yesterday}"]')
        assert cell.get_attribute("data-status") == "won" and "1/1 won" in cell.inner_text()
    calendar = page.locator("#calendar").bounding_box()
    assert calendar["x"] >= 0 and calendar["x"] + calendar["width"] <= page.viewport_size["width"]
    no_sideways_scroll(page)
    shot(page, "calendar-all", full_page=True)
    page.locator("nav.tabs a", has_text="Klondike").first.click()
    page.wait_for_url("**game=klondike")
    today_cell = page.locator(f'td[data-date="{today}"] a')
    assert today_cell.get_attribute("href") == f"/play/{today}/klondike"
    box = today_cell.bounding_box()
    assert box["height"] >= 24 and box["width"] >= 24  # a finger hits a day
    shot(page, "calendar-klondike", full_page=True)
    if yesterday >= first:
        page.locator(f'td[data-date="{yesterday}"] a').click()
        page.wait_for_url(f"**/board/{yesterday}/klondike")


def test_the_reminder_takes_the_browser_s_time_zone_and_says_what_it_needs(browser: Any, live_server: Any) -> None:
    for viewport in (cast(dict[str, int], s.values[0]) for s in SIZES):  # SIZES: the viewports
        page = new_page(browser, live_server, viewport, timezone_id="Asia/Tokyo")
        name = f"rem{viewport['width']}"
        sign_up(page, name)
        page.goto("/accounts/reminder/")
        assert page.locator("#reminder-no-email").is_visible()
        assert page.locator("#id_time_zone").input_value() == "Asia/Tokyo"  # the browser's own zone
        user = get_user_model().objects.get(username=name)
        user.email = f"{name}@example.com"  # as if confirmed (web.email_address stores it only then)
        user.save(update_fields=["email"])
        page.reload()
        assert page.locator("#reminder-no-email").count() == 0
        page.check("#id_enabled")
        page.fill("#id_remind_at", "20:30")
        page.locator("#reminder-form button[type=submit]").click()
        page.wait_for_selector("#saved")
        assert "a reminder at 20:30 (Asia/Tokyo)" in page.locator("#saved").inner_text()
        inside_viewport(page, "#saved")
        shot(page, "reminder-saved")
        assert not page.errors, page.errors
        page.context.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_new_pages_have_no_serious_accessibility_violation(
    browser: Any, live_server: Any, axe_script: Path, scheme: str
) -> None:
    from habits import services as habit_services

    for game in GAME_IDS:
        make_challenge(game=game, seed=5)
    yesterday = make_challenge(game="klondike", seed=9, day=days.today() - dt.timedelta(days=1))
    for size in SIZES:
        viewport = cast(dict[str, int], size.values[0])  # SIZES: the viewports
        audit = Audit(f"habit-{scheme}-{viewport['width']}", axe_script)
        page = new_page(browser, live_server, viewport, color_scheme=scheme)
        # The page's clock runs (axe waits on its timers); axe finishes the demo's motion before reading.
        page.goto("/learn")
        audit.check(page, "learn index")
        for game in ("klondike", "maria", "lucas"):
            page.goto(f"/learn/{game}")
            page.wait_for_selector("#game[data-ready=true]")
            audit.check(page, f"learn {game}")
        assert not page.errors, page.errors
        page.context.close()
        page = new_page(browser, live_server, viewport, color_scheme=scheme)  # the real clock again
        name = f"a11y{scheme}{viewport['width']}"
        sign_up(page, name)
        player = get_user_model().objects.get(username=name)
        make_result(challenge=yesterday, player=player)
        page.goto("/calendar")
        audit.check(page, "calendar")
        page.goto("/accounts/reminder/")
        audit.check(page, "reminder")
        page.locator("#reminder-form button[type=submit]").click()
        audit.check(page, "reminder saved")
        page.goto(f"/reminders/stop/{habit_services.stop_token(player=player)}")
        audit.check(page, "reminder stopped")
        page.goto("/reminders/stop/not-ours")
        audit.check(page, "reminder stop link not ours")
        page.goto(f"/players/{name}")
        audit.check(page, "profile asking for an address")
        page.goto("/accounts/password-reset/")
        audit.check(page, "reset without an address")
        if scheme == "dark":
            assert page.evaluate(
                "document.documentElement.dataset.theme || matchMedia('(prefers-color-scheme: dark)').matches"
            )
        assert not page.errors, page.errors
        page.context.close()
        audit.finish()
