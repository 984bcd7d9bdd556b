"""A daily habit (issue 53) in a real browser, as a person sees it at 1366x768 and at a 390x844 phone:
assists only by choice (the first Hint of a ranked game asks first, in words; "No more moves" is said by
the table for free, with Undo and Give up beside it), and the papercuts a new player met. Screenshots go
to /work/wt/habit-shots/ when that folder exists (the helper's own look at them), else to
test-artifacts/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from games import days
from games.models import Attempt
from games.tests.factories import make_challenge
from games.tests.test_apis import stuck_log
from web.tests.test_browser import PASSWORD, log_length, post_moves, wait_log

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/work/wt/habit-shots")
ARTIFACTS = SHOTS if SHOTS.is_dir() else Path(__file__).resolve().parents[2] / "test-artifacts"


def shot(page: Any, name: str, full_page: bool = False) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    size = page.viewport_size
    page.screenshot(path=str(ARTIFACTS / f"{name}-{size['width']}x{size['height']}.png"), full_page=full_page)


def press(page: Any, selector: str) -> None:
    """A click, or a tap on a touch screen."""
    if page.evaluate("matchMedia('(pointer: coarse)').matches"):
        page.tap(selector)
    else:
        page.click(selector)


def sign_up(page: Any, username: str) -> None:
    page.goto("/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/$"))


def open_and_start(page: Any, game: str) -> None:
    page.goto(f"/play/{days.today().isoformat()}/{game}")
    page.wait_for_selector("#game[data-ready=true]")
    press(page, "#start-button")
    page.wait_for_function("window.patience.game.attempt !== null")


def reload_table(page: Any) -> None:
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")


def inside_viewport(page: Any, selector: str) -> dict[str, float]:
    box: dict[str, float] = page.locator(selector).bounding_box()
    size = page.viewport_size
    assert box and box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= size["width"] and box["y"] + box["height"] <= size["height"], (selector, box)
    return box


# --- assists only by choice ----------------------------------------------------------------------------


def test_the_first_hint_of_a_ranked_game_asks_first_in_words(sized: Any) -> None:
    page = sized
    make_challenge(game="josephine", seed=1)
    name = f"hana{page.viewport_size['width']}"
    sign_up(page, name)
    open_and_start(page, "josephine")
    assert page.locator("#mode").inner_text() == "ranked"

    press(page, "#hint")
    dialog = page.locator("#hint-warning")
    dialog.wait_for(state="visible")
    assert page.locator("#hint-warning-text").inner_text() == (
        "Asking for a hint marks your game assisted, even if it finds no move: it will rank on the assisted board."
    )
    inside_viewport(page, "#hint-warning")  # whole on the phone's screen too: words, not a tooltip
    for button in ("#hint-cancel", "#hint-confirm"):
        box = inside_viewport(page, button)
        assert box["height"] >= 24 and box["width"] >= 44  # a finger hits it
    assert page.evaluate("document.activeElement.id") == "hint-cancel"  # keeping the game is the default
    shot(page, "hint-asks-first")
    press(page, "#hint-cancel")
    dialog.wait_for(state="hidden")
    page.wait_for_function("document.getElementById('message').textContent.includes('No hint shown')")
    assert page.locator("#mode").inner_text() == "ranked"
    assert page.locator("#table .hint-from").count() == 0
    assert Attempt.objects.get(player__username=name).assisted is False

    press(page, "#hint")
    dialog.wait_for(state="visible")
    press(page, "#hint-confirm")
    page.wait_for_function("document.getElementById('message').textContent.startsWith('Hint')")
    assert "now marked assisted" in page.locator("#message").inner_text()
    assert page.locator("#mode").inner_text() == "ranked, assisted"
    assert page.locator("#table .hint-from").count() == 1
    assert Attempt.objects.get(player__username=name).assisted is True
    press(page, "#hint")  # assisted already: nothing more to ask
    page.wait_for_timeout(300)
    assert not dialog.is_visible()


def test_no_more_moves_is_said_for_free_with_undo_and_give_up(sized: Any) -> None:
    page = sized
    make_challenge(game="josephine", seed=1)
    name = f"noah{page.viewport_size['width']}"
    sign_up(page, name)
    open_and_start(page, "josephine")
    assert not page.locator("#stuck").is_visible()
    log = stuck_log("josephine", 1)
    assert post_moves(page, log[:-1]) == 200
    reload_table(page)
    assert not page.locator("#stuck").is_visible()  # one move is left: nothing to say yet

    # The last move, played on the table as a person would (the engine's notation through the page).
    page.evaluate(f"window.patience.send([{log[-1]!r}])")
    wait_log(page, len(log))
    stuck = page.locator("#stuck")
    stuck.wait_for(state="visible")
    assert stuck.inner_text().startswith("No more moves.")
    assert page.locator("#hint").is_disabled()  # nothing to hint: the table said it
    for button in ("#stuck-undo", "#stuck-giveup"):
        assert page.locator(button).is_enabled()
    box = inside_viewport(page, "#stuck")
    assert box["y"] < page.viewport_size["height"] / 2  # seen where the eye is, above the table
    shot(page, "no-more-moves")
    attempt = Attempt.objects.get(player__username=name)
    assert attempt.assisted is False and page.locator("#mode").inner_text() == "ranked"

    # Undo beside it: the position has a move again, and the line goes.
    press(page, "#stuck-undo")
    if page.locator("#undo-warning").is_visible():  # the last move was a draw: the undo asks first
        press(page, "#undo-cancel")
        page.evaluate("window.patience.send(['u'])")  # the test's own path round the question
    wait_log(page, len(log) + 1)
    stuck.wait_for(state="hidden")
    assert page.locator("#hint").is_enabled()
    page.evaluate(f"window.patience.send([{log[-1]!r}])")
    stuck.wait_for(state="visible")

    # Give up beside it ends the game at once: a loss on the day's board, never assisted.
    press(page, "#stuck-giveup")
    page.wait_for_selector("#result[data-status=valid]")
    assert not stuck.is_visible()
    held = "Held for a fair-play check"  # 139 moves in seconds
    assert page.locator("#result-title").inner_text() in ("Game over", held)
    assert Attempt.objects.get(player__username=name).assisted is False


def test_an_error_line_goes_at_the_next_move_or_after_a_few_seconds(sized: Any) -> None:
    page = sized
    make_challenge(game="josephine", seed=1)
    sign_up(page, f"erin{page.viewport_size['width']}")
    open_and_start(page, "josephine")
    error = page.locator("#message.error")
    page.evaluate('window.patience.send(["r"])')  # a redeal with cards in the stock: refused on the table
    error.wait_for(state="visible")
    assert "stock is not empty" in error.inner_text()
    n = log_length(page)
    press(page, "#draw")  # the next move that plays takes the stale error away
    wait_log(page, n + 1)
    assert page.locator("#message").inner_text() == ""

    page.evaluate('window.patience.send(["r"])')
    error.wait_for(state="visible")
    page.wait_for_function("document.getElementById('message').textContent === ''", timeout=12_000)


# --- papercuts -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["josephine", "forty-thieves"])
def test_a_phone_s_first_screen_plays(sized: Any, game: str) -> None:
    """A visitor's first screen has "Play now" whole in it, and the controls above the table take no more
    than a third of a phone's height."""
    page = sized
    make_challenge(game=game, seed=1)
    page.goto(f"/play/{days.today().isoformat()}/{game}")
    page.wait_for_selector("#game[data-ready=true]")
    height = page.viewport_size["height"]
    play = inside_viewport(page, "#guest-button")
    controls = page.locator(".game-bar").bounding_box()
    assert play["y"] < height * 0.6  # not at the bottom edge either
    assert controls["y"] + controls["height"] <= height / 3
    shot(page, f"first-screen-{game}")

    # A player signed in, the longer header, a ranked game started: the table starts in the top third.
    sign_up(page, f"{game[:4]}{page.viewport_size['width']}")
    open_and_start(page, game)
    controls = page.locator(".game-bar").bounding_box()
    assert controls["y"] + controls["height"] <= height / 3
    table = page.locator("#table").bounding_box()
    assert table["y"] <= height / 3 + 40  # the message line between them
    shot(page, f"first-screen-started-{game}")


