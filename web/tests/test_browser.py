"""The pages in a real browser: Playwright (sync API) driving Debian's chromium against a live server.

Skipped when /usr/bin/chromium is absent on a developer's machine; CI installs it (.ci/run), and
there a missing browser is a failure, not a skip. The fixtures (``browser``, ``page``) are web/tests/conftest.py's.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import time_machine

from engine import T2F, T2T, Move, State, deal, visible
from games import days
from games.models import Attempt
from games.tests.factories import make_challenge
from web.tests.chromium import DESKTOP, PHONE

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
WINNING_LOGS = Path(__file__).resolve().parents[2] / "games" / "tests" / "data" / "winning_logs.json"
PASSWORD = "a long passphrase 42"

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


# --- helpers ------------------------------------------------------------------------------------


def sign_up(page: Any, username: str) -> None:
    page.goto("/")
    page.get_by_role("link", name="Sign up").click()
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/$"))
    assert page.locator(".site-header .me").inner_text() == username


def open_table(page: Any, game_name: str) -> None:
    page.goto("/")
    page.get_by_role("link", name=game_name, exact=True).click()
    page.wait_for_selector("#game[data-ready=true]")


def start(page: Any) -> None:
    page.click("#start-button")
    page.wait_for_function("window.patience !== undefined && window.patience.game.attempt !== null")


def log_length(page: Any) -> int:
    return int(page.evaluate("window.patience.game.attempt.moves.length"))


def wait_log(page: Any, length: int) -> None:
    page.wait_for_function(f"window.patience.game.attempt.moves.length === {length} && !window.patience.game.busy")


def post_moves(page: Any, moves: list[str], start: int | None = None) -> int:
    """Moves sent with the page's own session (cookie and CSRF header), as the page would; from the
    page's log length, or from ``start`` (the page does not see these batches until it reloads)."""
    return int(
        page.evaluate(
            """async ([moves, start]) => {
            const id = window.patience.game.attempt.id;
            const from = start ?? window.patience.game.attempt.moves.length;
            const token = document.cookie.match(/csrftoken=([^;]+)/)[1];
            const r = await fetch(`/api/v1/attempts/${id}/moves`, {method: "POST",
                headers: {"Content-Type": "application/json", "X-CSRFToken": token},
                body: JSON.stringify({from, moves})});
            return r.status;
        }""",
            [moves, start],
        )
    )


def card(page: Any, pile: str, index: int | None = None) -> Any:
    selector = f'#table [data-pile="{pile}"] .card'
    return page.locator(selector + (f'[data-index="{index}"]' if index is not None else "")).last


def drag(page: Any, source: Any, target: Any) -> None:
    """Press on the visible top strip of the source card and drop on the middle of the target."""
    a = source.bounding_box()
    b = target.bounding_box()
    x, y = a["x"] + a["width"] / 2, a["y"] + a["height"] * 0.08
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 8, y + 8, steps=2)
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=8)
    page.mouse.up()


def run_move_position(game: str, seed: int, log: list[str]) -> tuple[list[str], Move]:
    """A prefix of ``log`` after which a run of two or more cards can move, and that move."""
    state = State(deal(game, seed))
    for i in range(len(log) + 1):
        runs = [m for m in state.legal_moves() if m.n > 1]
        if runs:
            return log[:i], runs[0]
        if i < len(log):
            state.play(Move.parse(log[i]))
    raise AssertionError(f"no run move along the log of {game} {seed}")


