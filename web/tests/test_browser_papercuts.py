"""Papercuts (issue 25) in a real browser, as a person sees them: errors that look like errors, a
password reset by e-mail, "Guest" in the header, badges and board columns that fit, labelled empty
slots, a finished board left clean, an invite that names its league, the solution in words while the
table stays put, and the "safe cards home" option. Screenshots go to /work/shots/papercuts/ when that
folder exists (the helper's own look at them), else to test-artifacts/."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.core import mail
from pytest_django import Settings

from engine import GAME_IDS, State, deal, visible
from games import days
from games.tests.factories import make_challenge
from web.tests.chromium import PHONE
from web.tests.test_browser import PASSWORD, log_length, sign_up, start, wait_log

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SHOTS = Path("/work/shots/papercuts")
ARTIFACTS = SHOTS if SHOTS.is_dir() else Path(__file__).resolve().parents[2] / "test-artifacts"
WIDE = {"width": 1366, "height": 768}


def shot(page: Any, name: str, full_page: bool = True) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=full_page)


def phone_page(browser: Any, live_server: Any, viewport: dict[str, int] = PHONE) -> tuple[Any, Any]:
    mobile = viewport["width"] < 600
    context = browser.new_context(base_url=live_server.url, viewport=viewport, is_mobile=mobile, has_touch=mobile)
    context.set_default_timeout(15_000)
    return context, context.new_page()


LINES = """(el) => { const r = document.createRange(); r.selectNodeContents(el);
  return new Set([...r.getClientRects()].map((x) => Math.round(x.top))).size; }"""

CONTRAST = """(el) => {
  const rgb = (s) => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
  const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  let bg = el; let back = "rgba(0, 0, 0, 0)";
  while (bg && (back = getComputedStyle(bg).backgroundColor) === "rgba(0, 0, 0, 0)") bg = bg.parentElement;
  const base = bg ? rgb(back) : [255, 255, 255];
  const a = Number((back.match(/[\\d.]+/g) || [])[3] ?? 1);
  const page = rgb(getComputedStyle(document.body).backgroundColor === "rgba(0, 0, 0, 0)" ? "rgb(244, 241, 234)"
    : getComputedStyle(document.body).backgroundColor);
  const mixed = base.map((c, i) => c * a + page[i] * (1 - a));
  const [l1, l2] = [lum(rgb(getComputedStyle(el).color)), lum(mixed)].sort((x, y) => y - x);
  return (l1 + 0.05) / (l2 + 0.05); }"""


# --- 1. errors that look like errors -----------------------------------------------------------------


@pytest.mark.parametrize("viewport", [PHONE, WIDE], ids=["390x844", "1366x768"])
def test_sign_up_and_login_errors_look_like_errors(browser: Any, live_server: Any, viewport: dict[str, int]) -> None:
    context, page = phone_page(browser, live_server, viewport)
    size = f"{viewport['width']}x{viewport['height']}"
    try:
        page.goto("/accounts/signup/")
        page.fill("#id_username", "ada")
        page.fill("#id_password1", PASSWORD)
        page.fill("#id_password2", PASSWORD + "x")
        page.get_by_role("button", name="Sign up").click()
        error = page.locator("#id_password2_error")
        assert error.is_visible() and error.inner_text().startswith("⚠ Error:")
        help_colour = page.locator("#id_username_helptext").evaluate("(el) => getComputedStyle(el).color")
        colour = error.evaluate("(el) => getComputedStyle(el).color")
        assert colour != help_colour and colour == "rgb(192, 22, 43)", colour  # red, not the help's grey
        assert error.evaluate(CONTRAST) >= 4.5
        field = page.locator("#id_password2")
        assert field.get_attribute("aria-invalid") == "true"
        assert "id_password2_error" in (field.get_attribute("aria-describedby") or "")
        assert page.locator("#id_username").get_attribute("aria-invalid") is None
        shot(page, f"signup-errors-{size}.png")

        page.goto("/accounts/login/")
        page.fill("#id_username", "nobody")
        page.fill("#id_password", "a wrong passphrase 1")
        page.get_by_role("button", name="Log in").click()
        box = page.locator("#form-errors")
        assert box.get_attribute("role") == "alert" and "Error:" in box.inner_text()
        assert box.locator("p").evaluate(CONTRAST) >= 4.5
        for name in ("#id_username", "#id_password"):
            assert page.locator(name).get_attribute("aria-invalid") == "true"
            assert page.locator(name).get_attribute("aria-describedby") == "form-errors"
        assert page.get_by_role("link", name="Forgot password?").is_visible()
        shot(page, f"login-errors-{size}.png")
    finally:
        context.close()


# --- 2. password reset by e-mail -----------------------------------------------------------------------


def test_a_forgotten_password_is_reset_by_e_mail(page: Any, live_server: Any, settings: Settings) -> None:
    """Sign up with an address and confirm it (the link mailed to it), forget the password: the login
    page's link, the e-mail (Django's in-memory outbox: the live server runs in this process), the new
    password, a login with it; the link then no longer works. Links are built from SITE_URL."""
    settings.SITE_URL = live_server.url
    page.goto("/accounts/signup/")
    page.fill("#id_username", "ada")
    page.fill("#id_email", "ada@example.com")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/$"))
    confirm = re.search(r"https?://\S+/accounts/email/confirm/\S+/", str(mail.outbox[0].body))
    assert confirm and mail.outbox[0].to == ["ada@example.com"]
    page.goto(confirm.group(0))
    assert "Confirmed" in page.locator("#email-confirmed").inner_text()
    page.goto("/")
    page.locator(".site-header button", has_text="Log out").click()
    mail.outbox.clear()

    page.goto("/accounts/login/")
    page.get_by_role("link", name="Forgot password?").click()
    page.fill("#id_email", "ada@example.com")
    page.get_by_role("button", name="Send the link").click()
    page.wait_for_url(re.compile(r"/accounts/password-reset/sent/$"))
    assert "If an account has that address" in page.locator("#reset-sent").inner_text()
    shot(page, "reset-sent-1280x800.png")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["ada@example.com"]
    link = re.search(r"https?://\S+/accounts/reset/\S+/", str(mail.outbox[0].body))
    assert link
    page.goto(link.group(0))
    page.fill("#id_new_password1", "a brand new passphrase 9")
    page.fill("#id_new_password2", "a brand new passphrase 9")
    shot(page, "reset-new-password-1280x800.png")
    page.get_by_role("button", name="Set the password").click()
    page.wait_for_url(re.compile(r"/accounts/reset/done/$"))
    page.get_by_role("link", name="Log in").last.click()
    page.fill("#id_username", "ada")
    page.fill("#id_password", "a brand new passphrase 9")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(re.compile(r"/$"))
    assert page.locator(".site-header .me").inner_text() == "ada"
    page.goto(link.group(0))
    assert page.locator("#invalid-link").is_visible()


# --- 3. "Guest", not an internal name, in the phone's header ----------------------------------------------


def test_a_guest_is_guest_in_the_phone_header(browser: Any, live_server: Any) -> None:
    make_challenge(game="klondike", seed=2026)
    context, page = phone_page(browser, live_server)
    try:
        page.goto(f"/play/{days.today()}/klondike")
        page.wait_for_selector("#game[data-ready=true]")
        page.click("#guest-button")
        page.wait_for_selector("#game[data-ready=true]")
        header = page.locator(".site-header")
        assert "guest-" not in header.inner_text() and "ArchiveGuest" not in header.inner_text()
        archive = page.locator(".site-header nav a", has_text="Archive").bounding_box()
        guest = page.locator(".site-header .guest").bounding_box()
        assert page.locator(".site-header .guest").inner_text() == "Guest"
        apart = guest["x"] - (archive["x"] + archive["width"]) if abs(guest["y"] - archive["y"]) < 5 else 99
        assert apart >= 6, (archive, guest)  # a word of its own, not "ArchiveGuest"
        shot(page, "guest-header-390x844.png", full_page=False)
    finally:
        context.close()


# --- 4. "Not played today" on one line -----------------------------------------------------------------


@pytest.mark.parametrize("viewport", [PHONE, WIDE], ids=["390x844", "1366x768"])
def test_the_home_page_s_badges_stay_on_one_line(browser: Any, live_server: Any, viewport: dict[str, int]) -> None:
    for seed, game in enumerate(GAME_IDS, start=1):
        make_challenge(game=game, seed=seed)
    context, page = phone_page(browser, live_server, viewport)
    try:
        sign_up(page, "ada")
        badges = page.locator(".challenge .mine")
        assert badges.count() == len(GAME_IDS)
        for i in range(badges.count()):
            badge = badges.nth(i)
            assert badge.inner_text() == "Not played today"
            assert badge.evaluate(LINES) == 1, f"{badge.inner_text()} wraps in {GAME_IDS[i]}"
            box = badge.bounding_box()
            assert box["height"] < 2 * float(badge.evaluate("(el) => parseFloat(getComputedStyle(el).fontSize)"))
        shot(page, f"home-badges-{viewport['width']}x{viewport['height']}.png")
    finally:
        context.close()


# --- 5. every column of a board on a phone ----------------------------------------------------------------


def _results(challenge: Any, names: list[str]) -> None:
    from django.contrib.auth import get_user_model

    from games import services

    for name in names:
        user = get_user_model().objects.filter(username=name).first() or get_user_model().objects.create_user(
            username=name, password=PASSWORD
        )
        attempt = services.attempt_start(player=user, challenge=challenge)
        services.attempt_append_moves(attempt_id=attempt.pk, player=user, start=0, moves=["s", "s"])
        services.attempt_submit(attempt_id=attempt.pk, player=user)


def test_a_board_shows_every_column_on_a_phone(browser: Any, live_server: Any) -> None:
    names = ["averyveryverylongplayername", "bo", "cy"]
    today = make_challenge(game="klondike", seed=2026)
    _results(today, names)
    yesterday = days.today() - dt.timedelta(days=1)
    with time_machine.travel(dt.datetime.combine(yesterday, dt.time(12), tzinfo=dt.UTC), tick=False):
        past = make_challenge(game="klondike", seed=7, day=yesterday, solution=["s"])
        _results(past, names)
    context, page = phone_page(browser, live_server)
    try:
        sign_up(page, "bo2")
        for day, columns in ((days.today(), 6), (yesterday, 7)):  # a day that is over links each game too
            page.goto(f"/board/{day}/klondike")
            page.wait_for_selector("#board[data-ready=true] table.leaderboard")
            heads = page.locator("table.leaderboard thead th")
            assert heads.count() == columns
            rights = page.locator("table.leaderboard th, table.leaderboard td").evaluate_all(
                "(cells) => cells.map((c) => c.getBoundingClientRect().right)"
            )
            assert max(rights) <= PHONE["width"], f"{day}: a column ends at {max(rights)} px"
            board = page.locator("#board")
            assert board.evaluate("(el) => el.scrollWidth <= el.clientWidth"), "the board scrolls sideways"
            time_cell = page.locator("table.leaderboard tbody tr").first.locator("td").nth(5)
            assert re.fullmatch(r"\d+:\d\d\.\d\d", time_cell.inner_text()) and time_cell.evaluate(LINES) == 1
            shot(page, f"board-{'past' if columns == 7 else 'today'}-390x844.png")
    finally:
        context.close()


# --- 6. and 8. empty slots say what they take; a finished board is left clean ----------------------------


def test_empty_slots_are_labelled_and_a_finished_board_keeps_no_hint_or_error(page: Any) -> None:
    make_challenge(game="klondike", seed=2026)
    sign_up(page, "ada")
    page.goto(f"/play/{days.today()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    label = "(el) => getComputedStyle(el, '::after').content"
    assert page.locator('#table [data-pile="w"]').evaluate(label) == '"waste"'
    assert page.locator('#table [data-pile="f1"]').evaluate(label) == '"A"'
    colour = page.locator('#table [data-pile="f1"]').evaluate("(el) => getComputedStyle(el, '::after').color")
    assert colour.startswith("rgba(255, 255, 255")  # faint: white, see-through
    shot(page, "empty-slots-1280x800.png", full_page=False)

    page.evaluate('window.patience.send(["r"])')  # refused by the page: an error message
    page.wait_for_function("document.getElementById('message').classList.contains('error')")
    page.click("#hint")
    page.click("#hint-confirm")  # the first hint of a ranked game asks first (issue 53)
    page.wait_for_function("document.getElementById('message').textContent.startsWith('Hint')")
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    assert page.locator("#table .hint-card, #table .hint-to").count() == 0
    assert page.locator("#message").inner_text() == ""
    page.click("#result-dock")
    shot(page, "finished-board-clean-1280x800.png", full_page=False)


# --- 9. the invite names its league --------------------------------------------------------------------


def test_the_invite_page_names_the_league_and_who_invites(page: Any, browser: Any, live_server: Any) -> None:
    from django.contrib.auth import get_user_model

    from leagues.services import league_create

    sign_up(page, "ada")
    league = league_create(owner=get_user_model().objects.get(username="ada"), name="Night Owls")
    context, visitor = phone_page(browser, live_server)
    try:
        visitor.goto(f"/leagues/join/{league.invite_code}")
        assert visitor.locator("h1").inner_text() == "Join Night Owls"
        assert visitor.locator("#invited-by").inner_text().startswith("ada invites you")
        shot(visitor, "league-invite-390x844.png", full_page=False)
        visitor.goto("/leagues/join/nosuchcode")
        assert visitor.locator("h1").inner_text() == "This invite link does not work"
    finally:
        context.close()
    # A guest who joined is "Guest" among the members, never its internal name.
    from games import services as game_services
    from leagues.services import league_join

    guest = game_services.guest_create()
    league_join(player=guest, invite_code=league.invite_code)
    page.goto(f"/leagues/{league.pk}")
    page.wait_for_selector("#league[data-ready=true]")
    members = page.locator("#members li").all_inner_texts()
    assert [m.split()[0] for m in members] == ["ada", "Guest"], members
    assert guest.get_username() not in page.locator("#league").inner_text()


# --- 10. the site's 404 page ----------------------------------------------------------------------------


def test_an_unknown_address_shows_the_site_s_404_page_under_debug(page: Any, settings: Settings) -> None:
    settings.DEBUG = True  # bin/serve's default; the live server runs in this process
    response = page.goto("/no/such/page")
    assert response.status == 404
    assert page.locator("h1").inner_text() == "Nothing here"
    assert page.locator(".site-header .brand").is_visible()
    shot(page, "not-found-1280x800.png", full_page=False)


# --- 11. the solution in words, the table staying put while it plays ---------------------------------------


def test_the_solution_names_its_cards_and_the_table_stays_put_while_it_plays(browser: Any, live_server: Any) -> None:
    data = json.loads((Path(__file__).parent / "data" / "klondike_autofinish.json").read_text())
    log = data["moves"]
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="klondike", seed=data["seed"], day=yesterday, solution=log)
    context, page = phone_page(browser, live_server)
    try:
        page.goto(f"/play/{yesterday}/klondike")
        page.wait_for_selector("#game[data-ready=true]")
        page.wait_for_selector("#solution-moves[data-ready=true]", state="attached")
        page.locator("#solution summary").click()
        items = page.locator("#solution-moves li").all_inner_texts()
        assert len(items) == len(log)
        for move, text in zip(log, items, strict=True):  # each card named, before anything is watched
            if move not in ("s", "r"):
                assert not text.startswith(("A card", "2 cards", "3 cards")), text
                assert re.match(r"(10|[A2-9JQK])[♣♦♥♠]", text), text
        page.locator("#solution-watch").scroll_into_view_if_needed()
        page.click("#solution-watch")
        page.wait_for_selector("#watch:not([hidden])")
        page.select_option("#watch-speed", "10")
        page.wait_for_timeout(200)
        still = page.evaluate("window.scrollY")
        table = page.locator("#table").bounding_box()
        assert table["y"] >= -1 and table["y"] < PHONE["height"] / 2, table  # the table in view
        page.click("#watch-play")
        positions = []
        for _ in range(8):
            page.wait_for_timeout(150)
            positions.append(page.evaluate("window.scrollY"))
        assert int(page.locator("#watch-pos").inner_text().split(" / ")[0]) >= 5
        assert set(positions) == {still}, positions  # the page never scrolled while it played
        shot(page, "solution-playing-390x844.png", full_page=False)
    finally:
        context.close()


# --- 12. safe cards home ---------------------------------------------------------------------------------

SEED = 10  # Klondike seed 10 deals A♣ (column 1, alone) and A♥ (column 5) on top: both safe at once


def _seed_tops() -> list[str]:
    view: dict[str, Any] = visible(State(deal("klondike", SEED)))  # the JSON view
    return [column[-1]["card"] for column in view["tableau"]]


def test_safe_cards_go_home_only_when_asked_remembered_apart_for_ranked_and_practice(page: Any) -> None:
    tops = _seed_tops()
    assert tops[0] == "AC" and tops[4] == "AH"
    make_challenge(game="klondike", seed=SEED)
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="klondike", seed=SEED, day=yesterday)
    sign_up(page, "ada")

    # Ranked: off by default, and said in words beside the box.
    page.goto(f"/play/{days.today()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    option = page.locator("#safe-home")
    assert not option.is_checked()
    words = page.locator("label.safe-home").inner_text()
    assert "Safe cards home" in words and "no other move could ever need goes to its foundation" in words
    start(page)
    page.wait_for_timeout(600)
    assert log_length(page) == 0 and not option.is_checked()  # nothing moves by itself
    option.check()
    page.wait_for_function("window.patience.game.attempt.moves.length >= 2 && !window.patience.game.busy")
    moves = page.evaluate("window.patience.game.attempt.moves")
    assert moves[:2] == ["t1f1", "t5f2"], moves  # ordinary moves of the log, column tops only
    page.wait_for_function("document.getAnimations().length === 0")
    shot(page, "safe-home-ranked-1280x800.png", full_page=False)
    from games.models import Attempt

    assert Attempt.objects.get(player__username="ada", ranked=True).moves[:2] == ["t1f1", "t5f2"]
    option.uncheck()

    # Practice: remembered apart (off until turned on there); an undo is not undone again.
    page.goto(f"/play/{yesterday}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    assert not page.locator("#safe-home").is_checked()
    start(page)
    page.wait_for_timeout(600)
    assert log_length(page) == 0
    page.locator("#safe-home").check()
    page.wait_for_function("window.patience.game.attempt.moves.length >= 2 && !window.patience.game.busy")
    assert page.evaluate("window.patience.game.attempt.moves")[:2] == ["t1f1", "t5f2"]
    n = log_length(page)
    page.click("#undo")
    wait_log(page, n + 1)
    page.wait_for_timeout(500)
    assert log_length(page) == n + 1 and page.evaluate("window.patience.game.attempt.moves.at(-1)") == "u"
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    assert page.locator("#safe-home").is_checked()  # remembered for practice
    page.goto(f"/play/{days.today()}/klondike")  # ranked: turned off there, it stays off
    page.wait_for_selector("#game[data-ready=true]")
    assert not page.locator("#safe-home").is_checked()


def test_the_option_fits_a_phone(browser: Any, live_server: Any) -> None:
    make_challenge(game="klondike", seed=SEED)
    context, page = phone_page(browser, live_server)
    try:
        sign_up(page, "ada")
        page.goto(f"/play/{days.today()}/klondike")
        page.wait_for_selector("#game[data-ready=true]")
        label = page.locator("label.safe-home").bounding_box()
        assert label["x"] >= 0 and label["x"] + label["width"] <= PHONE["width"]
        assert page.locator("label.safe-home .name").evaluate(LINES) == 1, "the option's name wraps"
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, "safe-home-option-390x844.png", full_page=False)
    finally:
        context.close()
