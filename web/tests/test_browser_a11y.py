"""Accessibility in a real browser: axe-core on every page, and what a screen reader is told.

axe-core (npm, MPL-2.0) is a test-only tool pinned in package.json / package-lock.json at the
repository's root; `npm ci` installs it into node_modules/ (bin/setup does so where npm is present).
Where it is missing the audits are skipped with the reason; in CI (CI set) that is a failure. Each
audit runs axe's WCAG 2.0/2.1/2.2 A and AA rules, and its best practices (landmarks, headings), on the
page as it stands and fails on any serious or critical violation, listing the rule and the nodes;
test-artifacts/a11y/ gets a summary per page and a screenshot of each page as it was checked.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine import GAME_IDS, State, deal
from games import days
from games.tests.factories import make_challenge
from web.tests.chromium import PHONE
from web.tests.test_browser import (
    ARTIFACTS,
    WINNING_LOGS,
    _play_yesterday,
    card,
    post_moves,
    shot,
    sign_up,
    start,
    wait_log,
)

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
RULE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
BLOCKING = ("critical", "serious")
DESKTOP_1366 = {"width": 1366, "height": 768}
SIZES = {"desktop-1366x768": DESKTOP_1366, "phone-390x844": PHONE}
SEED = 11

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def axe_script() -> Path:
    if not AXE.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{AXE} is missing: CI installs it (bin/setup: npm ci)", pytrace=False)
        pytest.skip(f"axe-core is not installed ({AXE.relative_to(ROOT)}): run `npm ci` (bin/setup does, given npm)")
    return AXE


class Audit:
    """axe on page after page; a summary line per page, and every serious or critical violation."""

    def __init__(self, label: str, script: Path) -> None:
        self.label = label
        self.script = script
        self.lines: list[str] = []
        self.blocking: list[str] = []
        self.pages = 0

    def check(self, page: Any, name: str) -> list[dict[str, Any]]:
        page.wait_for_load_state("networkidle")
        page.evaluate("() => document.getAnimations().forEach((a) => a.finish())")  # colours at rest
        if not page.evaluate("typeof window.axe !== 'undefined'"):
            page.add_script_tag(path=str(self.script))
        violations: list[dict[str, Any]] = page.evaluate(
            """async (tags) => {
                const only = {type: "tag", values: tags};
                const found = await axe.run(document, {runOnly: only, resultTypes: ["violations"]});
                return found.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
                    nodes: v.nodes.map((n) => ({target: n.target.join(" "), summary: n.failureSummary,
                        html: n.html.slice(0, 160)}))}));
            }""",
            RULE_TAGS,
        )
        self.pages += 1
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        (ARTIFACTS / "a11y" / self.label).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "a11y" / self.label / f"{self.pages:02d}-{slug}.png"))
        bad = [v for v in violations if v["impact"] in BLOCKING]
        rest = [v for v in violations if v["impact"] not in BLOCKING]
        counts = ", ".join(f"{v['id']} ({v['impact']}, {len(v['nodes'])})" for v in violations) or "none"
        self.lines.append(f"{name} [{page.url}]: {len(bad)} serious/critical, {len(rest)} other; {counts}")
        for v in bad:
            nodes = "\n".join(f"      {n['target']}: {n['summary']}\n        {n['html']}" for n in v["nodes"][:8])
            self.blocking.append(f"{self.label} {name}: {v['id']} ({v['impact']}): {v['help']}\n{nodes}")
        return violations

    def finish(self) -> None:
        out = ARTIFACTS / "a11y"
        out.mkdir(parents=True, exist_ok=True)
        (out / f"{self.label}.txt").write_text("\n".join(self.lines) + "\n")
        assert not self.blocking, f"{len(self.blocking)} serious or critical violations:\n" + "\n".join(self.blocking)


def reset_link_kwargs(username: str) -> dict[str, str]:
    """The uidb64 and token of a password reset link for a new player (Django's default token generator)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    user = get_user_model().objects.create_user(username=username, password="a long passphrase 42")
    return {"uidb64": urlsafe_base64_encode(force_bytes(user.pk)), "token": default_token_generator.make_token(user)}


def opening_moves(game: str, count: int = 6) -> list[str]:
    """A few legal moves of the day's deal: a move between piles where there is one, else a draw."""
    state = State(deal(game, SEED))
    moves: list[str] = []
    for _ in range(count):
        legal = [str(m) for m in state.legal_moves()]
        if not legal:
            break
        pick = next((m for m in legal if m not in ("s", "r")), legal[0])
        state.play(next(m for m in state.legal_moves() if str(m) == pick))
        moves.append(pick)
    return moves


def new_page(browser: Any, live_server: Any, viewport: dict[str, int], **options: Any) -> Any:
    phone = viewport["width"] < 600
    extra = {"is_mobile": True, "has_touch": True} if phone else {}
    context = browser.new_context(base_url=live_server.url, viewport=viewport, **extra, **options)
    context.set_default_timeout(20_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors
    return page


def table_ready(page: Any) -> None:
    page.wait_for_selector("#game[data-ready=true]")


def give_up(page: Any) -> None:
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")


@pytest.fixture
def days_played(db: None) -> Iterator[dict[str, Any]]:
    """Today's deal of every game, and yesterday's Klondike with a solution and a reviewed game of mei's."""
    for game in GAME_IDS:
        make_challenge(game=game, seed=SEED)
    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    players = [("mei", data["moves"][:6]), ("ola", data["moves"])]
    challenge, attempts = _play_yesterday(players, data["seed"], data["moves"])
    yield {"yesterday": challenge.date, "review": attempts[0].pk}


@pytest.mark.parametrize("size", list(SIZES))
def test_every_page_has_no_serious_accessibility_violation(
    browser: Any,
    live_server: Any,
    axe_script: Path,
    days_played: dict[str, Any],
    size: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from django.contrib.auth import get_user_model
    from django.urls import URLPattern, get_resolver, reverse

    from core import limits
    from leagues.services import league_create

    viewport = SIZES[size]
    audit = Audit(size, axe_script)
    today, yesterday = days.today(), days_played["yesterday"]

    # --- a visitor ---
    page = new_page(browser, live_server, viewport)
    no_arguments = sorted(  # every page without parameters (password pages among them, when there are some)
        p.name
        for p in get_resolver("web.urls").url_patterns
        if isinstance(p, URLPattern) and p.name and not p.pattern.regex.groupindex
    )
    not_pages = {"favicon", "logout", "guest"}  # an icon, and two POST-only actions
    for name in no_arguments:
        if name not in not_pages:
            page.goto(reverse(f"web:{name}"))
            audit.check(page, f"visitor {name}")
    for name in sorted(  # a password reset link's page (Django's uidb64 and token), when there is one
        p.name
        for p in get_resolver("web.urls").url_patterns
        if isinstance(p, URLPattern) and p.name and {"uidb64", "token"} <= set(p.pattern.regex.groupindex)
    ):
        page.goto(reverse(f"web:{name}", kwargs=reset_link_kwargs(f"reset-{viewport['width']}")))
        audit.check(page, f"visitor {name}")
    page.goto(f"/board/{today}/klondike")
    page.wait_for_selector("#board[data-ready=true]")
    audit.check(page, "visitor board today")
    page.goto(f"/play/{today}/klondike")
    table_ready(page)
    audit.check(page, "visitor table before start")
    page.goto(f"/play/{yesterday}/klondike")
    table_ready(page)
    page.locator("#solution summary").click()
    page.wait_for_selector("#solution-moves li")
    audit.check(page, "visitor past day with its solution")
    page.goto("/no-such-page")
    audit.check(page, "404")
    page.goto("/accounts/login/")
    page.fill("#id_username", "nobody")
    page.fill("#id_password", "wrong password")
    page.locator("form.auth-form button[type=submit], form button[type=submit]").last.click()
    page.wait_for_load_state()
    audit.check(page, "login with an error")
    page.goto("/accounts/signup/")
    page.fill("#id_username", "x")
    page.fill("#id_password1", "short")
    page.fill("#id_password2", "other")
    page.locator("main form button[type=submit]").last.click()
    page.wait_for_load_state()
    audit.check(page, "signup with errors")

    def refuse(**kwargs: Any) -> None:
        raise limits.Throttled("Too many new players from your address: try again in an hour.", wait=3600)

    with monkeypatch.context() as patch:  # (the suite's own patches, no throttling, stay)
        patch.setattr(limits, "creation_guard", refuse)
        page.goto(f"/play/{today}/maria")
        table_ready(page)
        page.click("#guest-button")
        page.wait_for_load_state()
        assert "Too many" in page.content()
        audit.check(page, "throttled")
    page.context.close()

    # --- a player ---
    page = new_page(browser, live_server, viewport)
    username = f"p{viewport['width']}"
    sign_up(page, username)
    audit.check(page, "home, signed in")
    for name in no_arguments:  # the same pages for a player (an account page among them, when there is one)
        if name not in not_pages | {"home", "login", "signup"}:
            page.goto(reverse(f"web:{name}"))
            audit.check(page, f"player {name}")
    for game in GAME_IDS:
        page.goto(f"/play/{today}/{game}")
        table_ready(page)
        start(page)
        assert post_moves(page, opening_moves(game)) == 200
        page.reload()
        table_ready(page)
        page.wait_for_function("window.patience !== undefined && window.patience.game.attempt !== null")
        page.locator('#table [data-pile="t1"]').focus()  # the table by keyboard: a pile in focus
        audit.check(page, f"table {game}, mid-game")
        give_up(page)
        audit.check(page, f"table {game}, result")
    page.click("#game-watch")
    page.wait_for_selector("#watch:not([hidden])")
    audit.check(page, "watching a game")
    page.goto(f"/players/{username}")
    page.wait_for_selector("#profile[data-ready=true]")
    audit.check(page, "profile")
    page.goto(f"/board/{yesterday}/klondike")
    page.wait_for_selector("#day-stats[data-ready=true]")
    page.wait_for_selector("#board[data-ready=true]")
    audit.check(page, "board of a past day")
    page.goto(f"/games/{days_played['review']}")
    page.wait_for_selector("#game-review[data-ready=true]")
    audit.check(page, "review of a past day's game")
    page.click("#rv-win")
    page.wait_for_selector("#game-review[data-watching=win]")
    audit.check(page, "review, a win shown")
    league = league_create(owner=get_user_model().objects.get(username=username), name="Night Owls")
    page.goto("/leagues")
    page.wait_for_selector("#leagues[data-ready=true]")
    audit.check(page, "leagues")
    page.goto(f"/leagues/{league.pk}")
    page.wait_for_selector("#league[data-ready=true]")
    audit.check(page, "league")
    errors = page.errors
    page.context.close()

    # --- the invite, as a visitor and as a player who is not a member ---
    page = new_page(browser, live_server, viewport)
    page.goto(f"/leagues/join/{league.invite_code}")
    page.wait_for_load_state("networkidle")
    audit.check(page, "league join, visitor")
    sign_up(page, f"q{viewport['width']}")
    page.goto(f"/leagues/join/{league.invite_code}")
    page.wait_for_load_state("networkidle")
    audit.check(page, "league join, player")
    errors += page.errors
    page.context.close()

    audit.finish()
    assert audit.pages >= 30 + len(no_arguments) - len(not_pages), audit.lines
    assert not errors, errors


def test_a_move_is_announced_in_words_and_piles_are_named_in_words(browser: Any, live_server: Any) -> None:
    """A screen reader hears what happened: the polite live region says the card and where it went in
    words ("7 of clubs from column 2 to column 3"), a draw names the card drawn; each pile is named in
    words ("column 3, top card king of diamonds"), never by the corner's index ("K D")."""
    make_challenge(game="klondike", seed=SEED)
    page = new_page(browser, live_server, DESKTOP_1366)
    sign_up(page, "reader")
    page.goto(f"/play/{days.today()}/klondike")
    table_ready(page)
    start(page)
    live = page.locator("#announce")
    assert live.get_attribute("aria-live") == "polite"
    # Klondike seed 11 opens with one move between columns, t7t2 (opening_moves)
    assert opening_moves("klondike", 1) == ["t7t2"]
    top7 = state_card_words(page, "t7")
    names = pile_names(page)
    for pile, name in names.items():
        assert not re.search(r"(?<![A-Za-z0-9])[A2-9TJQK] ?[CDHS♣♦♥♠](?![A-Za-z0-9])", name), (pile, name)
    assert re.match(r"column 2, top card \w+ of (clubs|diamonds|hearts|spades)", names["t2"]), names["t2"]
    assert re.fullmatch(r"column 7, top card \w+ of \w+, 6 face-down cards under it", names["t7"]), names["t7"]
    assert names["s"] == "stock, 24 cards: draw" and names["w"] == "waste, empty"
    assert names["f1"] == "foundation 1, empty"
    # the pile is what a screen reader lands on: a named control, its cards not read out one by one
    role = page.locator('#table [data-pile="t7"]').evaluate("(n) => n.getAttribute('role')")
    assert role == "button", role

    card(page, "t7").click()  # the one move between columns at the start: t7t2, which turns a card up
    wait_log(page, 1)
    assert page.evaluate("window.patience.game.attempt.moves") == ["t7t2"]
    page.wait_for_function("document.querySelectorAll('#announce span').length === 2")
    said = spoken(page)
    assert said[0] == f"{top7} from column 7 to column 2.", said
    turned = re.fullmatch(rf"Turned up ({CARD_NAME}) in column 7\.", said[1])
    assert turned, said
    names = pile_names(page)
    assert names["t2"].startswith(f"column 2, top card {top7}, on "), names["t2"]
    assert names["t7"] == f"column 7, top card {turned.group(1)}, 5 face-down cards under it", names["t7"]

    page.keyboard.press("d")  # a draw by the keyboard: the card drawn, named
    wait_log(page, 2)
    page.wait_for_function("document.querySelectorAll('#announce span').length === 3")
    drawn = spoken(page)[-1]
    assert re.fullmatch(rf"Drew {CARD_NAME}\.", drawn), drawn
    assert pile_names(page)["w"] == "waste, top card " + drawn.removeprefix("Drew ").rstrip(".")

    page.click("#giveup")  # the end: the result is said, and the keyboard is taken to it
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    page.wait_for_function("document.querySelector('#announce span:last-child').textContent.startsWith('Game over')")
    assert re.match(r"Game over Not won with score -?\d+ in 2 moves", spoken(page)[-1]), spoken(page)
    assert page.evaluate("document.activeElement.id") == "result-title"
    assert len(spoken(page)) == 3  # the region keeps the last three lines
    assert not page.errors, page.errors
    page.context.close()


CARD_NAME = r"(?:ace|king|queen|jack|\d+) of (?:clubs|diamonds|hearts|spades)"


def spoken(page: Any) -> list[str]:
    """The lines of the polite live region, oldest first."""
    return [str(t).strip() for t in page.locator("#announce span").all_inner_texts()]


def state_card_words(page: Any, pile: str) -> str:
    """The top card of a pile as the table names it (the card's own label)."""
    return str(card(page, pile).get_attribute("aria-label"))


def pile_names(page: Any) -> dict[str, str]:
    return dict(
        page.evaluate(
            """() => [...document.querySelectorAll('#table [data-pile]')].map(
                (n) => [n.dataset.pile, n.getAttribute('aria-label')])"""
        )
    )


FOCUS_RING = """() => { const s = getComputedStyle(document.activeElement);
    return {outline: `${s.outlineColor} ${s.outlineStyle} ${s.outlineWidth}`, shadow: s.boxShadow}; }"""


def test_the_table_is_played_by_keyboard_alone(browser: Any, live_server: Any) -> None:
    """Tab reaches the table's piles after the controls; arrows move between piles, Enter picks and drops:
    the same move as a click, announced; every focused pile shows a visible focus ring."""
    make_challenge(game="klondike", seed=SEED)
    page = new_page(browser, live_server, DESKTOP_1366)
    sign_up(page, "keys")
    page.goto(f"/play/{days.today()}/klondike")
    table_ready(page)
    page.focus("#start-button")
    page.keyboard.press("Enter")
    page.wait_for_function("window.patience !== undefined && window.patience.game.attempt !== null")
    page.focus("#draw")
    order = []
    for _ in range(8):  # on from the controls: the buttons, the deck switch, the board link, then the table
        page.keyboard.press("Tab")
        order.append(page.evaluate("document.activeElement.dataset.pile || document.activeElement.id"))
        if order[-1] in ("hint", "giveup"):  # a button, focused by the keyboard: a ring seen on any ground
            ring = page.evaluate(FOCUS_RING)
            assert ring["outline"] == "rgb(242, 183, 5) solid 3px" and "rgb(29, 29, 31)" in ring["shadow"], ring
            shot(page, f"a11y-keyboard-focus-{order[-1]}.png")
        if order[-1] == "s":
            break
    assert order[-1] == "s" and "giveup" in order, order  # Tab reaches the stock after the controls
    assert "rgb(242, 183, 5)" in page.evaluate(FOCUS_RING)["shadow"]  # a pile's focus ring
    page.keyboard.press("ArrowDown")  # from the stock down to column 1, and round to column 7
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.pile") == "t7"
    page.keyboard.press("Enter")  # pick column 7
    assert page.locator("#message").inner_text().startswith("Picked column 7")
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.pile") == "t2"
    shot(page, "a11y-keyboard-picked-column-7-focus-column-2.png")
    page.keyboard.press("Enter")  # drop on column 2
    wait_log(page, 1)
    assert page.evaluate("window.patience.game.attempt.moves") == ["t7t2"]
    page.wait_for_function("document.querySelectorAll('#announce span').length === 2")  # the move, the turn-up
    assert spoken(page)[0].endswith("from column 7 to column 2."), spoken(page)
    assert not page.errors, page.errors
    page.context.close()


def test_the_audit_fails_on_a_page_with_violations(browser: Any, live_server: Any, axe_script: Path) -> None:
    """The audit is not blind: a nameless button and grey-on-cream text added to the home page are serious or
    critical violations that it reports with their nodes."""
    page = new_page(browser, live_server, DESKTOP_1366)
    page.goto("/")
    audit = Audit("self-check", axe_script)
    assert not [v for v in audit.check(page, "home") if v["impact"] in BLOCKING]
    page.evaluate(
        """() => {
            const main = document.querySelector("main");
            main.append(document.createElement("button"));
            const faint = document.createElement("p");
            faint.textContent = "Faint words";
            faint.style.color = "#c9c5bb";
            main.append(faint);
        }"""
    )
    found = {v["id"]: v for v in audit.check(page, "home, spoilt")}
    assert found["button-name"]["impact"] == "critical" and found["color-contrast"]["impact"] == "serious", found
    assert len(audit.blocking) == 2 and "<button></button>" in audit.blocking[0], audit.blocking
    with pytest.raises(AssertionError, match="2 serious or critical violations"):
        audit.finish()
    page.context.close()
