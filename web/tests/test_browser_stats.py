"""Statistics in the browser (issue 25, items 5 and 6): the end of a ranked game shows this game's figures and
its distribution with today's bar marked, the share text has the time and "rank N of M", and the actions
stay on the screen at 1366x768 and 390x844; the profile switches between games.

Screenshots go to $SHOTS_DIR (default: test-artifacts/)."""

from __future__ import annotations

import datetime as dt
import os
import re
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from games import days
from games.tests.factories import make_challenge
from leaderboard.tests import factories as rows
from web.tests.chromium import PHONE
from web.tests.test_browser import ARTIFACTS, phone_result, sign_up, start, wait_log

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1366, "height": 768}
SHOTS = Path(os.environ.get("SHOTS_DIR", str(ARTIFACTS)))


def shot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / name))  # the screen as seen, not the whole page: the fold matters


def bars(page: Any, scope: str) -> list[dict[str, Any]]:
    """Each bar of the distribution in ``scope``: its count, width on the screen, and today's mark."""
    found: list[dict[str, Any]] = page.locator(f"{scope} .player-distribution li").evaluate_all(
        """items => items.map((li) => ({
            count: Number(li.dataset.count),
            width: li.querySelector('.bar').getBoundingClientRect().width,
            today: li.classList.contains('today') && li.querySelector('.bar').classList.contains('today'),
            label: li.querySelector('.bin').textContent,
        }))"""
    )
    return found


def assert_bars_follow_counts(found: list[dict[str, Any]], counts: list[int], today: int) -> None:
    assert [b["count"] for b in found] == counts, found
    assert [b["today"] for b in found] == [i == today for i in range(len(counts))], found
    widest = max(b["width"] for b in found)
    most = max(counts)
    for b in found:
        if b["count"]:  # a bar's length is its share of the largest one's
            assert abs(b["width"] - widest * b["count"] / most) <= 2, (b, widest)
        else:
            assert b["width"] <= 3, b  # an empty bar is a sliver


def on_screen(p: Any, selector: str, size: dict[str, int]) -> None:
    b = p.locator(selector).bounding_box()
    assert b and b["y"] >= 0 and b["y"] + b["height"] <= size["height"], (selector, b, size)
    assert b["x"] >= 0 and b["x"] + b["width"] <= size["width"], (selector, b, size)


