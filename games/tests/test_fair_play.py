"""Fair play against a hostile client: nothing undisclosed leaks, the day's end ends ranked play.

SPEC section 7: the server never discloses a card before a legal prefix of the attempt's own
stored log has exposed it. The service stores a batch's legal prefix before it reports the
illegal entry, so every response is computed from the stored log; these tests check the
consequence an attacker cares about: whatever the undisclosed cards are, a rejected batch gets
the very same answer.
"""

from __future__ import annotations

import datetime as dt
import itertools
import random
from collections import Counter
from typing import Any

import pytest
import time_machine
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pytest_django import Settings

from engine import GAME_IDS, Deal, State, deal, play_log
from games import days, selectors, services
from games.models import Attempt, Submission
from games.services import positions
from games.tests.factories import make_challenge, make_user, token_for
from games.tests.test_apis import Api, _cards_in, _exposed

pytestmark = pytest.mark.django_db


def new_player() -> Api:
    return Api(token_for(make_user()))


# --- what a stored log has disclosed ------------------------------------------------------------


def shuffle_undisclosed(original: Deal, log: list[str], rng: random.Random) -> Deal:
    """The same deal with the cards the (legal) ``log`` never exposed shuffled among their places.

    Exposed: the stock cards drawn at some point (a prefix of the draw order; all of them once a
    redeal happened, which needs an empty stock) and the face-down cards turned up at some point.
    """
    state = State(original)
    stock_size = len(original.stock)
    drawn = 0
    lowest_down = list(original.face_down)
    for text in log:
        state.play_text(text)
        drawn = stock_size if text == "r" else max(drawn, stock_size - len(state.stock))
        lowest_down = [min(a, b) for a, b in zip(lowest_down, state.down, strict=True)]
    places: list[tuple[str, int, int]] = [("s", i, 0) for i in range(drawn, stock_size)]
    places += [("t", c, i) for c, down in enumerate(lowest_down) for i in range(down)]
    tableau = [list(col) for col in original.tableau]
    stock = list(original.stock)
    cards = [stock[i] if kind == "s" else tableau[i][j] for kind, i, j in places]
    rng.shuffle(cards)
    for (kind, i, j), card in zip(places, cards, strict=True):
        if kind == "s":
            stock[i] = card
        else:
            tableau[i][j] = card
    return Deal(
        rules=original.rules,
        seed=original.seed,
        tableau=tuple(tuple(c) for c in tableau),
        face_down=original.face_down,
        stock=tuple(stock),
        foundations=original.foundations,
    )


def candidate_moves(state: State) -> list[str]:
    """Every syntactically valid move worth trying here, a few out of range."""
    cols, founds = len(state.tab) + 1, len(state.found) + 1
    moves = ["s", "r", "u"]
    moves += [f"wt{j}" for j in range(1, cols + 1)] + [f"wf{k}" for k in range(1, founds + 1)]
    for i in range(1, cols + 1):
        moves += [f"t{i}f{k}" for k in range(1, founds + 1)]
        for j in range(1, cols + 1):
            moves += [f"t{i}t{j}"] + [f"t{i}t{j}:{n}" for n in (2, 3, 5)]
    moves += [f"f{k}t{j}" for k in range(1, founds + 1) for j in range(1, cols + 1)]
    return moves


def legal_texts(state: State) -> set[str]:
    legal = {str(m) for m in state.legal_moves()}
    if state.can_undo():
        legal.add("u")
    return legal


def kind_of(text: str) -> str:
    if text in ("s", "r", "u"):
        return text
    if ":" in text:
        return "run"
    return text[0] + ("f" if "f" in text[1:] else "t")


