"""A hint that looks ahead, on the real table (issue 25 item 4): in a position where no single move gains
anything but a short line of visible moves does, the Hint button shows the first move of that line, says
so in words, and marks it on the table.

The position is found, not hand-drawn: along random play-outs of a fixed deal, the first position where
the engine's hint is "the first of N moves" (N > 1); the test then brings the page's attempt there through
the API and presses Hint."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from engine import State, deal, hint
from games.tests.factories import make_challenge
from web.tests.test_browser import open_table, post_moves, shot, sign_up, start

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def plan_position(game: str, seed: int) -> tuple[list[str], str, str]:
    """A log from the deal to a position whose hint is a multi-move plan, the hinted move and its reason."""
    for attempt in range(200):
        rng = random.Random(attempt)
        state = State(deal(game, seed))
        log: list[str] = []
        for _ in range(120):
            suggestion = hint(state)
            if suggestion is None:
                break
            if "the first of" in suggestion.reason:
                return log, str(suggestion.move), suggestion.reason
            move = rng.choice(list(state.legal_moves()))
            state.play(move)
            log.append(str(move))
    raise AssertionError(f"no position of {game} {seed} with a multi-move hint")


def test_a_hint_shows_the_first_move_of_a_plan_several_moves_deep(page: Any) -> None:
    game, seed = "forty-thieves", 11
    make_challenge(game=game, seed=seed)
    log, move, reason = plan_position(game, seed)
    sign_up(page, "hal")
    open_table(page, "Forty Thieves")
    start(page)
    if log:
        assert post_moves(page, log) == 200
        page.reload()
        page.wait_for_selector("#game[data-ready=true]")
    assert page.evaluate("window.patience.game.attempt.moves.length") == len(log)

    page.click("#hint")
    page.click("#hint-confirm")  # the first hint of a ranked game asks first (issue 53)
    page.wait_for_function("document.getElementById('message').textContent.startsWith('Hint')")
    said = page.locator("#message").inner_text()
    plan = re.search(r"the first of (\d+) moves", said)
    assert plan and int(plan.group(1)) > 1, said  # the plan, said in words
    assert plan.group(0) in reason, (reason, said)  # the engine's plan: the same number of moves
    assert not re.search(r"\b[wtf]\d*[tf]\d+\b", said), said  # words, not notation
    # The hinted move is marked on the table: the pile it leaves (the engine's move starts with its name)
    # and the pile it goes to, with a glow a person can see.
    source = page.locator("#table .hint-from")
    target = page.locator("#table .hint-to")
    assert source.count() == 1 and target.count() == 1
    assert move.startswith(source.get_attribute("data-pile") or "?"), move
    assert (target.get_attribute("data-pile") or "?")[0] in move[1:], move
    for box in (source.bounding_box(), target.bounding_box()):
        assert box and box["width"] > 40 and box["height"] > 40
    assert "rgb(242, 183, 5)" in target.evaluate("(n) => getComputedStyle(n).boxShadow")
    shot(page, "hint-plan-1280x800.png")