def test_the_result_shows_this_games_stats_and_the_profile_switches_games(browser: Any, live_server: Any) -> None:
    today = days.today()
    make_challenge(game="klondike", seed=2026)
    make_challenge(game="maria", seed=3)  # today's maria, unplayed: the day can still be won
    context = browser.new_context(base_url=live_server.url, viewport=DESKTOP)
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_up(page, "sal")
    sal = get_user_model().objects.get(username="sal")
    # Three days won in a row before today (two klondike bars of 2-3 min, one of 1-2 min), one lost,
    # a maria won in under a minute; today's board: two players won, one more assisted.
    for back, won, ms in ((1, True, 150_000), (2, True, 170_000), (3, True, 100_000), (5, False, 400_000)):
        challenge = rows.make_challenge(date=today - dt.timedelta(days=back), game="klondike")
        rows.make_result(challenge=challenge, player=sal, won=won, play_time_ms=ms)
    maria = rows.make_challenge(date=today - dt.timedelta(days=1), game="maria")
    rows.make_result(challenge=maria, player=sal, play_time_ms=50_000, score=640)
    from games.models import Challenge

    todays = Challenge.objects.get(date=today, game="klondike")
    for name, assisted in (("o1", False), ("o2", False), ("o3", True)):
        rows.make_result(challenge=todays, player=rows.make_user(name), assisted=assisted)

    # Today's klondike through the page: a draw, then give up: a ranked loss.
    page.goto(f"/play/{today}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    page.click("#draw")
    wait_log(page, 1)
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    page.wait_for_selector("#result-stats:not([hidden]) .player-distribution")

    # This game's figures: 5 played, 3 won; the loss ends klondike's streak today (best 3); the overall
    # streak goes on while today's maria can still be won.
    tiles = page.locator("#result-stats .stat").evaluate_all(
        "nodes => Object.fromEntries(nodes.map((n) => [n.dataset.stat, n.querySelector('b').textContent]))"
    )
    assert tiles == {
        "played": "5",
        "win-rate": "60%",
        "current-streak": "0",
        "best-streak": "3",
        "best-time": "1:40.00",
        "best-score": "500",
    }, tiles
    assert "3 days won in a row (best 3)" in page.locator("#result-streak").inner_text()
    assert_bars_follow_counts(bars(page, "#result-stats"), [0, 1, 2, 0, 0, 0, 2], today=6)
    assert page.locator("#result-stats li.today .count").inner_text() == "2 · today"

    share = page.locator("#share-text").input_value()
    time = page.locator("#clock").inner_text()
    assert re.fullmatch(r"\d+:\d\d\.\d\d", time) and time in share, (time, share)
    # sal's game, given up, is on the day's board (o1, o2 and sal; the assisted o3 is not on it), below
    # every win: a loss never reads "rank 3 of 3" (issue 53).
    assert "not won" in share and "rank" not in share, share
    assert "On today's board, below every won game (3 results)." in page.locator("#result-text").inner_text()

    for selector in ("#result-title", "#result-stats", "#share-text", "#copy-share", "#result-next", "#again"):
        on_screen(page, selector, DESKTOP)
    assert page.evaluate("window.scrollY") == 0
    shot(page, "result-stats-1366x768.png")

    phone, mobile = phone_result(browser, live_server, context, page.url)
    mobile.wait_for_selector("#result-stats:not([hidden]) .player-distribution")
    for selector in ("#result-title", "#share-text", "#copy-share", "#result-next", "#again"):
        on_screen(mobile, selector, PHONE)
    assert mobile.evaluate("window.scrollY") == 0
    shot(mobile, "result-stats-390x844.png")
    assert mobile.locator("#copy-share").inner_text() == "Share"
    mobile.click("#copy-share")
    mobile.wait_for_function("window.__shared !== undefined")
    assert "not won" in mobile.evaluate("window.__shared.text")

    # The profile: every game together first, then one game at a time.
    for p, size in ((page, DESKTOP), (mobile, PHONE)):
        p.goto("/players/sal")
        p.wait_for_selector("#profile[data-ready=true] .player-distribution")
        assert_bars_follow_counts(bars(p, "#profile"), [1, 1, 2, 0, 0, 0, 2], today=6)
        assert p.evaluate("document.documentElement.scrollWidth") <= size["width"]
        shot(p, f"profile-stats-{size['width']}x{size['height']}.png")
    page.get_by_role("button", name="Maria", exact=True).click()
    page.wait_for_selector("#profile-game[data-game=maria]")
    assert page.locator('#profile-game [data-stat="best-time"] b').inner_text() == "0:50.00"
    assert_bars_follow_counts(bars(page, "#profile"), [1, 0, 0, 0, 0, 0, 0], today=-1)
    assert page.locator("#profile-game table.leaderboard tbody tr").count() == 1
    page.get_by_role("button", name="Klondike", exact=True).click()
    page.wait_for_selector("#profile-game[data-game=klondike]")
    assert_bars_follow_counts(bars(page, "#profile"), [0, 1, 2, 0, 0, 0, 2], today=6)
    shot(page, "profile-stats-klondike-1366x768.png")
    phone.close()
    context.close()
    assert not errors, errors


def test_a_guest_sees_its_own_stats_and_a_share_text_without_a_rank(browser: Any, live_server: Any) -> None:
    """A guest on a phone: its own figures after a ranked game (the code's rule for guests: its results are
    its own, on no public board), the actions still on the screen, and a share text that claims no rank."""
    make_challenge(game="klondike", seed=2026)
    context = browser.new_context(
        base_url=live_server.url, viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"/play/{days.today()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    page.click("#guest-button")
    page.wait_for_function("window.patience !== undefined && window.patience.game.attempt !== null")
    page.click("#draw")
    wait_log(page, 1)
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    page.wait_for_selector("#result-stats:not([hidden]) .player-distribution")
    assert_bars_follow_counts(bars(page, "#result-stats"), [0, 0, 0, 0, 0, 0, 1], today=6)
    assert page.locator('#result-stats [data-stat="played"] b').inner_text() == "1"
    share = page.locator("#share-text").input_value()
    assert "not on the board" in share and "rank " not in share, share
    for selector in ("#result-title", "#share-text", "#copy-share", "#result-next"):
        on_screen(page, selector, PHONE)
    shot(page, "result-stats-guest-390x844.png")
    guest = page.evaluate("document.body.dataset.user")
    context.close()
    public = Client().get(f"/api/v1/players/{guest}/stats").json()  # anybody else: on no public board
    assert (public["own"], public["overall"]["played"]) == (False, 0)
    assert not errors, errors
