"""The still-winnable light in a real browser: on a past day's practice table only, off by default, green
then red after a losing move, and nowhere on today's ranked table."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from pytest_django import Settings

from games import days
from games.tests.factories import make_challenge
from web.tests.test_browser import post_moves, sign_up, start, wait_log

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "reviews" / "tests" / "data" / "winnable_forty_thieves.json").read_text())
SHOTS = Path("/work/shots/winnable")


def shot(tab: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=str(SHOTS / name))


def light_state(tab: Any) -> str:
    return str(tab.get_attribute("#winnable-light", "data-state"))


def wait_light(tab: Any, state: str) -> None:
    tab.wait_for_function(f"document.getElementById('winnable-light')?.dataset.state === '{state}'", timeout=20_000)


def test_the_light_turns_green_then_red_after_a_losing_move_on_a_past_day(page: Any) -> None:
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="forty-thieves", seed=DATA["seed"], day=yesterday, solution=DATA["solution"])
    sign_up(page, "wren")
    asks: list[str] = []
    page.on("request", lambda r: asks.append(r.url) if r.url.endswith("/winnable") else None)
    page.goto(f"/play/{yesterday}/forty-thieves")
    page.wait_for_selector("#game[data-ready=true]")
    assert page.locator("#winnable").is_hidden()  # no attempt yet: nothing to ask about
    start(page)
    assert page.locator("#mode").inner_text() == "practice"
    toggle = page.locator("#winnable-toggle")
    assert toggle.is_visible() and not toggle.is_checked()  # off by default
    assert page.locator("#winnable-light").is_hidden() and not asks  # and asks nothing while off

    # the position after these moves can still be won
    assert post_moves(page, DATA["winnable"]) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    assert not asks
    toggle.check()
    wait_light(page, "winnable")
    assert page.locator("#winnable-text").inner_text() == "still winnable"
    assert page.locator("#winnable-live").inner_text() == "still winnable"  # said politely, once
    assert page.get_attribute("#winnable-live", "aria-live") == "polite"
    shot(page, "past-day-green.png")
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the light fits, nothing scrolls sideways
    assert page.locator("#winnable-light").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    shot(page, "past-day-green-phone.png")
    page.set_viewport_size({"width": 1280, "height": 800})

    # remembered by the browser: after a reload the light is on without a click
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    assert page.locator("#winnable-toggle").is_checked()
    wait_light(page, "winnable")

    # the losing move: a draw that buries a card the game needed
    assert DATA["losing_move"] == "s"
    n = len(DATA["winnable"])
    page.click("#draw")
    wait_log(page, n + 1)
    wait_light(page, "lost")
    assert page.locator("#winnable-text").inner_text() == "no longer winnable"
    assert page.locator("#winnable-live").inner_text() == "no longer winnable"
    shot(page, "past-day-red.png")

    # switched off: the light goes and no more asks are made
    before = len(asks)
    page.locator("#winnable-toggle").uncheck()
    assert page.locator("#winnable-light").is_hidden()
    page.click("#undo")
    wait_log(page, n + 2)
    page.wait_for_timeout(400)
    assert len(asks) == before


def test_a_stale_answer_is_dropped_and_input_never_waits(page: Any) -> None:
    """Every answer is held back 600 ms: the player plays on meanwhile, the table takes each move at once,
    and the light shows only the answer for the log as it ends up."""
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="forty-thieves", seed=DATA["seed"], day=yesterday, solution=DATA["solution"])
    sign_up(page, "quill")
    page.goto(f"/play/{yesterday}/forty-thieves")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    assert post_moves(page, DATA["winnable"]) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    answered: list[int] = []

    def slow(route: Any) -> None:
        response = route.fetch()  # answered by the server now, for the log it holds now...
        answered.append(response.json()["moves"])
        page.wait_for_timeout(600)  # ...and handed to the page later
        route.fulfill(response=response)

    page.route("**/winnable", slow)
    page.evaluate(
        """() => {
        window.seen = [];
        const light = document.getElementById('winnable-light');
        new MutationObserver(() => window.seen.push(light.dataset.state))
            .observe(light, {attributes: true, attributeFilter: ['data-state']});
    }"""
    )
    page.locator("#winnable-toggle").check()
    n = len(DATA["winnable"])
    page.wait_for_function("window.seen.includes('pending')")  # the ask about position n is on its way
    page.click("#draw")  # the losing draw, at once, while that answer is held back
    assert page.evaluate("window.patience.game.attempt.moves.length") == n + 1  # the table took it at once
    wait_log(page, n + 1)
    wait_light(page, "lost")
    page.wait_for_timeout(900)
    assert answered[:2] == [n, n + 1]  # the answer about n did come back...
    assert "winnable" not in page.evaluate("window.seen")  # ...and was never shown over the newer position
    assert light_state(page) == "lost"


def test_no_light_on_today_s_ranked_table_nor_today_s_practice(page: Any) -> None:
    make_challenge(game="forty-thieves", seed=DATA["seed"], solution=DATA["solution"])
    sign_up(page, "tove")
    page.evaluate("localStorage.setItem('dp:winnable', 'on')")  # even with the light switched on
    asks: list[str] = []
    page.on("request", lambda r: asks.append(r.url) if "/winnable" in r.url else None)
    page.goto(f"/play/{days.today()}/forty-thieves")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    assert page.locator("#mode").inner_text() == "ranked"
    assert page.locator("#winnable, #winnable-toggle, #winnable-light").count() == 0
    page.click("#draw")
    wait_log(page, 1)
    page.wait_for_timeout(500)  # the drawn card lands
    shot(page, "today-ranked-no-light.png")
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    page.click("#again")  # practice of today's own deal: still no light
    page.wait_for_function("window.patience.game.attempt.ranked === false")
    page.click("#draw")
    wait_log(page, 1)
    assert page.locator("#winnable").count() == 0
    assert not asks


def test_what_the_solver_leaves_open_is_a_grey_light(page: Any, settings: Settings) -> None:
    settings.WINNABLE_NODES = 50  # a budget that decides nothing about this position
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="forty-thieves", seed=DATA["seed"], day=yesterday, solution=DATA["solution"])
    sign_up(page, "ash")
    page.goto(f"/play/{yesterday}/forty-thieves")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    assert post_moves(page, DATA["winnable"][:20]) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    page.locator("#winnable-toggle").check()
    wait_light(page, "undecided")
    assert page.locator("#winnable-text").inner_text() == "solver undecided"
    assert page.locator("#winnable-live").inner_text() == "solver undecided"
    shot(page, "past-day-grey.png")