@pytest.mark.parametrize("game", ["forty-thieves", "lucas"])
def test_the_two_deck_waste_does_not_read_as_a_ninth_foundation(sized: Any, game: str) -> None:
    """The foundations stand in a band of their own, apart from the waste by half a card at least, on a
    darker ground; the waste says "waste" under its cards."""
    page = sized
    make_challenge(game=game, seed=1)
    sign_up(page, f"{game[:4]}w{page.viewport_size['width']}")
    open_and_start(page, game)
    n = log_length(page)
    press(page, "#draw")
    wait_log(page, n + 1)
    waste = page.locator('#table [data-pile="w"]').bounding_box()
    first = page.locator('#table [data-pile="f1"]').bounding_box()
    band = page.locator("#table .foundation-band, #table .foundation-grid.band")
    assert band.count() == 1 and band.locator(".pile.foundation").count() == 8
    ground = band.evaluate("(el) => getComputedStyle(el).backgroundColor")
    assert ground != "rgba(0, 0, 0, 0)", ground
    assert first["x"] - (waste["x"] + waste["width"]) >= waste["width"] / 2
    label = page.locator('#table [data-pile="w"]').evaluate("(el) => getComputedStyle(el, '::before').content")
    assert label == '"waste"'
    table = page.locator("#table").bounding_box()
    band_box = band.bounding_box()
    assert band_box["x"] + band_box["width"] <= table["x"] + table["width"]  # the band stays on the felt
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shot(page, f"two-deck-waste-{game}")