def phone_result(browser: Any, live_server: Any, context: Any, url: str) -> tuple[Any, Any]:
    """The same player's finished table ``url`` on a phone (touch, 390x844), its result shown; the
    phone's context (to close) and page. Headless Chromium on Linux has no share sheet: a stand-in
    records in ``window.__shared`` what the page hands it."""
    phone = browser.new_context(
        base_url=live_server.url,
        viewport=PHONE,
        storage_state=context.storage_state(),
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    phone.add_init_script("navigator.share = async (data) => { window.__shared = data; };")
    mobile = phone.new_page()
    mobile.goto(url)
    mobile.wait_for_selector("#result[data-status=valid]")
    return phone, mobile


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


# --- tests --------------------------------------------------------------------------------------


def test_sign_up_run_move_draw_undo_and_errors(page: Any, browser: Any, live_server: Any) -> None:
    logs = json.loads(WINNING_LOGS.read_text())
    if "josephine" in logs:
        seed, log = logs["josephine"]["seed"], logs["josephine"]["moves"]
    else:
        seed, log = 19, []  # josephine 19 opens with a run move (t8t5:2)
    prefix, run = run_move_position("josephine", seed, log)
    make_challenge(game="josephine", seed=seed)
    make_challenge(game="klondike", seed=2026)

    sign_up(page, "ada")
    open_table(page, "Josephine")
    assert page.locator("#start-button").inner_text() == "Start (ranked)"
    start(page)
    assert page.locator("#mode").inner_text() == "ranked"
    if prefix:
        assert post_moves(page, prefix) == 200
        page.reload()
        page.wait_for_selector("#game[data-ready=true]")
    n = log_length(page)

    # A run move, by dragging the run's lowest card onto the target column.
    state = State(deal("josephine", seed))
    for move in prefix:
        state.play(Move.parse(move))
    source_column = state.tab[run.src]
    drag(page, card(page, f"t{run.src + 1}", len(source_column) - run.n), card(page, f"t{run.dst + 1}"))
    wait_log(page, n + 1)
    assert page.evaluate("window.patience.game.attempt.moves.at(-1)") == str(run)
    state.play(run)
    shown = page.evaluate("window.patience.game.state")
    assert shown["tableau"] == visible(state)["tableau"]
    assert page.locator(f'#table [data-pile="t{run.dst + 1}"] .card').count() == len(state.tab[run.dst])
    assert page.locator("#moves").inner_text() == str(state.moves)

    # Draw with the key, then undo with the button.
    stock_before = shown["stock"]
    page.locator('#table [data-pile="t1"]').focus()
    page.keyboard.press("d")
    wait_log(page, n + 2)
    assert page.evaluate("window.patience.game.state.stock") == stock_before - 1
    assert page.locator('#table [data-pile="w"] .card').count() == 1
    shot(page, "table-desktop-1280x800.png")
    page.click("#undo")  # the undo of a draw that showed a card: the page asks first
    page.click("#undo-confirm")
    wait_log(page, n + 3)
    assert page.evaluate("window.patience.game.state.stock") == stock_before
    assert page.locator('#table [data-pile="w"] .card').count() == 0
    assert page.evaluate("window.patience.game.attempt.moves.slice(-2)") == ["s", "u"]

    # The server is the judge: an illegal move snaps back with its reason; a stale log reloads.
    page.evaluate('window.patience.send(["r"])')
    page.wait_for_function("document.getElementById('message').textContent.includes('stock is not empty')")
    assert log_length(page) == n + 3
    assert post_moves(page, ["s"]) == 200  # behind the page's back, as from another tab
    page.evaluate('window.patience.send(["s"])')  # resent: harmless, nothing new stored
    page.wait_for_function("!window.patience.game.busy")
    assert log_length(page) == n + 4
    assert post_moves(page, ["s"]) == 200  # another tab draws: the page's log is one move behind
    page.click("#undo")  # sends "u" where the server holds "s": 409, and the page reloads
    page.wait_for_function("document.getElementById('message').textContent.includes('reloaded')")
    assert log_length(page) == n + 5
    assert page.evaluate("window.patience.game.state.stock") == stock_before - 2

    # The keyboard: arrows move between piles; Enter on a pile picks it up, Enter on another drops there.
    page.locator('#table [data-pile="t1"]').focus()
    page.keyboard.press("ArrowRight")
    assert page.evaluate("document.activeElement.dataset.pile") == "t2"
    page.keyboard.press("ArrowUp")
    assert page.evaluate("document.activeElement.dataset.pile")[0] in "swf"
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.dataset.pile")[0] == "t"
    state.play(Move.parse("s"))  # the log now ends s, u, s, s: the position after two draws
    state.play(Move.parse("s"))
    keyed = next(m for m in state.legal_moves() if m.kind in (T2T, T2F) and m.n == 1)
    source = f"t{keyed.src + 1}"
    target = f"f{keyed.dst + 1}" if keyed.kind == T2F else f"t{keyed.dst + 1}"
    n = log_length(page)
    page.locator(f'#table [data-pile="{source}"]').focus()
    page.keyboard.press("Enter")
    assert page.locator(f'#table [data-pile="{source}"].picked').count() == 1
    page.locator(f'#table [data-pile="{target}"]').focus()
    page.keyboard.press("Enter")
    wait_log(page, n + 1)
    assert page.evaluate("window.patience.game.attempt.moves.at(-1)") == str(keyed)
    assert page.locator(f'#table [data-pile="{target}"] .card').count() >= 1

    # The four-colour deck is remembered.
    page.check("#four-colour")
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    assert page.locator("body.four-colour").count() == 1

    # Phone width: the same table, scaled to the screen.
    phone = browser.new_context(
        base_url=live_server.url,
        viewport=PHONE,
        storage_state=page.context.storage_state(),
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    mobile = phone.new_page()
    mobile.goto(page.url)
    mobile.wait_for_selector("#game[data-ready=true]")
    width = mobile.evaluate("document.querySelector('#table').getBoundingClientRect().right")
    assert width <= PHONE["width"], "the table is wider than the phone"
    card_width = mobile.evaluate("document.querySelector('#table .card.up').getBoundingClientRect().width")
    assert card_width >= 28
    before = log_length(mobile)
    mobile.tap('#table [data-pile="s"]')  # touch: a tap on the stock draws
    wait_log(mobile, before + 1)
    shot(mobile, "table-phone-390x844.png")
    phone.close()


def test_the_first_undo_that_takes_back_a_look_asks_first(page: Any) -> None:
    """SPEC section 7 on the table: an undo of a plain move just undoes; the undo of a draw that showed a
    hidden card asks first, in words; keeping the game sends nothing; undoing anyway marks it assisted."""
    make_challenge(game="josephine", seed=1)
    sign_up(page, "bea")
    open_table(page, "Josephine")
    start(page)
    assert page.locator("#mode").inner_text() == "ranked"
    assert post_moves(page, ["t7f1"]) == 200  # a move to a foundation: it shows nothing hidden
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    page.click("#undo")
    wait_log(page, 2)
    assert not page.locator("#undo-warning").is_visible()
    assert page.locator("#mode").inner_text() == "ranked"

    page.locator('#table [data-pile="t1"]').focus()
    page.keyboard.press("d")
    wait_log(page, 3)
    page.click("#undo")
    warning = page.locator("#undo-warning")
    warning.wait_for(state="visible")
    assert page.locator("#undo-warning-text").inner_text() == (
        "Undoing this draw shows you a hidden card and takes it back: your game will rank on the assisted board."
    )
    shot(page, "undo-warning-desktop-1280x800.png")
    page.click("#undo-cancel")
    warning.wait_for(state="hidden")
    page.wait_for_function("document.getElementById('message').textContent.includes('Nothing undone')")
    assert log_length(page) == 3 and page.locator("#mode").inner_text() == "ranked"
    assert Attempt.objects.get(player__username="bea").moves == ["t7f1", "u", "s"]

    page.locator('#table [data-pile="t1"]').focus()
    page.keyboard.press("u")  # the key asks too
    warning.wait_for(state="visible")
    page.click("#undo-confirm")
    wait_log(page, 4)
    assert page.locator("#mode").inner_text() == "ranked, assisted"
    stored = Attempt.objects.get(player__username="bea")
    assert stored.moves == ["t7f1", "u", "s", "u"] and stored.assisted is True

    page.keyboard.press("d")  # from now on nothing more to mark: undo just undoes
    wait_log(page, 5)
    page.click("#undo")
    wait_log(page, 6)
    assert not warning.is_visible()


def test_single_card_games_move_runs_through_empty_columns(page: Any, live_server: Any) -> None:
    """The Forty Thieves computer rule, planned in the page: k empty columns carry k + 1 cards."""
    make_challenge(game="forty-thieves", seed=7)
    page.goto(f"/play/{days.today()}/forty-thieves")
    page.wait_for_selector("#game[data-ready=true]")
    plans = page.evaluate(
        """async () => {
            const R = await import("/static/web/js/rules.js");
            const rules = window.patience.game.rules;
            const up = (card) => ({card, up: true});
            const state = {tableau: [[up("9S"), up("8S"), up("7S")], [up("TS")], [], [], [up("KH")]],
                           foundations: [[], []], stock: 0, waste: []};
            const tight = {...state, tableau: [...state.tableau.slice(0, 3), [up("2C")], state.tableau[4]]};
            return [R.planColumnMove(rules, state, 0, 3, 1), R.planColumnMove(rules, tight, 0, 3, 1),
                    R.planColumnMove(rules, state, 0, 3, 4), R.planBest(rules, state, {pile: "t", index: 0, n: 3})];
        }"""
    )
    assert plans[0] == {"moves": ["t1t3", "t1t4", "t1t2", "t4t2", "t3t2"]}
    assert "2 empty columns" in plans[1]["error"]
    assert "does not build" in plans[2]["error"]
    assert plans[3] == plans[0]
    finish = page.evaluate(
        """async () => {
            const R = await import("/static/web/js/rules.js");
            const rules = window.patience.game.rules;
            const up = (card) => ({card, up: true});
            const base = {foundations: [["AS"], ["AH", "2H"], [], []], stock: 0, waste: [], won: false};
            const safe = {...base, tableau: [[up("3H"), up("2S")], [up("AC")], []]};
            const stuck = {...base, tableau: [[up("3H"), up("4H")], [up("AC")], []]};
            const best = {...base, tableau: [[up("3S"), up("3H")], [up("4H")], []]};
            return [R.finishPlan(safe), R.finishPlan(stuck), R.finishPlan({...safe, waste: ["AD"]}),
                    R.planBest(rules, best, {pile: "t", index: 0, n: 1}),
                    R.planBest(rules, best, {pile: "t", index: 1, n: 1}),
                    R.planBest(rules, {...best, tableau: [[up("3S")], [up("9C"), up("2D")], []]},
                               {pile: "t", index: 1, n: 1}),
                    R.planBest(rules, {...best, tableau: [[up("3D")], [up("9C"), up("2D")], []]},
                               {pile: "t", index: 1, n: 1})];
        }"""
    )
    assert finish[0] == ["t1f1", "t1f2", "t2f3"]
    assert finish[1] is None and finish[2] is None
    assert finish[3] == {"moves": ["t1f2"]}  # a foundation first
    assert "no place" in finish[4]["error"]  # a whole column onto an empty one changes nothing
    assert finish[5] == {"moves": ["t2t3"]}  # 2D does not build on 3S in suit: the empty column
    assert finish[6] == {"moves": ["t2t1"]}  # a column it builds on before an empty one
    assert page.locator("#start").is_visible() and "Log in" in page.locator("#start").inner_text()


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    """The server's clock (the live server runs in this process), to be moved on as a person's play would."""
    with time_machine.travel(dt.datetime.now(dt.UTC), tick=True) as traveller:
        yield traveller


def test_win_result_share_and_leaderboard(page: Any, clock: time_machine.Traveller) -> None:
    """Most of a known winning log goes through the batch endpoint with the page's own session;
    the last moves are a click on the stock and a click on the waste card. The table's clock, the
    result, the board and the share text show one play time."""
    logs = json.loads(WINNING_LOGS.read_text())
    game = "josephine" if "josephine" in logs else "klondike"
    seed, log = logs[game]["seed"], logs[game]["moves"]
    make_challenge(game=game, seed=seed, solution=log)
    name = {"josephine": "Josephine", "klondike": "Klondike"}[game]

    sign_up(page, "grace")
    open_table(page, name)
    start(page)
    # Leave a tail that the page plays itself by clicks: the draws and foundation moves at the end
    # (a click sends a card to a foundation first, so the page's moves are the log's).
    cut = len(log) - 1
    while cut > 0 and (log[cut - 1] == "s" or re.fullmatch(r"[wt]\d*f\d+", log[cut - 1])):
        cut -= 1
    # Ten moves at a time, the server's clock moved on as a person's game would take, or the win is
    # held for a fair-play check (games.pace; test_a_machine_speed_win_is_held_for_a_fair_play_check).
    for begin in range(0, cut // 2, 10):
        clock.shift(dt.timedelta(seconds=10))
        assert post_moves(page, log[begin : min(begin + 10, cut // 2)], begin) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    shot(page, f"table-{game}-midgame-1280x800.png")
    for begin in range(cut // 2, cut, 10):
        clock.shift(dt.timedelta(seconds=10))
        assert post_moves(page, log[begin : min(begin + 10, cut)], begin) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    assert log_length(page) == cut
    shot(page, f"table-{game}-near-win-1280x800.png")
    for move in log[cut:]:
        before = log_length(page)
        if page.evaluate("window.patience.game.state.won"):
            break
        if move == "s":
            page.click('#table [data-pile="s"]')
        elif move.startswith("w"):
            card(page, "w").click()
        else:
            column = re.match(r"t(\d+)", move)
            assert column, move
            card(page, f"t{column.group(1)}").click()
        page.wait_for_function(f"window.patience.game.attempt.moves.length > {before} && !window.patience.game.busy")

    page.wait_for_selector("#result[data-status=valid]", timeout=30_000)
    assert page.evaluate("window.patience.game.state.won") is True
    text = page.locator("#result-text").inner_text()
    assert "Won" in text and "Rank #1" in text
    assert page.locator("#result-title").inner_text() == "You won!"
    share = page.locator("#share-text").input_value()
    assert name in share and "Won" in share and f"{len(log)} moves" in share
    time = page.locator("#clock").inner_text()  # the ended attempt's time, from the server
    assert re.fullmatch(r"\d+:\d\d\.\d\d", time) and f"Time {time}." in text and time in share, (time, text, share)
    assert str(days.today()) in share or days.today().strftime("%d %b %Y") in share
    assert not re.search(r"(?<![A-Za-z0-9])[A2-9TJQK][CDHS](?![A-Za-z0-9])", share), share
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("#copy-share")
    page.wait_for_function("document.getElementById('copy-share').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == share
    shot(page, f"result-{game}-1280x800.png")

    page.click("#result-board")
    page.wait_for_selector("#board[data-ready=true]")
    row = page.locator("table.leaderboard tbody tr").first
    assert "grace" in row.inner_text() and row.locator("td").first.inner_text() == "1"
    assert row.locator("td").last.inner_text() == time
    shot(page, "board-1280x800.png")
    page.check("#around-me")
    page.wait_for_function("document.querySelector('#board .summary').textContent.includes('Your rank: #1')")

    page.click(".site-header .me")
    page.wait_for_selector("#profile[data-ready=true]")
    assert page.locator(".chart rect").count() == 1
    assert "won" in page.locator(".profile .stats-grid").inner_text()
    shot(page, "profile-1280x800.png")
    page.goto("/")
    assert "1 played" in page.locator(f'.challenge[data-game="{game}"]').inner_text()
    shot(page, "home-1280x800.png")


def test_a_machine_speed_win_is_held_for_a_fair_play_check(page: Any) -> None:
    """The winning line sent at once (a bot's pace): the result says it is held for a fair-play check, and
    why, and the board does not show it."""
    logs = json.loads(WINNING_LOGS.read_text())
    seed, log = logs["klondike"]["seed"], logs["klondike"]["moves"]
    make_challenge(game="klondike", seed=seed, solution=log)
    sign_up(page, "robo")
    open_table(page, "Klondike")
    start(page)
    assert post_moves(page, log[:-1]) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    assert log[-1].startswith("w")  # every column is face up: the page plays the last card home by itself
    page.wait_for_selector("#result[data-status=valid]", timeout=30_000)
    assert page.evaluate("window.patience.game.attempt.moves.at(-1)") == log[-1]
    assert page.locator("#result-title").inner_text() == "Held for a fair-play check"
    text = page.locator("#result-text").inner_text()
    assert "Held for a fair-play check:" in text and "faster than a person" in text and "Rank" not in text
    page.goto("/")
    assert page.locator('.challenge[data-game="klondike"] .mine').inner_text() == "Fair-play check"
    page.goto(f"/board/{days.today()}/klondike")
    page.wait_for_selector("#board[data-ready=true]")
    assert "robo" not in page.locator("#board").inner_text()


def test_give_up_submits_a_lost_game(page: Any) -> None:
    make_challenge(game="maria", seed=3)
    sign_up(page, "lin")
    open_table(page, "Maria")
    start(page)
    page.click("#draw")
    wait_log(page, 1)
    assert page.locator("#mode").inner_text() == "ranked"
    page.click("#hint")  # the first of a ranked game asks first, in words (issue 53)
    assert "assisted board" in page.locator("#hint-warning-text").inner_text()
    page.click("#hint-confirm")  # then: the move in words, on the table, and the attempt marked assisted
    page.wait_for_function("document.getElementById('message').textContent.startsWith('Hint')")
    hint_text = page.locator("#message").inner_text()
    assert "now marked assisted" in hint_text and re.search(r"(column|waste|stock|foundation)", hint_text)
    assert not re.search(r"\b[wtf]\d*[tf]\d+\b", hint_text), hint_text  # words, not notation
    assert page.locator("#mode").inner_text() == "ranked, assisted"
    assert page.locator("#table .hint-to, #table .hint-from").count() >= 1
    page.click("#giveup")
    assert page.locator("#giveup").inner_text() == "Really give up?"
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    assert page.locator("#result-title").inner_text() == "Game over"
    share = page.locator("#share-text").input_value()
    assert "Maria" in share and "Won" not in share and re.search(r"\b1 moves?\b", share)
    assert page.locator("#draw").is_disabled() and page.locator("#undo").is_disabled()
    page.reload()  # the finished attempt: its result, and practice on offer once
    page.wait_for_selector("#result[data-status=valid]")
    assert not page.locator("#start").is_visible() and page.locator("#again").is_visible()
    page.click("#again")
    page.wait_for_function("window.patience.game.attempt.ranked === false")
    assert page.locator("#mode").inner_text() == "practice"
    # The hinted result is left out of the day's board, and on the board of all results, marked.
    page.goto(f"/board/{days.today()}/maria")
    page.wait_for_function("document.querySelector('#board .summary')?.textContent.startsWith('0 ranked')")
    page.check("#all-results")
    page.wait_for_selector("#board table.leaderboard")
    assert "(assisted)" in page.locator("table.leaderboard tbody tr").first.inner_text()


def test_every_game_is_drawn_at_phone_and_desktop_width(browser: Any, live_server: Any) -> None:
    """The opening layout of each of the eight games, for a visitor (read only): every pile and card drawn."""
    from engine import GAME_IDS

    for game in GAME_IDS:
        make_challenge(game=game, seed=11)
    for label, viewport in (("phone-360x740", {"width": 360, "height": 740}), ("desktop-1280x800", DESKTOP)):
        context = browser.new_context(base_url=live_server.url, viewport=viewport)
        page = context.new_page()
        for game in GAME_IDS:
            page.goto(f"/play/{days.today()}/{game}")
            page.wait_for_selector("#game[data-ready=true]")
            layout: dict[str, Any] = visible(State(deal(game, 11)))  # the JSON view
            tableau = sum(len(col) for col in layout["tableau"])
            foundations = sum(1 for pile in layout["foundations"] if pile)
            assert page.locator("#table .column .card").count() == tableau, game
            assert page.locator("#table .foundation .card").count() == foundations, game
            assert page.locator("#table .column").count() == len(layout["tableau"]), game
            assert page.locator("#table .card.down").count() == 1 + sum(
                1 for col in layout["tableau"] for c in col if not c["up"]
            ), game  # the stock's back, and Klondike's face-down cards
            right = page.evaluate("document.querySelector('#table').getBoundingClientRect().right")
            assert right <= viewport["width"], f"{game} is wider than the screen at {label}"
            shot(page, f"layout-{game}-{label}.png")
        context.close()


def test_archive_solution_plays_on_the_table_and_auto_finish(page: Any) -> None:
    """Yesterday's deal from the archive: its solution is listed in words and plays on the table like
    a video (play, pause, step, seek); in practice, once only foundation moves are left, the page
    finishes by itself."""
    data = json.loads((Path(__file__).parent / "data" / "klondike_autofinish.json").read_text())
    log = data["moves"]
    state = State(deal("klondike", data["seed"]))
    safe = None
    for i, move in enumerate(log):  # the first position where the page may finish by itself
        v: dict[str, Any] = visible(state)
        if not v["stock"] and not v["waste"] and all(c["up"] for col in v["tableau"] for c in col):
            safe = i
            break
        state.play(Move.parse(move))
    assert safe is not None and all("f" in move for move in log[safe:])
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="klondike", seed=data["seed"], day=yesterday, solution=log)

    sign_up(page, "mei")
    page.get_by_role("link", name="Archive").click()
    page.locator(f'a[href="/play/{yesterday}/klondike"]').click()
    page.wait_for_selector("#game[data-ready=true]")
    assert page.locator("#start-button").inner_text() == "Start practice"
    page.locator("#solution summary").click()
    items = page.locator("#solution-moves li")
    assert items.count() == len(log)
    first, second = items.nth(0).bounding_box(), items.nth(1).bounding_box()
    assert first and second and (second["y"] >= first["y"] + first["height"] - 1 or second["x"] > first["x"] + 50)
    assert not re.search(r"\b[wtf]\d*[tf]\d+\b", items.nth(0).inner_text())  # in words

    page.click("#solution-watch")
    page.wait_for_selector("#watch:not([hidden])")
    assert page.locator("#watch-pos").inner_text() == f"0 / {len(log)}"
    page.click("#watch-next")
    page.click("#watch-next")
    assert page.locator("#watch-pos").inner_text() == f"2 / {len(log)}"
    replayed = State(deal("klondike", data["seed"]))
    for move in log[:2]:
        replayed.play(Move.parse(move))
    assert page.evaluate("window.patience.game.state.tableau") == visible(replayed)["tableau"]
    assert page.locator("#solution-moves li.current").get_attribute("data-step") == "2"
    assert page.locator("#table .replay-to").count() == 1
    page.select_option("#watch-speed", "10")
    page.click("#watch-play")
    page.wait_for_function("Number(document.getElementById('watch-pos').textContent.split(' / ')[0]) >= 6")
    page.click("#watch-play")  # pause
    paused = page.locator("#watch-pos").inner_text()
    page.wait_for_timeout(400)
    assert page.locator("#watch-pos").inner_text() == paused
    items.nth(len(log) - 1).locator("button").click()  # seek to the end: the won position
    assert page.locator("#watch-pos").inner_text() == f"{len(log)} / {len(log)}"
    assert page.evaluate("window.patience.game.state.won") is True
    shot(page, "solution-player.png")
    page.click("#watch-close")
    assert page.locator("#watch").is_hidden()

    start(page)
    assert page.locator("#mode").inner_text() == "practice"
    assert post_moves(page, log[: safe - 1]) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    assert log_length(page) == safe - 1 and not page.evaluate("window.patience.game.state.won")
    page.evaluate(f"window.patience.send([{json.dumps(log[safe - 1])}])")  # leaves only foundation moves
    page.wait_for_selector("#result[data-status=valid]", timeout=30_000)
    moves = page.evaluate("window.patience.game.attempt.moves")
    assert moves[:safe] == log[:safe] and len(moves) == len(log) and all("f" in m for m in moves[safe:])
    assert page.locator("#result-title").inner_text() == "You won!"
    assert "Practice" in page.locator("#result-text").inner_text()
    page.click("#game-watch")  # the finished game itself, watched from its stored log
    page.wait_for_selector("#watch:not([hidden])")
    assert page.locator("#watch-pos").inner_text() == f"0 / {len(moves)}"


def test_a_long_game_is_watched_a_page_of_frames_at_a_time(page: Any) -> None:
    """A 230-move game: the player fetches /replay a page (100 moves) at a time, as it reaches them;
    each position shown, on either side of a page's edge, is the stored log's prefix."""
    from games.tests.test_fair_play import random_log

    log = random_log("klondike", 41, 230)
    assert len(log) == 230
    make_challenge(game="klondike", seed=41)
    sign_up(page, "pia")
    page.goto(f"/play/{days.today()}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    assert post_moves(page, log) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.split("/api/v1/")[1]) if "/replay" in r.url else None)
    page.click("#game-watch")
    page.wait_for_selector("#watch:not([hidden])")
    assert page.locator("#watch-pos").inner_text() == "0 / 230"

    def shows(step: int) -> None:
        page.wait_for_function(f"document.getElementById('watch-pos').textContent === '{step} / 230'")
        replayed = State(deal("klondike", 41))
        for move in log[:step]:
            replayed.play_text(move)
        assert page.evaluate("window.patience.game.state.tableau") == visible(replayed)["tableau"], step
        assert page.locator("#watch-move").inner_text().startswith(f"{step}. " if step else "The deal")

    page.click("#watch-end")
    shows(230)
    page.evaluate("window.patience.game.watching.seek(201)")
    shows(201)
    page.click("#watch-back")
    shows(200)  # the last frame of page 1
    page.click("#watch-back")
    shows(199)
    page.click("#watch-start")
    shows(0)
    page.click("#watch-next")
    shows(1)
    attempt_id = page.evaluate("window.patience.game.attempt.id")
    assert sorted(set(asked)) == [f"attempts/{attempt_id}/replay?page={p}" for p in (0, 1, 2)], asked


def test_dragging_a_run_in_a_single_card_game_moves_it_card_by_card(page: Any) -> None:
    data = json.loads((Path(__file__).parent / "data" / "supermove.json").read_text())
    game, seed, prefix, src, n, dst = (data[k] for k in ("game", "seed", "prefix", "src", "n", "dst"))
    make_challenge(game=game, seed=seed)
    state = State(deal(game, seed))
    for move in prefix:
        state.play(Move.parse(move))
    empty = [i for i, col in enumerate(state.tab) if not col and i not in (src - 1, dst - 1)]
    assert len(empty) >= n - 1 and all(m.n == 1 for m in state.legal_moves())

    sign_up(page, "ines")
    page.goto(f"/play/{days.today()}/{game}")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    assert post_moves(page, prefix) == 200
    page.reload()
    page.wait_for_selector("#game[data-ready=true]")
    drag(page, card(page, f"t{src}", len(state.tab[src - 1]) - n), card(page, f"t{dst}"))
    wait_log(page, len(prefix) + 2 * n - 1)
    sent = page.evaluate("window.patience.game.attempt.moves")[len(prefix) :]
    via = [f"t{i + 1}" for i in empty[: n - 1]]
    assert sent == [f"t{src}{t}" for t in via] + [f"t{src}t{dst}"] + [f"{t}t{dst}" for t in reversed(via)]
    for move in sent:
        state.play(Move.parse(move))
    assert page.evaluate("window.patience.game.state.tableau") == visible(state)["tableau"]
    shot(page, f"table-{game}-1280x800.png")


def test_league_invite_join_and_boards(page: Any, browser: Any, live_server: Any) -> None:
    """Ada creates a league and copies its invite link; Bea opens it as a visitor, signs up and joins;
    both play today's Klondike (through the services) and the league's boards rank them as the public
    board does. Then Bea leaves, Ada replaces the invite code, and deletes the league."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from games import services as game_services

    logs = json.loads(WINNING_LOGS.read_text())
    seed, log = logs["klondike"]["seed"], logs["klondike"]["moves"]
    klondike = make_challenge(game="klondike", seed=seed)
    make_challenge(game="maria", seed=3)
    today = days.today().isoformat()

    sign_up(page, "ada")
    page.get_by_role("link", name="Leagues").click()
    page.wait_for_selector("#leagues[data-ready=true]")
    assert "in no league yet" in page.locator("#leagues").inner_text()
    page.fill("#league-name", "x")  # too short: the browser refuses it before the API would
    page.click("#create-league button")
    assert page.locator("#league-name:invalid").count() == 1
    page.fill("#league-name", "Night Owls")
    page.click("#create-league button")
    page.wait_for_url(re.compile(r"/leagues/\d+$"))
    page.wait_for_selector("#league[data-ready=true]")
    league_url = page.url
    assert page.locator("#league-name").inner_text() == "Night Owls"
    assert page.title() == "Night Owls · Daily Patience"
    assert "Owner ada" in page.locator("#league-meta").inner_text()
    assert page.locator("#delete").is_visible() and not page.locator("#leave").is_visible()
    assert page.locator("#regenerate").is_visible()
    link = page.locator("#invite-link").input_value()
    code = page.locator("#invite-code").inner_text()
    assert link == f"{live_server.url}/leagues/join/{code}" and re.fullmatch(r"[0-9a-z]{10}", code)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.click("#copy-invite")
    page.wait_for_function("document.getElementById('copy-invite').textContent === 'Copied'")
    assert page.evaluate("navigator.clipboard.readText()") == link

    # Bea, in a browser of her own: the invite link sends a visitor to sign up, and back to join.
    other = browser.new_context(base_url=live_server.url, viewport=DESKTOP)
    other.set_default_timeout(15_000)
    bea = other.new_page()
    errors: list[str] = []
    bea.on("pageerror", lambda exc: errors.append(str(exc)))
    bea.goto(link)
    assert bea.locator("#join-button").count() == 0
    bea.locator("#join").get_by_role("link", name="Sign up").click()
    bea.fill("#id_username", "bea")
    bea.fill("#id_password1", PASSWORD)
    bea.fill("#id_password2", PASSWORD)
    bea.get_by_role("button", name="Sign up").click()
    bea.wait_for_url(f"**/leagues/join/{code}")
    bea.click("#join-button")
    bea.wait_for_url(league_url)
    bea.wait_for_selector("#league[data-ready=true]")
    assert bea.locator("#members li").all_inner_texts()[0].startswith("ada")
    assert [t.split()[0] for t in bea.locator("#members li").all_inner_texts()] == ["ada", "bea"]
    assert bea.locator("#leave").is_visible() and not bea.locator("#delete").is_visible()
    assert not bea.locator("#regenerate").is_visible() and bea.locator("#invite-code").inner_text() == code
    assert "Nobody" not in bea.locator("#daily-board").inner_text()
    assert "No member has finished this deal yet." in bea.locator("#daily-board").inner_text()

    # Ranked results on today's Klondike: Ada wins it, Bea gives up after two draws.
    users = get_user_model().objects
    for name, moves, seconds in (("ada", log, 254), ("bea", ["s", "s"], 71)):
        player = users.get(username=name)
        # Ten moves at a time over ``seconds`` of the server's clock: a person's pace (games.pace).
        with time_machine.travel(timezone.now() - dt.timedelta(seconds=seconds), tick=True) as clock:
            attempt = game_services.attempt_start(player=player, challenge=klondike)
            assert attempt.ranked
            for begin in range(0, len(moves), 10):
                clock.shift(dt.timedelta(seconds=(seconds - 1) / -(-len(moves) // 10)))
                game_services.attempt_append_moves(
                    attempt_id=attempt.pk, player=player, start=begin, moves=moves[begin : begin + 10]
                )
        submission, _ = game_services.attempt_submit(attempt_id=attempt.pk, player=player)
        assert game_services.submission_validate(submission_id=submission.pk).status == "valid"

    # The game picker: the first game of the day (Maria, where nobody has played), then Klondike.
    page.reload()
    page.wait_for_selector("#league[data-ready=true]")
    assert page.locator(".league-board .tabs a[aria-current=page]").inner_text() == "Maria"
    assert "No member has finished" in page.locator("#daily-board").inner_text()
    page.locator(".league-board .tabs").get_by_role("link", name="Klondike", exact=True).click()
    page.wait_for_url("**?game=klondike")
    page.wait_for_selector("#league[data-ready=true]")
    rows = page.locator("#daily-board table.leaderboard tbody tr")
    assert rows.count() == 2
    assert "2 members with an unassisted ranked result today." in page.locator("#daily-board").inner_text()
    page.check("#all-results")  # every ranked result, the assisted ones marked (none here)
    page.wait_for_function("document.querySelector('#daily-board .summary').textContent.includes('a ranked')")
    assert rows.count() == 2
    cells = [rows.nth(i).locator("td").all_inner_texts() for i in range(2)]
    public = page.evaluate(f"fetch('/api/v1/leaderboards/{today}/klondike').then((r) => r.json())")
    assert [c[1] for c in cells] == [e["player"] for e in public["entries"]] == ["ada", "bea"]
    assert cells[0][:3] == ["1", "ada", "won"] and cells[0][4] == str(len(log))
    assert re.fullmatch(r"4:14\.\d\d", cells[0][5])  # to the hundredth: ties are visible
    assert cells[1][:3] == ["2", "bea", "not won"] and cells[1][4] == "2" and cells[1][5].startswith("1:11.")
    assert [int(c[3]) for c in cells] == [e["score"] for e in public["entries"]]
    assert rows.first.get_attribute("class") == "me"
    alltime = page.locator("#alltime-board table.leaderboard tbody tr")
    assert [alltime.nth(i).locator("td").all_inner_texts()[:4] for i in range(2)] == [
        ["1", "ada", "1", "1"],
        ["2", "bea", "0", "1"],
    ]
    shot(page, "league-board.png")
    phone = browser.new_context(base_url=live_server.url, viewport=PHONE, storage_state=page.context.storage_state())
    mobile = phone.new_page()
    mobile.goto(page.url)
    mobile.wait_for_selector("#league[data-ready=true]")
    shot(mobile, "league-board-390x844.png")
    assert mobile.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], "wider than the phone"
    phone.close()

    # Bea leaves (a second click confirms): back on her leagues, none left, and the league is hidden.
    bea.click("#leave")
    assert bea.locator("#leave").inner_text() == "Really leave?"
    bea.click("#leave")
    bea.wait_for_url("**/leagues")
    bea.wait_for_selector("#leagues[data-ready=true]")
    assert "in no league yet" in bea.locator("#leagues").inner_text()
    assert bea.goto(league_url).status == 404
    assert "League not found" in bea.locator("main").inner_text() and code not in bea.content()

    # Ada replaces the code: the old link stops working.
    page.goto(league_url)
    page.wait_for_selector("#league[data-ready=true]")
    page.click("#regenerate")
    page.click("#regenerate")
    page.wait_for_function(f"document.getElementById('invite-code').textContent !== '{code}'")
    new_code = page.locator("#invite-code").inner_text()
    assert page.locator("#invite-link").input_value().endswith(f"/leagues/join/{new_code}")
    bea.goto(link)  # the old code's page says so at once, with no button to press
    assert "does not work" in bea.locator("h1").inner_text() and bea.locator("#join-button").count() == 0

    # With the new code typed in the join form, Bea is back in.
    bea.goto("/leagues")
    bea.wait_for_selector("#leagues[data-ready=true]")
    parse = "(text) => import('/static/web/js/leagues.js').then((m) => m.inviteCode(text))"
    assert bea.evaluate(parse, " http://x/leagues/join/ab12?utm=1 ") == bea.evaluate(parse, " ab12 ") == "ab12"
    bea.fill("#invite-code", f"  {new_code.upper()} ")
    bea.click("#join-league button")
    bea.wait_for_url(league_url)
    bea.wait_for_selector("#league[data-ready=true]")

    # Ada's leagues: the league, its owner and its members, linked.
    page.get_by_role("link", name="Leagues").click()
    page.wait_for_selector("#leagues[data-ready=true]")
    assert page.locator("#leagues tbody tr").all_inner_texts() == ["Night Owls\tada (you)\t2"]
    shot(page, "leagues-1280x800.png")
    page.get_by_role("link", name="Night Owls").click()
    page.wait_for_selector("#league[data-ready=true]")

    # Ada deletes the league; Bea's open page then finds it gone.
    page.click("#delete")
    assert page.locator("#delete").inner_text() == "Really delete it for everybody?"
    page.click("#delete")
    page.wait_for_url("**/leagues")
    page.wait_for_selector("#leagues[data-ready=true]")
    assert "in no league yet" in page.locator("#leagues").inner_text()
    bea.click("#leave")
    bea.click("#leave")
    bea.wait_for_selector("#league h1:text('League not found')")
    other.close()
    assert not errors, f"JavaScript errors in Bea's page: {errors}"


def test_a_ranked_game_left_open_past_midnight_is_closed_as_it_stood(page: Any) -> None:
    """The day is over: the table says so, takes no more moves and records the game as it stood."""
    from django.contrib.auth import get_user_model

    from games.models import Attempt

    yesterday = days.today() - dt.timedelta(days=1)
    challenge = make_challenge(game="klondike", seed=2026, day=yesterday, solution=["s"])
    sign_up(page, "owl")
    user = get_user_model().objects.get(username="owl")
    Attempt.objects.create(player=user, challenge=challenge, ranked=True, moves=["s", "s"])
    page.goto(f"/play/{yesterday}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    page.wait_for_selector("#result[data-status=valid]")
    notice = page.locator("#day-over")
    assert notice.is_visible() and "ranked play closed at midnight" in notice.inner_text()
    assert "below every won game" in page.locator("#result-text").inner_text()  # a loss: no "#1" (issue 53)
    assert page.locator("#draw").is_disabled()
    box = notice.bounding_box()
    assert box is not None and box["width"] > 300 and box["height"] >= 20
    attempt = Attempt.objects.get(player=user)
    assert attempt.finished_at is not None and attempt.submission.moves == ["s", "s"]
    shot(page, "day-over.png")


def _press_and_move(page: Any, source: Any, dx: float, dy: float) -> tuple[float, float]:
    a = source.bounding_box()
    x, y = a["x"] + a["width"] / 2, a["y"] + a["height"] * 0.08
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 8, y + 8, steps=2)
    page.mouse.move(x + dx, y + dy, steps=6)
    return x + dx, y + dy


def test_the_dragged_card_follows_the_pointer_at_its_own_size(page: Any) -> None:
    """During a drag the ghost is the card itself, at the card's size, under the pointer; an illegal
    drop glides back and says why in words."""
    make_challenge(game="klondike", seed=2026)
    sign_up(page, "zoe")
    open_table(page, "Klondike")
    start(page)
    source = card(page, "t7")
    size = source.bounding_box()
    x, y = _press_and_move(page, source, -220, 160)
    ghost = page.locator("#table .ghost .card").first
    box = ghost.bounding_box()
    assert box is not None
    assert abs(box["width"] - size["width"]) < 1.5 and abs(box["height"] - size["height"]) < 1.5, (box, size)
    assert box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]
    assert page.locator("#table .ghost .card .corner").first.bounding_box()["width"] > 10  # drawn, not a dot
    assert ghost.evaluate("n => getComputedStyle(n).visibility") == "visible"
    shot(page, "drag-ghost.png")
    # Drop it on a column it does not build on (10♥ on 8♥): it returns, with the reason in words.
    target = card(page, "t1").bounding_box()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2, steps=4)
    page.mouse.up()
    page.wait_for_function("document.querySelector('#table .ghost') === null")
    text = page.locator("#message").inner_text()
    assert "10♥ cannot go there" in text and "TH" not in text, text
    assert log_length(page) == 0
    assert card(page, "t7").is_visible()


def test_touch_drag_shows_the_card_under_the_finger(browser: Any, live_server: Any) -> None:
    make_challenge(game="klondike", seed=2026)
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        sign_up(page, "tia")
        open_table(page, "Klondike")
        start(page)
        source = card(page, "t7")
        size = source.bounding_box()
        x, y = size["x"] + size["width"] / 2, size["y"] + size["height"] * 0.1
        cdp = context.new_cdp_session(page)

        def touch(kind: str, px: float, py: float) -> None:
            points = [] if kind == "touchEnd" else [{"x": px, "y": py}]
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", x, y)
        for i in range(1, 8):
            touch("touchMove", x - 12 * i, y + 14 * i)
        box = page.locator("#table .ghost .card").first.bounding_box()
        assert box is not None and abs(box["width"] - size["width"]) < 1.5
        assert box["x"] <= x - 84 <= box["x"] + box["width"] and box["y"] <= y + 98 <= box["y"] + box["height"]
        shot(page, "drag-ghost-touch-390x844.png")
        touch("touchEnd", x - 84, y + 98)
        page.wait_for_function("document.querySelector('#table .ghost') === null")
    finally:
        context.close()


def test_the_clock_runs_during_ranked_play_from_the_server_start(page: Any) -> None:
    make_challenge(game="klondike", seed=2026)
    sign_up(page, "kim")
    open_table(page, "Klondike")
    assert page.locator("#clock-box").is_hidden()
    start(page)
    clock = page.locator("#clock")
    assert page.locator("#clock-box").is_visible()
    assert re.fullmatch(r"0:0\d", clock.inner_text())
    page.wait_for_function("document.getElementById('clock').textContent >= '0:02'", timeout=5000)
    page.reload()  # from the server's start time, not the page's
    page.wait_for_selector("#game[data-ready=true]")
    assert clock.inner_text() >= "0:02"
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    assert re.fullmatch(r"0:0\d\.\d\d", clock.inner_text())  # the final time, to the hundredth
    assert re.search(r"Time 0:0\d\.\d\d", page.locator("#result-text").inner_text())


def test_the_home_page_knows_the_player(page: Any) -> None:
    make_challenge(game="klondike", seed=2026)
    make_challenge(game="maria", seed=3)
    sign_up(page, "rio")
    cards = page.locator(".challenge")
    assert page.locator('.challenge[data-game="klondike"] .mine').inner_text() == "Not played today"
    coming = page.locator("#coming")
    assert coming.is_visible() and "6 more of today's games" in coming.inner_text()
    assert "streak" in page.locator("#streaks").inner_text()
    open_table(page, "Klondike")
    start(page)
    page.goto("/")
    assert page.locator('.challenge[data-game="klondike"] .mine').inner_text() == "In progress"
    assert page.locator('.challenge[data-game="klondike"] a.primary').inner_text() == "Resume"
    open_table(page, "Klondike")
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    page.goto("/")
    assert page.locator('.challenge[data-game="klondike"] .mine').inner_text() == "Not won"
    share = page.locator('.challenge[data-game="klondike"] button.share')
    assert "Klondike" in share.get_attribute("data-share")
    assert cards.count() == 2
    shot(page, "home-player.png")
    # A deal that becomes ready appears by itself.
    make_challenge(game="lucas", seed=4)
    page.wait_for_function("document.querySelectorAll('.challenge').length === 3", timeout=25_000)


def test_every_game_plays_by_taps_on_a_phone(browser: Any, live_server: Any) -> None:
    """At 390x844 with a finger: cards big enough to hit (two rows of columns when there are many),
    the whole table on the screen, a tap on the stock draws and a tap on a card plays it."""
    from engine import GAME_IDS

    for game in GAME_IDS:
        make_challenge(game=game, seed=11)
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        sign_up(page, "pia")
        for game in GAME_IDS:
            page.goto(f"/play/{days.today()}/{game}")
            page.wait_for_selector("#game[data-ready=true]")
            start(page)
            width = page.locator("#table .column").first.bounding_box()["width"]
            assert width >= 40, f"{game}: cards {width:.0f} px wide on a phone"
            table = page.locator("#table").bounding_box()
            assert table["x"] >= 0 and table["x"] + table["width"] <= PHONE["width"] + 0.5, game
            for pile in page.locator("#table [data-pile]").all():
                box = pile.bounding_box()
                assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5, (game, pile)
            shot(page, f"phone-{game}-390x844.png")
            page.locator('#table [data-pile="s"]').tap()
            wait_log(page, 1)
            state = State(deal(game, 11))
            state.play(Move.parse("s"))
            tops = [m for m in state.legal_moves() if m.kind in (T2F, T2T) and m.n == 1]
            if tops:
                page.locator(f'#table [data-pile="t{tops[0].src + 1}"] .card').last.tap()
                page.wait_for_function("window.patience.game.attempt.moves.length >= 2 && !window.patience.game.busy")
    finally:
        context.close()


def test_no_page_scrolls_sideways_on_a_phone(browser: Any, live_server: Any) -> None:
    make_challenge(game="lucas", seed=11)
    make_challenge(game="klondike", seed=2026, day=days.today() - dt.timedelta(days=1), solution=["s"])
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        sign_up(page, "noa")
        today = days.today()
        for path in (
            "/",
            "/archive",
            f"/board/{today}/lucas",
            f"/play/{today}/lucas",
            f"/play/{today - dt.timedelta(days=1)}/klondike",
            "/players/noa",
            "/leagues",
            "/play/2020-01-01/lucas",
            "/api/docs/",
        ):
            page.goto(path)
            page.wait_for_load_state("networkidle")
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= PHONE["width"], f"{path} is {wide} px wide at {PHONE['width']} px"
    finally:
        context.close()


def test_a_visitor_plays_first_and_keeps_the_result_by_signing_up(page: Any) -> None:
    make_challenge(game="klondike", seed=2026)
    open_table(page, "Klondike")
    assert page.locator("#guest-button").inner_text() == "Play now"
    page.click("#guest-button")  # no account: a guest, ranked, playing at once
    page.wait_for_function("window.patience !== undefined && window.patience.game.attempt !== null")
    assert page.locator("#mode").inner_text() == "ranked"
    assert page.locator(".site-header .guest").inner_text() == "Guest"
    page.click("#draw")
    wait_log(page, 1)
    page.click("#giveup")
    page.click("#giveup")
    page.wait_for_selector("#result[data-status=valid]")
    assert page.locator("#guest-keep").is_visible()
    page.locator("#guest-keep a", has_text="sign up").click()
    page.fill("#id_username", "vic")
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/play/"))
    page.wait_for_selector("#result[data-status=valid]")  # the same game, now the account's
    assert page.locator(".site-header .me").inner_text() == "vic"
    page.goto("/")
    assert page.locator('.challenge[data-game="klondike"] .mine').inner_text() == "Not won"
    page.goto(f"/board/{days.today()}/klondike")
    page.wait_for_selector("#board[data-ready=true] table.leaderboard")
    assert "vic" in page.locator("table.leaderboard tbody tr").first.inner_text()


def test_the_profile_fits_a_phone_and_dates_a_day_once(browser: Any, live_server: Any) -> None:
    """Results of one day carry their date once under the chart; the table fits 390 px; the end of a
    ranked game shows the streak."""
    from django.contrib.auth import get_user_model

    from games import services as game_services

    for game, seed in (("klondike", 2026), ("maria", 3), ("lucas", 4)):
        make_challenge(game=game, seed=seed)
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        sign_up(page, "uma")
        user = get_user_model().objects.get(username="uma")
        from games.models import Challenge

        for challenge in Challenge.objects.all():
            attempt = game_services.attempt_start(player=user, challenge=challenge)
            game_services.attempt_append_moves(attempt_id=attempt.pk, player=user, start=0, moves=["s"])
            submission, _ = game_services.attempt_submit(attempt_id=attempt.pk, player=user)
            game_services.submission_validate(submission_id=submission.pk)
        page.goto("/players/uma")
        page.wait_for_selector("#profile[data-ready=true] table.leaderboard")
        labels = page.locator("svg.chart text").evaluate_all("nodes => nodes.map((n) => n.textContent)")
        day = f"{days.today().day} {days.today():%b}"
        assert labels.count(day) == 1, labels
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, "profile-390x844.png")
        page.goto(f"/play/{days.today()}/klondike")
        page.wait_for_selector("#result[data-status=valid]")
        page.wait_for_selector("#result-streak:not([hidden])")
        assert "won in a row" in page.locator("#result-streak").inner_text()
    finally:
        context.close()


def test_no_page_breaks_its_content_security_policy(browser: Any, live_server: Any) -> None:
    """Every kind of page, as a visitor, a player (its game played and watched) and staff (admin):
    each sends a Content-Security-Policy, and the browser reports no violation of it."""
    from django.contrib.auth import get_user_model

    from leagues.services import league_create

    context = browser.new_context(base_url=live_server.url, viewport=DESKTOP, bypass_csp=False)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    violations: list[str] = []
    page.add_init_script("""document.addEventListener("securitypolicyviolation", (e) => {
        const where = `${e.sourceFile}:${e.lineNumber}`;
        (window.__csp = window.__csp || []).push(`${e.violatedDirective} ${e.blockedURI} ${where}`);
    });""")
    page.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
    today = days.today()
    make_challenge(game="klondike", seed=2026)
    make_challenge(game="lucas", seed=11, day=today - dt.timedelta(days=1), solution=["s"])
    checked: list[str] = []

    def visit(path: str, then: Any = None) -> None:
        response = page.goto(path)
        assert response is not None and "content-security-policy" in response.headers, path
        page.wait_for_load_state("networkidle")
        if then:
            then()
        found = page.evaluate("window.__csp || []")
        assert not found and not violations, (path, found, violations)
        checked.append(path)

    for path in (
        "/",
        "/archive",
        "/accounts/login/",
        "/accounts/signup/",
        f"/board/{today}/klondike",
        "/no-such-page",
        "/api/docs/",
        "/admin/login/",
    ):
        visit(path)
    sign_up(page, "csp")
    player = get_user_model().objects.get(username="csp")
    league = league_create(owner=player, name="Policy")

    def until(condition: str) -> None:  # wait_for_function would evaluate a string: the policy forbids it
        for _ in range(300):
            if page.evaluate(condition):
                return
            page.wait_for_timeout(50)
        pytest.fail(f"not within 15 s: {condition}")

    def play_and_watch() -> None:
        page.click("#start-button")
        until("window.patience !== undefined && window.patience.game.attempt !== null")
        page.click("#draw")
        until("window.patience.game.attempt.moves.length === 1 && !window.patience.game.busy")
        page.click("#giveup")
        page.click("#giveup")
        page.wait_for_selector("#result[data-status=valid]")
        page.click("#game-watch")
        page.wait_for_selector("#watch:not([hidden])")

    def watch_solution() -> None:
        page.locator("#solution summary").click()
        page.click("#solution-watch")
        page.wait_for_selector("#watch:not([hidden])")

    visit(f"/play/{today}/klondike", play_and_watch)
    visit(f"/play/{today - dt.timedelta(days=1)}/lucas", watch_solution)
    for path in ("/", "/players/csp", "/leagues", f"/leagues/{league.pk}", f"/leagues/join/{league.invite_code}"):
        visit(path)
    player.is_staff = player.is_superuser = True
    player.save()
    for path in ("/admin/", "/admin/games/challenge/", "/admin/auth/user/"):
        visit(path)
    assert len(checked) == 18 and not errors, errors
    context.close()


def test_a_link_with_start_opens_the_table_and_starts_nothing(page: Any) -> None:
    """A link from anywhere (here ?start=1, which once started the clock) cannot start a logged-in
    player's ranked attempt: only the press on the page does, and that one is ranked."""
    from games.models import Attempt

    make_challenge(game="klondike", seed=2026)
    sign_up(page, "linda")
    page.goto(f"/play/{days.today()}/klondike?start=1")
    page.wait_for_selector("#game[data-ready=true]")
    page.wait_for_load_state("networkidle")
    assert not Attempt.objects.filter(player__username="linda").exists()
    assert page.locator("#start-button").is_visible()
    assert page.evaluate("window.patience.game.attempt") is None
    start(page)
    assert Attempt.objects.get(player__username="linda").ranked


# --- the table feels like a card game (issue 25) ---------------------------------------------------------

ROUND_TRIP_MS = 150

WATCH_CHANGES = """() => {
    window.__seen = {down: null, changed: null, answered: null};
    // From the release (a click plays on pointerup; the press before it is the test driver's own pace).
    document.addEventListener("pointerup", () => {
        window.__seen = {down: performance.now(), changed: null, answered: null};
    }, true);
    new MutationObserver(() => { window.__seen.changed ??= performance.now(); })
        .observe(document.getElementById("table"), {childList: true, subtree: true});
    // When the server's answer to the move reaches the page (api.js calls the global fetch).
    const fetchAnswer = window.fetch;
    window.fetch = async (...args) => {
        const response = await fetchAnswer(...args);
        if (String(args[0]).includes("/moves")) window.__seen.answered ??= performance.now();
        return response;
    };
}"""

VISIBLE_CLICK = """async () => {
    const R = await import("/static/web/js/rules.js");
    const {rules, state} = window.patience.game;
    for (let i = 0; i < state.tableau.length; i += 1) {
        const column = state.tableau[i];
        if (!column.length) continue;
        const plan = R.planBest(rules, state, {pile: "t", index: i, n: 1});
        if (plan.moves && plan.moves.length === 1 && R.applyVisible(rules, state, plan.moves[0]).state) {
            return {pile: `t${i + 1}`, index: column.length - 1, move: plan.moves[0]};
        }
    }
    return null;
}"""


def slow_network(page: Any, latency_ms: int = ROUND_TRIP_MS) -> None:
    """Every request takes ``latency_ms`` more (Chromium's own network emulation, as DevTools does)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": latency_ms, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def server_log(username: str) -> list[str]:
    attempt = Attempt.objects.filter(player__username=username).order_by("-id").first()
    assert attempt is not None
    return list(attempt.moves)


def test_no_click_is_lost_and_a_move_shows_at_once_at_a_150_ms_round_trip(page: Any) -> None:
    """20 stock clicks 40 ms apart at a 150 ms round trip give 20 draws, in order, on the table and on the
    server; a move the player can see shows in under 50 ms while the server has not answered yet."""
    make_challenge(game="josephine", seed=1)
    sign_up(page, "flo")
    open_table(page, "Josephine")
    start(page)
    slow_network(page)
    box = page.locator('#table [data-pile="s"]').bounding_box()
    stock = page.evaluate("window.patience.game.state.stock")
    for _ in range(20):
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_timeout(40)
    wait_log(page, 20)
    assert page.evaluate("window.patience.game.attempt.moves") == ["s"] * 20
    assert page.evaluate("window.patience.game.state.stock") == stock - 20
    assert server_log("flo") == ["s"] * 20

    # A move the page can see: on the table at once, sent afterwards.
    page.evaluate(WATCH_CHANGES)
    found = page.evaluate(VISIBLE_CLICK)
    assert found, "the position has a move the page can play itself"
    card(page, found["pile"], found["index"]).click()
    page.wait_for_function("window.__seen.changed !== null && window.__seen.answered !== null")
    seen = page.evaluate("window.__seen")
    shown_ms = seen["changed"] - seen["down"]
    print(f"a visible move shows {shown_ms:.1f} ms after the release, at a {ROUND_TRIP_MS} ms round trip")
    # Shown before the server's answer came back: the order, not a time (the 50 ms target is the printed
    # figure, 8-15 ms on an idle machine; a loaded machine paints later, and answers later too).
    assert seen["changed"] < seen["answered"], seen
    assert page.evaluate("window.patience.game.attempt.moves.at(-1)") == found["move"]
    wait_log(page, 21)
    assert server_log("flo")[-1] == found["move"]
    shot(page, "table-150ms-after-20-draws-1280x800.png")

    # Clicks while a draw is on its way are played after it, in order, not dropped.
    found = page.evaluate(VISIBLE_CLICK)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    if found:
        card(page, found["pile"], found["index"]).click()
    wait_log(page, 23 if found else 22)
    assert server_log("flo") == page.evaluate("window.patience.game.attempt.moves")


def test_a_move_the_server_refuses_goes_back_to_the_server_position(page: Any) -> None:
    """Another tab moved first: the page's move shows, the server answers 409, and the table returns to
    the server's position and says why."""
    make_challenge(game="josephine", seed=1)
    sign_up(page, "gus")
    open_table(page, "Josephine")
    start(page)
    assert post_moves(page, ["s"]) == 200  # behind the page's back
    slow_network(page)
    found = page.evaluate(VISIBLE_CLICK)
    card(page, found["pile"], found["index"]).click()
    assert page.evaluate("window.patience.game.attempt.moves") == [found["move"]]  # shown at once
    page.wait_for_function("document.getElementById('message').textContent.includes('reloaded')")
    assert page.evaluate("window.patience.game.attempt.moves") == ["s"]
    assert page.locator('#table [data-pile="w"] .card').count() == 1
    assert page.evaluate("window.patience.game.busy") is False
    assert server_log("gus") == ["s"]


RECORD_FLIGHTS = """() => {
    window.__flights = [];
    const animate = Element.prototype.animate;
    Element.prototype.animate = function (frames, options) {
        const animation = animate.call(this, frames, options);
        window.__flights.push({animation, card: this.dataset.card || null,
            pile: this.closest("[data-pile]")?.dataset.pile, duration: options.duration,
            flip: JSON.stringify(frames).includes("rotateY")});
        return animation;
    };
}"""

FLIGHTS = "window.__flights.map(({card, pile, duration, flip}) => ({card, pile, duration, flip}))"


def test_cards_fly_and_stand_still_under_reduced_motion(page: Any) -> None:
    """A move flies its card (150-250 ms) and is announced in words, a draw flies from the stock to the
    waste; the next input finishes a running flight at once; under reduced motion nothing moves."""
    make_challenge(game="josephine", seed=1)
    sign_up(page, "hal")
    open_table(page, "Josephine")
    start(page)
    page.evaluate(RECORD_FLIGHTS)
    found = page.evaluate(VISIBLE_CLICK)
    moved = page.evaluate(
        "(p) => window.patience.game.state.tableau[Number(p.slice(1)) - 1].at(-1).card", found["pile"]
    )
    card(page, found["pile"], found["index"]).click()
    flights = page.evaluate(FLIGHTS)
    assert [f["card"] for f in flights] == [moved], flights
    # Said in words too: the move in the polite live region, the piles by their cards' names.
    assert "from column" in page.locator("#announce").inner_text()
    label = page.locator('#table [data-pile="t1"]').get_attribute("aria-label")
    card_name = r"(ace|king|queen|jack|\d+) of (clubs|diamonds|hearts|spades)"
    assert re.fullmatch(rf"column 1, top card {card_name}(, on {card_name}((, | and ){card_name})*)?", label), label
    assert all(150 <= f["duration"] <= 250 for f in flights), flights
    page.click('#table [data-pile="s"]')  # the next input: the running flight is finished at once
    assert page.evaluate("window.__flights[0].animation.playState") == "finished"
    wait_log(page, 2)
    drawn = page.evaluate("window.patience.game.state.waste.at(-1)")
    flights = page.evaluate(FLIGHTS)
    assert {"card": drawn, "pile": "w", "duration": 200, "flip": False} in flights, flights

    page.emulate_media(reduced_motion="reduce")
    page.evaluate("window.__flights = []")
    page.click('#table [data-pile="s"]')
    wait_log(page, 3)
    found = page.evaluate(VISIBLE_CLICK)
    if found:
        card(page, found["pile"], found["index"]).click()
        wait_log(page, 4)
    assert page.evaluate(FLIGHTS) == []
    assert page.evaluate("document.getAnimations().length") == 0


def test_the_finish_plays_through_the_stock_and_the_result_fits_the_screen(browser: Any, live_server: Any) -> None:
    """Klondike with every column face up and cards left in the stock: the page draws and sends every card
    home by itself; the win's result and its actions are on the screen at 1366x768 and at 390x844."""
    logs = json.loads(WINNING_LOGS.read_text())
    seed, log = logs["klondike"]["seed"], logs["klondike"]["moves"]
    state = State(deal("klondike", seed))
    cut = None
    for i, move in enumerate(log):
        v: dict[str, Any] = visible(state)
        if all(c["up"] for col in v["tableau"] for c in col) and v["stock"]:
            cut = i
            break
        state.play(Move.parse(move))
    assert cut is not None
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="klondike", seed=seed, day=yesterday, solution=log)
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1366, "height": 768})
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_up(page, "ivy")
    page.goto(f"/play/{yesterday}/klondike")
    page.wait_for_selector("#game[data-ready=true]")
    start(page)
    assert post_moves(page, log[:cut]) == 200
    page.reload()  # every column face up, the stock not empty: the page finishes by itself
    page.wait_for_selector("#result[data-status=valid]")
    moves = page.evaluate("window.patience.game.attempt.moves")
    assert moves[:cut] == log[:cut] and "s" in moves[cut:], moves[cut:]
    assert all(m == "s" or m == "r" or "f" in m for m in moves[cut:])
    assert page.evaluate("window.patience.game.state.won") is True
    assert page.locator("#result-title").inner_text() == "You won!"

    def above_the_fold(p: Any, size: dict[str, int]) -> None:
        for selector in ("#result-title", "#share-text", "#copy-share", "#result-next", "#again"):
            b = p.locator(selector).bounding_box()
            assert b and b["y"] >= 0 and b["y"] + b["height"] <= size["height"], (selector, b, size)
            assert b["x"] >= 0 and b["x"] + b["width"] <= size["width"], (selector, b, size)
        assert p.evaluate("window.scrollY") == 0

    above_the_fold(page, {"width": 1366, "height": 768})
    shot(page, "result-klondike-finish-1366x768.png")
    phone, mobile = phone_result(browser, live_server, context, page.url)
    above_the_fold(mobile, PHONE)
    shot(mobile, "result-klondike-phone-390x844.png")
    assert mobile.locator("#copy-share").inner_text() == "Share"  # the phone's own share sheet
    mobile.click("#copy-share")
    mobile.wait_for_function("window.__shared !== undefined")
    assert mobile.evaluate("window.__shared.text") == mobile.locator("#share-text").input_value()
    mobile.click("#result-dock")  # the finished table itself, the result below it
    assert mobile.locator("#result.docked").count() == 1
    phone.close()
    context.close()
    assert not errors, errors


def test_a_turn_up_waits_for_the_server_then_flips(page: Any) -> None:
    """Klondike seed 4 opens with t7t1, which turns up a face-down card: only the server knows it, so the
    table waits for its answer (a click meanwhile is queued), then the new card flips over."""
    make_challenge(game="klondike", seed=4)
    sign_up(page, "jo")
    open_table(page, "Klondike")
    start(page)
    page.evaluate(RECORD_FLIGHTS)
    slow_network(page)
    state = State(deal("klondike", 4))
    card(page, "t7", len(state.tab[6]) - 1).click()
    assert page.evaluate("window.patience.line.waiting") is True
    assert page.evaluate("window.patience.game.state.tableau[6].length") == len(state.tab[6])  # not moved yet
    page.click('#table [data-pile="s"]')  # queued behind the turn-up, not dropped
    wait_log(page, 2)
    assert page.evaluate("window.patience.game.attempt.moves") == ["t7t1", "s"]
    state.play(Move.parse("t7t1"))
    view: dict[str, Any] = visible(state)
    turned = view["tableau"][6][-1]["card"]
    flights = page.evaluate(FLIGHTS)
    assert any(f["flip"] and f["card"] == turned and f["pile"] == "t7" for f in flights), flights
    assert server_log("jo") == ["t7t1", "s"]


def test_the_draw_3_waste_reads_on_a_phone(browser: Any, live_server: Any) -> None:
    """Klondike draw 3 at 390x844: each of the three waste cards shows its whole rank and suit corner,
    and the fanned waste stays clear of the foundations."""
    make_challenge(game="klondike-3", seed=11)
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        sign_up(page, "quin")
        page.goto(f"/play/{days.today()}/klondike-3")
        page.wait_for_selector("#game[data-ready=true]")
        start(page)
        page.locator('#table [data-pile="s"]').tap()
        wait_log(page, 1)
        page.wait_for_function("document.getAnimations().length === 0")
        cards = page.locator('#table [data-pile="w"] .card').all()
        assert len(cards) == 3
        boxes = [c.bounding_box() for c in cards]
        for lower, upper in zip(cards, boxes[1:], strict=False):
            corner = lower.locator(".corner").bounding_box()
            assert corner["x"] + corner["width"] <= upper["x"] + 1, (corner, upper)  # not covered by the next card
        foundation = page.locator('#table [data-pile="f1"]').bounding_box()
        assert boxes[-1]["x"] + boxes[-1]["width"] <= foundation["x"], (boxes[-1], foundation)
        shot(page, "phone-klondike-3-waste-390x844.png")
    finally:
        context.close()


# --- after the day: everyone's games, the day's statistics, a game's review (issue 28) -----------------


def _play_yesterday(players: list[tuple[Any, list[str]]], seed: int, solution: list[str]) -> tuple[Any, list[Attempt]]:
    """Ranked games of yesterday's Klondike, played on yesterday's clock at a person's pace, validated;
    then the day is over (the real clock) and its reviews are made (tasks run in process)."""
    from django.contrib.auth import get_user_model

    from games import services
    from reviews import services as reviews

    yesterday = days.today() - dt.timedelta(days=1)
    attempts = []
    with time_machine.travel(dt.datetime.combine(yesterday, dt.time(12), tzinfo=dt.UTC), tick=False) as clock:
        challenge = make_challenge(game="klondike", seed=seed, day=yesterday, solution=solution)
        for username, moves in players:
            user = get_user_model().objects.filter(username=username).first() or get_user_model().objects.create_user(
                username=username, password=PASSWORD
            )
            attempt = services.attempt_start(player=user, challenge=challenge)
            for start in range(0, len(moves), 10):
                clock.shift(dt.timedelta(seconds=10))
                services.attempt_append_moves(
                    attempt_id=attempt.pk, player=user, start=start, moves=moves[start : start + 10]
                )
            clock.shift(dt.timedelta(seconds=30))
            services.attempt_submit(attempt_id=attempt.pk, player=user)
            attempts.append(attempt)
    reviews.reviews_sweep()
    return challenge, attempts


def test_yesterday_s_board_shows_how_the_day_went_and_links_every_game(page: Any) -> None:
    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    sign_up(page, "mei")
    challenge, attempts = _play_yesterday(
        [("mei", data["moves"][:6]), ("ola", data["moves"]), ("pia", data["moves"])], data["seed"], data["moves"]
    )
    page.goto(f"/board/{challenge.date}/klondike")
    page.wait_for_selector("#day-stats[data-ready=true]")
    page.wait_for_selector("#board[data-ready=true]")
    stats = page.locator("#day-stats")
    assert "67% won" in stats.inner_text() and "2 of 3 ranked players" in stats.inner_text()
    assert "The solver's difficulty" in stats.inner_text()
    mine = page.locator(".histogram li.mine")
    assert mine.count() == 2 and "you" in mine.first.inner_text()  # mei's bins, in moves and in time
    assert page.locator(".histogram .bar").count() >= 2
    links = page.locator("#board a.game-link")
    assert links.count() == 3
    hrefs = {links.nth(i).get_attribute("href") for i in range(3)}
    assert hrefs == {f"/games/{a.pk}" for a in attempts}
    shot(page, "day-stats.png")


def test_a_game_s_review_page_plays_it_back_and_shows_a_win_from_where_it_was_left(page: Any) -> None:
    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    sign_up(page, "mei")
    _, attempts = _play_yesterday([("mei", data["moves"][:6])], data["seed"], data["moves"])
    page.goto("/players/mei")
    page.wait_for_selector("#profile[data-ready=true]")
    page.locator("a.game-link").click()
    page.wait_for_url(re.compile(rf"/games/{attempts[0].pk}$"))
    page.wait_for_selector("#game-review[data-ready=true]")
    claims = page.locator("#review-claims")
    assert page.locator("#review-claims li").count() >= 1, claims.inner_text()
    assert page.locator("#rv-moves li").count() == 6
    assert page.locator("#rv-pos").inner_text() == "0 / 6"
    page.click("#rv-next")
    assert page.locator("#rv-pos").inner_text() == "1 / 6"
    assert page.locator("#rv-moves li.current").count() == 1
    shot(page, "game-review.png")
    win = page.locator("#rv-win")
    assert win.is_visible() and "Show a win" in win.inner_text() and not page.locator("#rv-game").is_visible()
    win.click()
    page.wait_for_selector("#game-review[data-watching=win]")
    assert not win.is_visible() and page.locator("#rv-game").is_visible()
    total = page.locator("#rv-moves li").count()
    assert total > 6 and page.locator("#rv-moves li.win-move").count() == total - 6
    assert page.locator("#rv-pos").inner_text() == f"6 / {total}"
    page.click("#rv-end")
    assert page.locator("#rv-pos").inner_text() == f"{total} / {total}"
    assert "won" in page.locator("#review-score").inner_text()
    shot(page, "game-review-win.png")
    # try from here: a practice attempt at the position after move 6, on the table
    page.click("#rv-game")
    page.locator("#rv-try").click()
    page.wait_for_url(re.compile(r"/play/"))
    page.wait_for_selector("#game[data-ready=true]")
    page.wait_for_function("window.patience !== undefined && window.patience.game.attempt !== null")
    assert log_length(page) == 6
    shot(page, "try-from-here.png")
    # a stranger's view of today's game, or of anybody's practice, is the same 404 page
    page.goto("/games/999999")
    assert "not found" in page.content()


def test_a_practice_game_is_reviewed_when_its_player_asks_for_it(page: Any) -> None:
    """Practice is reviewed on its player's request only: the page offers the button, the review follows."""
    from django.contrib.auth import get_user_model

    from games import services

    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    sign_up(page, "mei")
    old = days.today() - dt.timedelta(days=5)
    challenge = make_challenge(game="klondike", seed=data["seed"], day=old, solution=data["moves"])
    user = get_user_model().objects.get(username="mei")
    attempt = services.attempt_start(player=user, challenge=challenge)
    assert not attempt.ranked
    services.attempt_append_moves(attempt_id=attempt.pk, player=user, start=0, moves=data["moves"][:6])
    services.attempt_submit(attempt_id=attempt.pk, player=user)
    page.goto(f"/games/{attempt.pk}")
    page.wait_for_selector("#game-review[data-ready=true]")
    ask = page.locator("#rv-ask")
    assert ask.is_visible() and "when you ask" in page.locator("#review-claims").inner_text()
    shot(page, "game-review-ask.png")
    ask.click()
    page.wait_for_selector("#review-claims li")  # the embedded defaults make it in the request
    assert not page.locator("#rv-ask").is_visible()


def test_the_review_page_and_the_day_s_stats_fit_a_phone(browser: Any, live_server: Any) -> None:
    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    challenge, attempts = _play_yesterday(
        [("mei", data["moves"][:6]), ("ola", data["moves"])], data["seed"], data["moves"]
    )
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    page = context.new_page()
    try:
        for path, ready in (
            (f"/games/{attempts[0].pk}", "#game-review[data-ready=true]"),
            (f"/board/{challenge.date}/klondike", "#day-stats[data-ready=true]"),
        ):
            page.goto(path)
            page.wait_for_selector(ready)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE["width"], (path, width)
        shot(page, "day-stats-phone.png")
    finally:
        context.close()


def test_the_review_page_marks_the_losing_move_a_review_names(page: Any) -> None:
    """The page's drawing of a lost game's review: a review row written by the test (the solver's own
    losing moves are proven in solver/tests/test_review.py on hand-made deals, which no daily seed deals)."""
    from reviews.models import GameReview

    data = json.loads(WINNING_LOGS.read_text())["klondike"]
    _, attempts = _play_yesterday([("mei", data["moves"][:6])], data["seed"], data["moves"])
    row = GameReview.objects.get(attempt=attempts[0])
    review = dict(row.data)
    review.update(
        outcome="lost",
        winnable_after=3,
        lost_after=4,
        win=None,
        win_from=3,
        claims=["After move 3 a win was still possible.", "After move 4 no win was possible."],
        losing_move={"ply": 4, "index": 3, "move": review["line"][3], "words": "a draw covered the A♠"},
    )
    row.data = review
    row.save(update_fields=["data"])
    page.goto(f"/games/{attempts[0].pk}")
    page.wait_for_selector("#game-review[data-ready=true]")
    assert "Move 4: a draw covered the A♠" in page.locator(".losing-move").inner_text()
    assert page.locator("#rv-moves li.losing").get_attribute("data-step") == "4"
    assert page.locator("#rv-moves li.last-winnable").get_attribute("data-step") == "3"
    assert not page.locator("#rv-win").is_visible()  # no win stored: none offered
    shot(page, "game-review-lost.png")