_days = itertools.count(1)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAME_IDS)
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(
    seed=st.integers(0, 2**64 - 1),
    rng_seed=st.integers(0, 2**32 - 1),
    played=st.integers(0, 80),
    draws=st.integers(1, 12),
    after=st.integers(0, 3),
    data=st.data(),
)
def test_a_rejected_batch_answers_the_same_whatever_the_undisclosed_cards(
    game: str,
    seed: int,
    rng_seed: int,
    played: int,
    draws: int,
    after: int,
    data: st.DataObject,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = random.Random(rng_seed)
    original = deal(game, seed)
    state = State(original)
    log: list[str] = []
    for _ in range(played):  # the stored part: a random legal line
        moves = sorted(legal_texts(state))
        if not moves or state.won:
            break
        log.append(rng.choice(moves))
        state.play_text(log[-1])
    batch: list[str] = []
    for _ in range(draws):  # the batch: mostly draws, redeals and moves that turn cards up
        legal = sorted(legal_texts(state))
        if not legal or state.won:
            break
        stock_moves = [m for m in legal if m in ("s", "r")]
        move = rng.choice(stock_moves) if stock_moves and rng.random() < 0.7 else rng.choice(legal)
        batch.append(move)
        state.play_text(move)
    illegal = sorted(set(candidate_moves(state)) - legal_texts(state))
    kinds = sorted({kind_of(m) for m in illegal})
    kind = data.draw(st.sampled_from(kinds), label="illegal kind")
    batch.append(rng.choice([m for m in illegal if kind_of(m) == kind]))
    batch += [rng.choice(candidate_moves(state)) for _ in range(after)]

    challenge = make_challenge(game=game, seed=seed, day=days.today() - dt.timedelta(days=next(_days)))
    deals = {"now": original}
    real_replay = positions.attempt_replay

    def replay_with(*, attempt: Attempt) -> State:
        if attempt.challenge_id != challenge.pk:
            return real_replay(attempt=attempt)
        from engine import play_log

        replayed = State(deals["now"])
        assert play_log(replayed, attempt.moves) is None
        return replayed

    monkeypatch.setattr(positions, "attempt_replay", replay_with)

    def answer() -> tuple[int, Any, list[str]]:
        api = new_player()
        attempt = api.post(f"daily/{challenge.date}/{game}/attempts").json()
        if log:
            assert api.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": log}).status_code == 200
        response = api.post(f"attempts/{attempt['id']}/moves", {"from": len(log), "moves": batch})
        return response.status_code, response.json(), Attempt.objects.get(pk=attempt["id"]).moves

    status, body, stored = answer()
    assert status == 400 and body["error"]["code"] == "illegal_move", body
    stored_state = State(original)
    for text in stored:
        stored_state.play_text(text)
    assert _cards_in(body) <= _exposed(stored_state), "the answer names a card the stored log never exposed"
    for _ in range(2):
        deals["now"] = shuffle_undisclosed(original, stored, rng)
        assert answer() == (status, body, stored)


@pytest.mark.parametrize("game", ["klondike", "klondike-3", "josephine", "forty-and-eight"])
def test_the_reported_attack_reads_nothing(game: str) -> None:
    """The measured attack: k draws then an illegal foundation move, nothing stored before. Every
    answer's cards are ones the stored log exposed, and a batch of draws with an illegal end now
    costs the draws (they are stored, with their score and move count)."""
    make_challenge(game=game, seed=7)
    api = new_player()
    attempt = api.post(f"daily/{days.today()}/{game}/attempts").json()
    path = f"attempts/{attempt['id']}/moves"
    log: list[str] = []
    for k in range(1, 6):
        body = api.post(path, {"from": len(log), "moves": ["s"] * k + ["wf1"]}).json()
        stored = Attempt.objects.get(pk=attempt["id"]).moves
        state = State(deal(game, 7))
        for text in stored:
            state.play_text(text)
        if "error" in body:
            assert _cards_in(body) <= _exposed(state)
            assert body["error"]["details"]["log_length"] == len(stored)
        log = stored
    assert log and all(move in ("s", "wf1", "r") for move in log)


def test_a_submitted_illegal_tail_keeps_the_attempt_readable_and_its_log_legal() -> None:
    make_challenge(seed=2026)
    api = new_player()
    attempt = api.post(f"daily/{days.today()}/klondike/attempts").json()
    from django.test import TestCase

    with TestCase.captureOnCommitCallbacks(execute=True):
        response = api.post(f"attempts/{attempt['id']}/submit", {"from": 0, "moves": ["s", "s", "t7t1", "s"]})
    assert response.status_code == 202
    submission = api.get(f"submissions/{response.json()['id']}").json()
    assert submission["status"] == "invalid" and submission["error"]["index"] == 2
    assert Submission.objects.get().moves == ["s", "s", "t7t1", "s"]
    detail = api.get(f"attempts/{attempt['id']}")
    assert detail.status_code == 200 and detail.json()["moves"] == ["s", "s"]
    assert detail.json()["finished_at"] is not None
    state = State(deal("klondike", 2026))
    for text in ["s", "s"]:
        state.play_text(text)
    assert _cards_in(submission) <= _exposed(state)
    page = Client().get(f"/play/{days.today()}/klondike")
    assert page.status_code == 200


# --- the day's end ---------------------------------------------------------------------------


EVENING = dt.datetime(2026, 11, 30, 23, 50, tzinfo=dt.UTC)
AFTER_MIDNIGHT = dt.datetime(2026, 12, 1, 0, 0, 1, tzinfo=dt.UTC)


def _ranked_before_midnight(game: str = "klondike", seed: int = 2026) -> tuple[Api, dict[str, Any], list[str]]:
    from solver import solve

    solution = solve(game, seed, seconds=10).moves
    assert solution
    make_challenge(game=game, seed=seed, day=EVENING.date(), solution=solution)
    api = new_player()
    attempt = api.post(f"daily/{EVENING.date()}/{game}/attempts").json()
    assert attempt["ranked"] is True
    assert api.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": ["s"]}).status_code == 200
    return api, attempt, solution


def test_after_midnight_a_ranked_attempt_takes_no_move_hint_or_last_batch() -> None:
    with time_machine.travel(EVENING, tick=False):
        api, attempt, _ = _ranked_before_midnight()
    with time_machine.travel(AFTER_MIDNIGHT, tick=False):
        published = Api().get(f"daily/{EVENING.date()}/klondike").json()
        assert published["over"] is True and published["solution"]  # everybody can read the solution now
        solution = published["solution"]
        path = f"attempts/{attempt['id']}"
        for response in (
            api.post(f"{path}/moves", {"from": 1, "moves": ["u", *solution]}),
            api.post(f"{path}/hint"),
            api.post(f"{path}/submit", {"from": 1, "moves": ["u", *solution]}),
        ):
            assert response.status_code == 409, response.content
            error = response.json()["error"]
            assert error["code"] == "day_over" and "Submit it without moves" in error["message"]
            assert error["details"]["ended_at"] == "2026-12-01T00:00:00+00:00"
        assert Attempt.objects.get(pk=attempt["id"]).moves == ["s"]
        from django.test import TestCase

        with TestCase.captureOnCommitCallbacks(execute=True):
            response = api.post(f"{path}/submit")
        assert response.status_code == 202
        result = api.get(f"submissions/{response.json()['id']}").json()["result"]
        assert result["won"] is False and result["moves"] == 1 and result["ranked"] is True
        closed = Attempt.objects.get(pk=attempt["id"])
        assert closed.finished_at == dt.datetime(2026, 12, 1, tzinfo=dt.UTC)  # timed as of the day's end


def test_a_ranked_attempt_can_still_play_until_the_last_second() -> None:
    with time_machine.travel(EVENING, tick=False):
        api, attempt, solution = _ranked_before_midnight()
    with time_machine.travel(dt.datetime(2026, 11, 30, 23, 59, 59, 999000, tzinfo=dt.UTC), tick=False):
        response = api.post(f"attempts/{attempt['id']}/moves", {"from": 1, "moves": ["u", *solution]})
        assert response.status_code == 200 and response.json()["state"]["won"] is True


def test_practice_attempts_are_not_limited_by_the_day() -> None:
    with time_machine.travel(EVENING, tick=False):
        api, attempt, solution = _ranked_before_midnight()
        api.post(f"attempts/{attempt['id']}/submit")
        practice = api.post(f"daily/{EVENING.date()}/klondike/attempts").json()
        assert practice["ranked"] is False
    with time_machine.travel(AFTER_MIDNIGHT, tick=False):
        response = api.post(f"attempts/{practice['id']}/moves", {"from": 0, "moves": solution})
        assert response.status_code == 200 and response.json()["state"]["won"] is True


@pytest.mark.parametrize("zone", ["UTC", "Pacific/Auckland", "America/Los_Angeles"])
def test_the_day_ends_at_midnight_in_the_configured_zone(zone: str, settings: Settings) -> None:
    from zoneinfo import ZoneInfo

    settings.DAILY_TIMEZONE = zone
    tz = ZoneInfo(zone)
    day = dt.date(2026, 11, 30)
    with time_machine.travel(dt.datetime(2026, 11, 30, 23, 59, 0, tzinfo=tz), tick=False):
        make_challenge(day=day, seed=2026)
        api = new_player()
        attempt = api.post(f"daily/{day}/klondike/attempts").json()
        assert api.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": ["s"]}).status_code == 200
    with time_machine.travel(dt.datetime(2026, 12, 1, 0, 0, 0, tzinfo=tz), tick=False):
        response = api.post(f"attempts/{attempt['id']}/moves", {"from": 1, "moves": ["s"]})
        assert response.status_code == 409 and response.json()["error"]["code"] == "day_over"


def test_ranked_attempts_left_open_are_closed_as_they_stand_after_their_day() -> None:
    with time_machine.travel(EVENING, tick=False):
        api, attempt, _ = _ranked_before_midnight()
        other = new_player()
        done = other.post(f"daily/{EVENING.date()}/klondike/attempts").json()
        other.post(f"attempts/{done['id']}/submit")
        assert services.attempts_close_expired() == 0  # nothing is over yet
    with time_machine.travel(AFTER_MIDNIGHT, tick=False):
        make_challenge(day=AFTER_MIDNIGHT.date(), seed=5)
        today = new_player().post(f"daily/{AFTER_MIDNIGHT.date()}/klondike/attempts").json()
        from django.test import TestCase

        with TestCase.captureOnCommitCallbacks(execute=True):
            assert services.attempts_close_expired() == 1
        assert services.attempts_close_expired() == 0
        closed = Attempt.objects.get(pk=attempt["id"])
        assert closed.finished_at == dt.datetime(2026, 12, 1, tzinfo=dt.UTC)
        submission = Submission.objects.get(attempt=closed)
        assert submission.status == "valid" and submission.moves == ["s"] and submission.result.ranked
        assert Attempt.objects.get(pk=today["id"]).finished_at is None
        # The player's own submit afterwards returns the same submission.
        response = api.post(f"attempts/{attempt['id']}/submit")
        assert response.status_code == 202 and response.json()["id"] == submission.pk


def test_the_illegal_candidates_cover_every_kind_of_move() -> None:
    """The property above draws its illegal entry from these: each kind of move must be among them."""
    assert Counter(kind_of(m) for m in candidate_moves(State(deal("klondike", 1)))).keys() >= {
        "s",
        "r",
        "u",
        "wt",
        "wf",
        "tf",
        "tt",
        "run",
        "ft",
    }


# --- watching a log: frames disclose what each prefix disclosed, the solution waits for the day's end ---


@pytest.mark.parametrize(("game", "seed"), [("klondike", 11), ("klondike-3", 12), ("forty-and-eight", 13)])
def test_replay_frames_show_only_what_each_prefix_of_the_stored_log_exposed(game: str, seed: int) -> None:
    make_challenge(game=game, seed=seed)
    api = new_player()
    attempt = api.post(f"daily/{days.today()}/{game}/attempts").json()
    rng = random.Random(seed)
    state = State(deal(game, seed))
    log: list[str] = []
    for _ in range(60):
        moves = sorted(legal_texts(state))
        if not moves:
            break
        log.append(rng.choice(moves))
        state.play_text(log[-1])
    assert api.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": log}).status_code == 200
    body = api.get(f"attempts/{attempt['id']}/replay").json()
    assert body["moves"] == log and len(body["frames"]) == len(log) + 1
    replayed = State(deal(game, seed))
    for i, frame in enumerate(body["frames"]):
        assert _cards_in(frame) <= _exposed(replayed), f"frame {i} shows a card its prefix never exposed"
        assert frame["s"] == len(replayed.stock) and frame["moves"] == replayed.moves
        if i < len(log):
            replayed.play_text(log[i])
    assert new_player().get(f"attempts/{attempt['id']}/replay").status_code == 404  # someone else's


def random_log(game: str, seed: int, length: int) -> list[str]:
    rng = random.Random(seed)
    state = State(deal(game, seed))
    log: list[str] = []
    while len(log) < length and (moves := sorted(legal_texts(state))):
        log.append(rng.choice(moves))
        state.play_text(log[-1])
    return log


@pytest.mark.parametrize(("game", "seed"), [("klondike", 21), ("klondike-3", 22), ("forty-thieves", 23)])
def test_replay_pages_show_only_what_each_prefix_exposed_whatever_the_order_they_are_asked_in(
    game: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pages asked last first (each replayed from the deal: nothing cached) and first to last (each from
    the position the previous one left) give the same frames, each disclosing only its prefix's cards."""
    make_challenge(game=game, seed=seed)
    api = new_player()
    attempt = api.post(f"daily/{days.today()}/{game}/attempts").json()
    log = random_log(game, seed, 250)
    assert len(log) == 250
    assert api.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": log}).status_code == 200

    played: list[int] = []  # moves played one by one (a page's own frames)
    replayed: list[int] = []  # moves replayed from the deal to reach a page's start
    real_play_text, real_play_log = State.play_text, play_log  # what games.selectors calls, until replaced

    def counting(state: State, text: str) -> Any:
        played.append(1)
        return real_play_text(state, text)

    def counting_log(state: State, moves: list[str]) -> Any:
        replayed.append(len(moves))
        return real_play_log(state, moves)

    monkeypatch.setattr(State, "play_text", counting)
    monkeypatch.setattr(selectors, "play_log", counting_log)
    backwards = [api.get(f"attempts/{attempt['id']}/replay?page={p}").json() for p in (2, 1, 0)][::-1]
    assert (len(played), sum(replayed)) == (50 + 100 + 100, 200 + 100)  # cold: each from the deal
    played.clear()
    replayed.clear()
    again = [api.get(f"attempts/{attempt['id']}/replay?page={p}").json() for p in (0, 1, 2)]
    assert again == backwards and not played and not sum(replayed)  # cached pages

    from django.core.cache import cache

    cache.clear()
    forwards = [api.get(f"attempts/{attempt['id']}/replay").json()]
    forwards += [api.get(f"attempts/{attempt['id']}/replay?page={p}").json() for p in (1, 2)]
    # each page from the position the previous one left: its own moves only
    assert (len(played), sum(replayed)) == (100 + 100 + 50, 0)
    assert forwards == backwards

    assert [p["first"] for p in forwards] == [0, 100, 200] and {p["pages"] for p in forwards} == {3}
    assert [move for p in forwards for move in p["moves"]] == log
    frames = forwards[0]["frames"] + forwards[1]["frames"][1:] + forwards[2]["frames"][1:]
    assert [len(p["frames"]) for p in forwards] == [101, 101, 51] and len(frames) == len(log) + 1
    monkeypatch.undo()
    position = State(deal(game, seed))
    for i, frame in enumerate(frames):
        assert _cards_in(frame) <= _exposed(position), f"frame {i} shows a card its prefix never exposed"
        assert frame["s"] == len(position.stock) and frame["moves"] == position.moves
        if i < len(log):
            position.play_text(log[i])


def test_a_replay_page_is_bounded_and_asked_for_properly() -> None:
    make_challenge(game="klondike", seed=31)
    api = new_player()
    attempt = api.post(f"daily/{days.today()}/klondike/attempts").json()
    path = f"attempts/{attempt['id']}/replay"
    empty = api.get(path).json()  # no move yet: one page, the deal
    assert (empty["pages"], empty["moves"], len(empty["frames"])) == (1, [], 1)
    for bad in ("-1", "x", "1.5", "9999999999999999999999", "51", "%00", "0x1"):
        answer = api.get(f"{path}?page={bad}")
        assert answer.status_code == 400 and "page" in answer.json()["error"]["message"], (bad, answer.content)
    missing = api.get(f"{path}?page=1")
    assert missing.status_code == 404 and "no page 1" in missing.json()["error"]["message"]
    assert new_player().get(path).status_code == 404  # someone else's
    assert Api().get(path).status_code == 404  # anybody's only once finished, ranked and its day over
    assert api.get("attempts/999999999/replay").status_code == 404


@pytest.mark.throttled
def test_replay_pages_are_throttled_per_player() -> None:
    from django.core.cache import cache

    make_challenge(game="klondike", seed=32)
    user, other = make_user(), make_user()
    cache.delete_many([f"throttle_{scope}_{u.pk}" for scope in ("replay", "user") for u in (user, other)])
    api, other_api = Api(token_for(user)), Api(token_for(other))
    attempt = api.post(f"daily/{days.today()}/klondike/attempts").json()
    statuses = [api.get(f"attempts/{attempt['id']}/replay").status_code for _ in range(61)]
    assert statuses == [200] * 60 + [429]
    other_attempt = other_api.post(f"daily/{days.today()}/klondike/attempts").json()
    assert other_api.get(f"attempts/{other_attempt['id']}/replay").status_code == 200  # per player
    cache.delete_many([f"throttle_{scope}_{u.pk}" for scope in ("replay", "user") for u in (user, other)])


def test_a_past_day_s_solution_is_replayed_once_then_served_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    log = random_log("klondike", 33, 40)
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(game="klondike", seed=33, day=yesterday, solution=log)
    made: list[int] = []
    real = selectors.log_frames

    def counting(**kwargs: Any) -> Any:
        made.append(1)
        return real(**kwargs)

    monkeypatch.setattr(selectors, "log_frames", counting)
    first = Api().get(f"daily/{yesterday}/klondike/solution").json()
    again = new_player().get(f"daily/{yesterday}/klondike/solution").json()
    assert first == again and len(made) == 1
    assert first == {"moves": log, "frames": real(game="klondike", seed=33, moves=log)}


def test_the_solution_with_its_frames_is_published_only_once_the_day_is_over() -> None:
    from solver import solve

    solution = solve("klondike", 2026, seconds=10).moves
    assert solution is not None
    with time_machine.travel(EVENING, tick=False):
        make_challenge(day=EVENING.date(), seed=2026, solution=solution)
        response = Api().get(f"daily/{EVENING.date()}/klondike/solution")
        assert response.status_code == 404 and "once that day is over" in response.json()["error"]["message"]
    with time_machine.travel(AFTER_MIDNIGHT, tick=False):
        body = Api().get(f"daily/{EVENING.date()}/klondike/solution").json()
        assert body["moves"] == solution and len(body["frames"]) == len(solution) + 1
        assert body["frames"][-1]["won"] is True and body["frames"][0]["s"] == 24