def test_a_loss_never_reads_number_one(sized: Any) -> None:
    """The only ranked result of the day, a loss: the result, the share, the home page and the profile say
    it was not won, and none of them "#1" or "rank 1"."""
    page = sized
    make_challenge(game="klondike", seed=1)
    name = f"lose{page.viewport_size['width']}"
    sign_up(page, name)
    open_and_start(page, "klondike")
    press(page, "#giveup")
    press(page, "#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    text = page.locator("#result-text").inner_text()
    share = page.locator("#share-text").input_value()
    assert "below every won game" in text and "#1" not in text, text
    assert "not won" in share and "rank" not in share, share
    inside_viewport(page, "#result")
    shot(page, "loss-result")
    page.goto("/")
    mine = page.locator('.challenge[data-game="klondike"] .mine')
    assert mine.inner_text() == "Not won"
    page.goto(f"/board/{days.today().isoformat()}/klondike")
    page.wait_for_selector("#board[data-ready=true]")
    assert "Your game: not won, below every won game." in page.locator("#board .summary").inner_text()
    page.goto(f"/players/{name}")
    page.wait_for_selector("table tbody tr")
    row = page.locator("table tbody tr").first.inner_text()
    assert "not won" in row and "#1" not in row, row
    shot(page, "loss-profile", full_page=True)


def test_a_skip_link_reaches_start_in_three_keys(sized: Any) -> None:
    page = sized
    make_challenge(game="klondike", seed=1)
    sign_up(page, f"skip{page.viewport_size['width']}")
    page.goto(f"/play/{days.today().isoformat()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    page.keyboard.press("Tab")
    skip = page.locator("#skip-link")
    assert page.evaluate("document.activeElement.id") == "skip-link"
    box = inside_viewport(page, "#skip-link")  # seen when focused
    assert box["height"] >= 24 and skip.inner_text() == "Skip to Start"
    shot(page, "skip-link")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "start-button"
    page.keyboard.press("Enter")
    page.wait_for_function("window.patience.game.attempt !== null")
    # In the game the same link goes to the table: its first pile is the next Tab.
    page.evaluate("document.activeElement.blur()")
    page.focus("#skip-link")
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.dataset.pile") is not None
    # Other pages skip the header to their content.
    page.goto("/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to the content"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "main"


def test_the_review_draws_the_table_s_cards_and_writes_cards_as_the_list_does(sized: Any) -> None:
    import json

    from reviews.models import GameReview
    from web.tests.test_browser import WINNING_LOGS, _play_yesterday

    page = sized
    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    _, attempts = _play_yesterday([("rev", data["moves"][:6])], data["seed"], data["moves"])
    row = GameReview.objects.get(attempt=attempts[0])
    review = dict(row.data)
    review.update(
        outcome="lost",
        win=None,
        win_from=3,
        claims=["After move 3 a win was still possible: 4C could go home."],
        losing_move={"ply": 4, "index": 3, "move": review["line"][3], "words": "4C from column 2 to foundation 4"},
    )
    row.data = review
    row.save(update_fields=["data"])
    page.goto(f"/games/{attempts[0].pk}")
    page.wait_for_selector("#game-review[data-ready=true]")
    headline = page.locator(".losing-move").inner_text()
    assert "4♣ from column 2 to foundation 4" in headline and "4C" not in headline, headline
    assert "4♣ could go home" in page.locator("#review-claims li").first.inner_text()
    page.click("#rv-end")
    board = page.locator("#review-table")
    cards = board.locator(".card.up")
    assert cards.count() >= 7 and board.locator(".card.up svg.pip").count() == cards.count()  # the table's cards
    width = cards.first.bounding_box()["width"]
    assert width >= 28, width  # a card, not a text chip
    box = board.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shot(page, "review-cards", full_page=True)


# --- dark mode --------------------------------------------------------------------------------------------

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
LUMINANCE = """(el) => { const [r, g, b] = getComputedStyle(el).backgroundColor.match(/[\\d.]+/g).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b; }"""


def contrast_violations(page: Any) -> list[str]:
    """axe-core's colour-contrast rule on the page as it stands (animations finished)."""
    page.wait_for_load_state("networkidle")
    page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    found: list[str] = page.evaluate(
        """async () => {
            const r = await axe.run(document, {runOnly: {type: "rule", values: ["color-contrast"]}});
            return r.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(" ")}: ${n.failureSummary}`));
        }"""
    )
    return found


def test_dark_mode_follows_the_system_and_a_remembered_switch_and_reads_everywhere(sized: Any) -> None:
    """Dark when the system prefers it; the header's switch overrides it and is remembered; the table
    (four colours too), the boards, the profile's chart, the review and the home page pass axe's
    colour-contrast rule in both themes."""
    import json

    from web.tests.test_browser import WINNING_LOGS, _play_yesterday

    if not AXE.exists():
        pytest.skip("axe-core is not installed: run `npm ci`")
    page = sized
    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    challenge, attempts = _play_yesterday(
        [("mei", data["moves"][:6]), ("ola", data["moves"])], data["seed"], data["moves"]
    )
    for game in ("klondike", "forty-thieves"):
        make_challenge(game=game, seed=1)
    width = page.viewport_size["width"]

    page.emulate_media(color_scheme="dark")
    page.goto("/")
    body = page.locator("body")
    assert body.evaluate(LUMINANCE) < 60  # a dark page
    switch = page.locator("#theme-switch")
    assert switch.get_attribute("aria-label") == "Light theme"
    shot(page, "dark-home-visitor")

    sign_up(page, f"dark{width}")
    yesterday = challenge.date.isoformat()
    pages: list[tuple[str, str, str | None]] = [
        ("home", "/", None),
        ("board", f"/board/{yesterday}/klondike", "#board[data-ready=true]"),
        ("profile", "/players/ola", "svg.chart"),
        ("review", f"/games/{attempts[0].pk}", "#game-review[data-ready=true]"),
        ("archive", "/archive/", None),
    ]
    for theme in ("dark", "light"):
        page.emulate_media(color_scheme=theme)
        for name, path, ready in pages:
            page.goto(path)
            if ready:
                page.wait_for_selector(ready)
            assert not contrast_violations(page), (theme, name, contrast_violations(page))
            shot(page, f"{theme}-{name}", full_page=True)
    # The table, mid-game, in four colours, then its result.
    page.emulate_media(color_scheme="dark")
    open_and_start(page, "forty-thieves")
    page.check("#four-colour")
    n = log_length(page)
    press(page, "#draw")
    wait_log(page, n + 1)
    page.evaluate('window.patience.send(["r"])')  # an error line, read on the dark page too
    page.wait_for_selector("#message.error")
    assert not contrast_violations(page), contrast_violations(page)
    shot(page, "dark-table-four-colours")
    press(page, "#giveup")
    press(page, "#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    assert not contrast_violations(page), contrast_violations(page)
    shot(page, "dark-result")

    # The switch: light on a dark system, remembered across pages and reloads; back to the system's.
    page.goto("/")
    page.locator("#theme-switch").click()
    assert page.evaluate("document.documentElement.dataset.theme") == "light"
    assert body.evaluate(LUMINANCE) > 200
    page.goto(f"/play/{days.today().isoformat()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    assert body.evaluate(LUMINANCE) > 200 and page.locator("#theme-switch").get_attribute("aria-label") == "Dark theme"
    assert not contrast_violations(page), contrast_violations(page)
    shot(page, "switched-light-table")
    page.locator("#theme-switch").click()
    assert body.evaluate(LUMINANCE) < 60
    assert page.evaluate("localStorage.getItem('dp:theme')") is None  # agreeing with the system: it follows it again


# --- the day as one share ---------------------------------------------------------------------------------


def test_the_home_page_sums_up_the_day_and_shares_it_as_squares(sized: Any) -> None:
    from engine import GAME_IDS

    page = sized
    for game in GAME_IDS[:7]:  # klondike-3 not out yet
        make_challenge(game=game, seed=1)
    name = f"day{page.viewport_size['width']}"
    sign_up(page, name)
    summary = page.locator("#day-summary")
    assert summary.locator(".day-game").count() == 8
    assert page.locator("#day-title").inner_text() == "Your day: 0 won, 0 not won, 8 to play"
    open_and_start(page, "klondike")
    press(page, "#giveup")
    press(page, "#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    page.goto("/")
    assert page.locator("#day-title").inner_text() == "Your day: 0 won, 1 not won, 7 to play"
    games = summary.locator(".day-game")
    assert [games.nth(i).get_attribute("data-game") for i in range(8)] == list(GAME_IDS)
    klondike = summary.locator('.day-game[data-game="klondike"]')
    assert klondike.locator(".words").inner_text() == "not won"
    assert klondike.locator(".square").get_attribute("data-square") == "🟥"
    colour = klondike.locator(".square").evaluate("(el) => getComputedStyle(el).backgroundColor")
    assert colour == "rgb(208, 69, 63)", colour  # drawn, whatever the fonts
    assert summary.locator(f'.day-game[data-game="{GAME_IDS[-1]}"] .words').inner_text() == "not out yet"
    share = page.locator("#share-day").get_attribute("data-share") or ""
    squares = "".join("🟥" if game == "klondike" else "⬜" for game in GAME_IDS)
    assert share.splitlines()[1:] == [squares, "Streak: 0 days won in a row"], share
    assert not re.search(r"\b(?:[A2-9JQK]|10)[♣♦♥♠]|\brank\b|points", share), share  # nothing to spoil
    button = inside_viewport(page, "#share-day")
    assert button["height"] >= 24
    box = summary.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    shot(page, "day-summary")
    page.emulate_media(color_scheme="dark")
    shot(page, "day-summary-dark")
    if AXE.exists():
        assert not contrast_violations(page), contrast_violations(page)


def test_watching_a_finished_game_leaves_its_result_in_view(sized: Any) -> None:
    """Watching a finished game: the watch bar sits under the table and the docked result below it, uncovered."""
    page = sized
    make_challenge(game="forty-and-eight", seed=1)
    sign_up(page, f"watch{page.viewport_size['width']}")
    open_and_start(page, "forty-and-eight")
    assert post_moves(page, ["s"] * 8) == 200
    reload_table(page)
    press(page, "#giveup")
    press(page, "#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    press(page, "#game-watch")
    page.wait_for_selector("#watch:not([hidden])")
    # Scrolled just enough to bring "Game over" up from below: where the sticky bar sat over it before.
    page.evaluate("document.getElementById('result-title').scrollIntoView({block: 'end'})")
    page.wait_for_timeout(200)
    bar = page.locator("#watch").bounding_box()
    title = page.locator("#result-title").bounding_box()
    assert title["y"] >= bar["y"] + bar["height"] or title["y"] + title["height"] <= bar["y"], (bar, title)
    assert page.locator("#result-title").inner_text() in ("Game over", "Held for a fair-play check")
    shot(page, "watch-and-result")


def test_at_midnight_the_countdown_links_to_the_new_deals_and_the_home_page_shows_them(sized: Any) -> None:
    page = sized
    make_challenge(game="klondike", seed=1)
    page.clock.install()  # the page's clock, moved; the server's stays
    page.goto(f"/play/{days.today().isoformat()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    ends = page.locator("#next-deal .countdown").get_attribute("data-ends-at")
    page.clock.set_fixed_time(ends)  # the day's end, in the page
    page.clock.run_for(2000)
    link = page.locator("#next-deal .countdown a")
    link.wait_for(state="attached")
    assert "reload" not in page.locator("#next-deal").inner_text()
    assert link.get_attribute("href") == "/" and link.inner_text() == "the new day's deals"
    page.goto("/")
    page.wait_for_selector(".intro .countdown a")  # the server's day is still today: the page reloads once
    reloaded = None
    for _ in range(100):  # the reload, waited for in real time (a loaded machine takes a while) with the
        page.clock.run_for(500)  # page's clock run on meanwhile; bounded: 100 turns
        page.wait_for_timeout(100)
        try:
            reloaded = page.evaluate("sessionStorage.getItem('dp:new-day')")
        except Exception:  # the page is being replaced by its reload: ask the new one
            continue
        if reloaded is not None:
            break
    assert reloaded is not None
    page.wait_for_load_state()
    page.locator(".challenge").first.wait_for()
    assert page.locator(".challenge").count() == 1
