"""The rating and friends in the browser (issue 53 items 7 and 8), at 1366x768 and 390x844: the profile's
rating with its history chart, the Follow button, the home page's friends block and the friends board,
and a result's "ahead of N% of today's players". Screenshots go to test-artifacts/social-*.png."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from follows.models import Follow
from games import days
from games.tests.factories import make_challenge
from leaderboard.tests import factories as rows
from ratings.services import rating_day_rate
from web.tests.test_browser import ARTIFACTS, start, wait_log
from web.tests.test_browser_a11y import Audit
from web.tests.test_browser_habit import AXE, contrast_violations, sign_up

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

RATED_DAYS = 6


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    page.screenshot(path=str(ARTIFACTS / f"social-{name}-{size['width']}x{size['height']}.png"))


def across(page: Any, selector: str) -> dict[str, float]:
    """The element's box, whole across the screen's width (nothing cut at either side, no sideways scroll)."""
    page.locator(selector).first.scroll_into_view_if_needed()
    box: dict[str, float] = page.locator(selector).first.bounding_box()
    width = page.viewport_size["width"]
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width, (selector, box, width)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    return box


def rated_world() -> None:
    """rita wins six klondike days in a row against two others, each day rated; ben won today's klondike."""
    today = days.today()
    rita, olaf, pia = rows.make_user("rita"), rows.make_user("olaf"), rows.make_user("pia")
    for back in range(RATED_DAYS, 0, -1):
        day = rows.make_challenge(date=today - dt.timedelta(days=back), game="klondike")
        rows.make_result(challenge=day, player=rita, score=650)
        rows.make_result(challenge=day, player=olaf, score=500 if back % 2 else 400)
        rows.make_result(challenge=day, player=pia, won=False, score=60)
        rating_day_rate(game="klondike", day=day.date)
    todays = make_challenge(game="klondike", seed=2026)
    rows.make_result(challenge=todays, player=rows.make_user("ben"), score=612, play_time_ms=97_720)
    rows.make_result(challenge=todays, player=olaf, score=580)


def test_profile_rating_chart_follow_and_the_friends_block(sized: Any) -> None:
    page = sized
    rated_world()
    me = f"vic{page.viewport_size['width']}"
    sign_up(page, me)

    # The profile: the rating, a chart of its history (a point per rated day and the start), whole on the screen.
    page.goto("/players/rita")
    page.wait_for_selector("#ratings[data-ready=true] #rating-chart")
    now = page.locator("#rating-now").inner_text()
    assert re.match(rf"\d{{4}} in Klondike after {RATED_DAYS} rated days; \d+ \w+: \+\d+, place 1 of 3\.", now), now
    chart = across(page, "#rating-chart")
    assert chart["width"] >= min(560, page.viewport_size["width"] - 40) and chart["height"] >= 100, chart
    points = page.locator("#rating-chart .rating-line").get_attribute("points").split()
    assert len(points) == RATED_DAYS + 1
    heights = [float(p.split(",")[1]) for p in points]
    assert heights == sorted(heights, reverse=True)  # rita only won: the line only climbs (y grows downwards)
    assert page.locator("#rating-chart circle.up").count() == RATED_DAYS
    shot(page, "profile-rating")

    # Follow rita, then ben (who played today).
    assert page.locator("#follow").inner_text() == "Follow"
    across(page, "#follow")
    page.click("#follow")
    page.wait_for_selector("#follow[aria-pressed=true]")
    assert page.locator("#follow").inner_text() == "Following"
    shot(page, "profile-following")
    page.goto("/players/ben")
    page.click("#follow")
    page.wait_for_selector("#follow[aria-pressed=true]")
    assert sorted(Follow.objects.filter(follower__username=me).values_list("followed__username", flat=True)) == [
        "ben",
        "rita",
    ]
    assert page.locator("#no-rating").is_visible()  # ben has no rated day yet, and the profile says so

    # The home page: ben's finished game of today, nothing of rita (no game today), nothing of olaf (not followed).
    page.goto("/")
    block = page.locator("#friends-today")
    block.scroll_into_view_if_needed()
    assert block.is_visible()
    results = page.locator("#friends-today .friend-result")
    assert results.count() == 1
    text = results.first.inner_text()
    assert "ben" in text and "Klondike: won" in text and "score 612 · 1:37.72" in text, text
    across(page, "#friends-today")
    across(page, "#friends-today .friend-result")
    link = across(page, "#friends-today .board-link")
    assert link["height"] >= 16
    shot(page, "home-friends")

    # The friends board: ben and me (no result yet), olaf is not on it.
    page.click("#friends-today .board-link")
    page.wait_for_selector("#friends-board")
    assert page.locator("#friends-board tbody tr").evaluate_all("rows => rows.map((r) => r.dataset.player)") == ["ben"]
    across(page, "#friends-board")
    shot(page, "friends-board")

    # axe-core's WCAG and best-practice rules (no serious or critical violation), then both themes' contrast,
    # on the profile's rating, the friends block and board.
    if AXE.exists():
        audit = Audit(f"social-{page.viewport_size['width']}", AXE)
        for name, path, ready in (
            ("profile", "/players/rita", "#rating-chart"),
            ("home", "/", None),
            ("friends board", f"/friends/{days.today().isoformat()}/klondike", None),
        ):
            page.goto(path)
            if ready:
                page.wait_for_selector(ready)
            audit.check(page, name)
        audit.finish()
        board = f"/friends/{days.today().isoformat()}/klondike"
        for theme in ("dark", "light"):
            page.emulate_media(color_scheme=theme)
            for name, path, ready in (
                ("profile", "/players/rita", "#rating-chart"),
                ("home", "/", None),
                ("board", board, None),
            ):
                page.goto(path)
                if ready:
                    page.wait_for_selector(ready)
                assert not contrast_violations(page), (theme, name, contrast_violations(page))
                if theme == "dark":
                    shot(page, f"dark-{name}")
        page.emulate_media(color_scheme="light")

    # My own game of today: given up, so last of the three ranked: ahead of none of the other two, said so.
    page.goto(f"/play/{days.today().isoformat()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    page.click("#draw")
    wait_log(page, 1)
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    text = page.locator("#result-text").inner_text()
    assert "You finished ahead of 0% of today's players (the 2 other players ranked so far)." in text, text
    assert page.locator("#result").get_attribute("data-ahead") == "0"
    shot(page, "result-ahead")

    # Unfollow from the profile: the home block no longer shows ben.
    page.goto("/players/ben")
    page.click("#follow")
    page.wait_for_selector("#follow[aria-pressed=false]")
    page.goto("/")
    assert page.locator("#friends-today .friend-result").count() == 0
