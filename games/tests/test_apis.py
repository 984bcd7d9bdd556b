"""The games API over HTTP (SPEC section 8): daily challenges, attempts, moves and submissions."""

from __future__ import annotations

import datetime as dt
import json
import random
from collections import Counter
from typing import Any

import pytest
import time_machine
from django.test import Client
from pytest_django import DjangoCaptureOnCommitCallbacks

from engine import State, deal, full
from games import days
from games.models import Attempt, Submission
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = pytest.mark.django_db


class Api:
    """A JSON client for one player."""

    def __init__(self, token: str | None = None) -> None:
        self.client = Client(HTTP_HOST="localhost")
        self.headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}

    def get(self, path: str) -> Any:
        return self.client.get(f"/api/v1/{path}", **self.headers)

    def post(self, path: str, body: Any = None, raw: str | None = None) -> Any:
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post(f"/api/v1/{path}", data, content_type="application/json", **self.headers)


def submit_valid(api: Api, attempt_id: int, on_commit: Any) -> dict[str, Any]:
    """Submit the attempt (its validation runs in process with the commit) and return the valid result."""
    with on_commit(execute=True):
        response = api.post(f"attempts/{attempt_id}/submit")
    assert response.status_code == 202, response.content
    body = api.get(f"submissions/{response.json()['id']}").json()
    assert body["status"] == "valid", body
    return dict(body["result"])


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> DjangoCaptureOnCommitCallbacks:
    """Run what a view leaves for after the commit (the validation task, in process here)."""
    return django_capture_on_commit_callbacks


@pytest.fixture
def player() -> Api:
    return Api(token_for(make_user()))


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"} and body["error"]["message"], body
    if code:
        assert body["error"]["code"] == code, body
    error: dict[str, Any] = body["error"]
    return error


def start(api: Api, game: str = "klondike", day: dt.date | None = None) -> dict[str, Any]:
    response = api.post(f"daily/{day or days.today()}/{game}/attempts")
    assert response.status_code == 201, response.content
    attempt: dict[str, Any] = response.json()
    return attempt


# --- games and daily -----------------------------------------------------------------------------


def test_games_lists_the_eight_rules() -> None:
    body = Api().get("games").json()
    assert [g["id"] for g in body][:2] == ["josephine", "forty-thieves"]
    assert len(body) == 8
    klondike = next(g for g in body if g["id"] == "klondike")
    assert klondike["empty_column_takes"] == "king" and klondike["passes"] is None


def test_daily_shows_todays_layout_without_hidden_cards() -> None:
    make_challenge(game="klondike", seed=2026)
    make_challenge(game="josephine", seed=1)
    make_challenge(game="maria", seed=5, status="verifying")  # not ready: not shown
    body = Api().get("daily").json()
    assert [c["game"] for c in body["challenges"]] == ["josephine", "klondike"]
    klondike = body["challenges"][1]
    assert klondike["seed"] is None and klondike["solution"] is None and klondike["over"] is False
    layout = klondike["layout"]
    assert [col[-1]["card"] for col in layout["tableau"]] == ["8H", "8D", "KC", "TS", "KD", "7D", "TH"]
    assert layout["stock"] == 24 and layout["waste"] == []
    assert all(c["card"] == "??" for col in layout["tableau"] for c in col[:-1])


def test_past_day_discloses_seed_and_solution_future_day_nothing() -> None:
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(day=yesterday, game="klondike", seed=2026, solution=["s"])
    make_challenge(day=days.today() + dt.timedelta(days=1), game="klondike", seed=7)
    body = Api().get(f"daily/{yesterday}/klondike").json()
    assert body["seed"] == "2026" and body["solution"] == ["s"] and body["over"] is True
    error = assert_error(Api().get(f"daily/{days.today() + dt.timedelta(days=1)}/klondike"), 404, "not_found")
    assert "not published" in error["message"]


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("daily/2026-13-01/klondike", 400),
        ("daily/yesterday/klondike", 400),
        ("daily/2020-01-01/solitaire", 400),
        ("daily/2020-01-01/klondike", 404),
    ],
)
def test_challenge_lookup_errors(path: str, status: int) -> None:
    assert_error(Api().get(path), status)


# --- attempts ------------------------------------------------------------------------------------


def test_first_attempt_of_the_day_is_ranked_later_ones_practice(player: Api) -> None:
    make_challenge()
    ranked = start(player)
    assert ranked["ranked"] is True
    error = assert_error(player.post(f"daily/{days.today()}/klondike/attempts"), 409, "conflict")
    assert error["details"]["attempt"] == ranked["id"]  # no practice on today's deal while ranked is open
    player.post(f"attempts/{ranked['id']}/submit")
    practice = start(player)
    assert practice["ranked"] is False
    error = assert_error(player.post(f"daily/{days.today()}/klondike/attempts"), 409, "conflict")
    assert error["details"]["attempt"] == practice["id"]  # one open attempt per player and challenge
    player.post(f"attempts/{practice['id']}/submit")
    assert start(player)["ranked"] is False
    assert Attempt.objects.filter(ranked=True).count() == 1


def test_archived_day_is_practice(player: Api) -> None:
    yesterday = days.today() - dt.timedelta(days=1)
    make_challenge(day=yesterday)
    assert start(player, day=yesterday)["ranked"] is False


def test_starting_needs_authentication() -> None:
    make_challenge()
    assert_error(Api().post(f"daily/{days.today()}/klondike/attempts"), 401)
    assert_error(Api("not-a-token").post(f"daily/{days.today()}/klondike/attempts"), 401)


def test_moves_append_resend_and_conflict(player: Api) -> None:
    make_challenge()
    attempt = start(player)
    path = f"attempts/{attempt['id']}/moves"
    body = player.post(path, {"from": 0, "moves": ["s", "s"]}).json()
    assert body["log_length"] == 2 and body["applied"] == 2 and "moves" not in body  # not the whole log again
    assert body["state"]["waste"] == ["5D", "JS"] and body["state"]["stock"] == 22
    again = player.post(path, {"from": 0, "moves": ["s", "s"]}).json()
    assert again["applied"] == 0 and again["log_length"] == 2
    overlap = player.post(path, {"from": 1, "moves": ["s", "s"]}).json()
    assert overlap["applied"] == 1 and overlap["log_length"] == 3
    assert player.get(f"attempts/{attempt['id']}").json()["moves"] == ["s", "s", "s"]
    error = assert_error(player.post(path, {"from": 5, "moves": ["s"]}), 409, "conflict")
    assert error["details"]["expected_from"] == 3
    assert_error(player.post(path, {"from": 0, "moves": ["s", "u"]}), 409, "conflict")
    assert Attempt.objects.get(pk=attempt["id"]).moves == ["s", "s", "s"]


def test_illegal_move_is_400_with_index_and_the_legal_moves_before_it_are_stored(player: Api) -> None:
    make_challenge()
    attempt = start(player)
    path = f"attempts/{attempt['id']}/moves"
    player.post(path, {"from": 0, "moves": ["s"]})
    error = assert_error(player.post(path, {"from": 1, "moves": ["s", "s", "wf9", "s"]}), 400, "illegal_move")
    details = error["details"]
    assert details["index"] == 3 and details["move"] == "wf9" and "no foundation 9" in details["reason"]
    assert details["applied"] == 2 and details["log_length"] == 3
    assert details["state"]["stock"] == 21 and details["state"]["waste"] == ["5D", "JS", "QS"]
    assert "the 2 moves before it were stored" in error["message"]
    assert Attempt.objects.get(pk=attempt["id"]).moves == ["s", "s", "s"]
    assert player.get(f"attempts/{attempt['id']}").json()["state"] == details["state"]
    error = assert_error(player.post(path, {"from": 3, "moves": ["wf9"]}), 400, "illegal_move")
    assert error["details"]["applied"] == 0 and "nothing of this batch was stored" in error["message"]


@pytest.mark.parametrize(
    "body",
    [
        {"from": "0", "moves": ["s"]},
        {"from": 0.0, "moves": ["s"]},
        {"from": True, "moves": ["s"]},
        {"from": -1, "moves": ["s"]},
        {"from": 0, "moves": "s"},
        {"from": 0, "moves": [1]},
        {"from": 0, "moves": [None]},
        {"from": 0, "moves": {"0": "s"}},
        {"moves": ["s"]},
        {"from": 0},
        ["s"],
        "s",
        None,
        {"from": 0, "moves": ["s"] * 5001},
    ],
)
def test_bad_move_batches_are_400(player: Api, body: Any) -> None:
    make_challenge()
    attempt = start(player)
    assert_error(player.post(f"attempts/{attempt['id']}/moves", body), 400)
    assert Attempt.objects.get(pk=attempt["id"]).moves == []


def test_malformed_json_and_huge_bodies(player: Api) -> None:
    make_challenge()
    attempt = start(player)
    path = f"attempts/{attempt['id']}/moves"
    assert_error(player.post(path, raw='{"from": 0, "moves": ['), 400, "parse_error")
    assert_error(player.post(path, raw=json.dumps({"from": 0, "moves": ["s" * 64] * 5000})), 413, "too_large")
    assert Attempt.objects.get(pk=attempt["id"]).moves == []


def test_another_players_attempt_is_404(player: Api) -> None:
    make_challenge()
    attempt = start(player)
    other = Api(token_for(make_user()))
    assert_error(other.get(f"attempts/{attempt['id']}"), 404)
    assert_error(other.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": ["s"]}), 404)
    assert_error(other.post(f"attempts/{attempt['id']}/submit"), 404)
    assert Attempt.objects.get(pk=attempt["id"]).moves == []


def _cards_in(value: Any) -> Counter[str]:
    found: Counter[str] = Counter()
    if isinstance(value, dict):
        for item in value.values():
            found += _cards_in(item)
    elif isinstance(value, list):
        for item in value:
            found += _cards_in(item)
    elif isinstance(value, str) and len(value) == 2 and value[0] in "A23456789TJQK" and value[1] in "CDHS":
        found[value] += 1
    return found


def _exposed(state: State) -> Counter[str]:
    """Cards the player may know now: face-up tableau cards, the waste, the foundations (from the full view)."""
    view: dict[str, Any] = full(state)  # the JSON view
    shown: Counter[str] = Counter()
    for col in view["tableau"]:
        shown.update(c["card"] for c in col if c["up"])
    shown.update(view["waste"])
    for pile in view["foundations"]:
        shown.update(pile)
    return shown


@pytest.mark.parametrize(("game", "seed"), [("klondike", 11), ("klondike-3", 12), ("josephine", 13)])
def test_no_response_discloses_an_undisclosed_card(player: Api, game: str, seed: int) -> None:
    make_challenge(game=game, seed=seed)
    attempt = start(player, game=game)
    state = State(deal(game, seed))
    seen = _exposed(state)
    assert _cards_in(attempt["state"]) <= seen
    rng = random.Random(seed)
    log: list[str] = []
    for _ in range(40):
        batch = []
        for _ in range(rng.randint(1, 4)):
            moves = [str(m) for m in state.legal_moves()] + (["u"] if state.can_undo() else [])
            if not moves:
                break
            move = rng.choice(moves)
            state.play_text(move)
            batch.append(move)
            seen |= _exposed(state)
        body = player.post(f"attempts/{attempt['id']}/moves", {"from": len(log), "moves": batch}).json()
        log += batch
        assert _cards_in(body) <= seen, "the response shows a card the moves never exposed"
    assert _cards_in(player.get(f"attempts/{attempt['id']}").json()) <= seen
    assert _cards_in(Api().get("daily").json()) <= _exposed(State(deal(game, seed)))


# --- submissions ---------------------------------------------------------------------------------


def test_submit_validates_and_a_second_submit_counts_once(
    player: Api, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    make_challenge()
    attempt = start(player)
    player.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": ["s", "s", "u"]})
    with on_commit(execute=True):
        first = player.post(f"attempts/{attempt['id']}/submit")
    assert first.status_code == 202
    with on_commit(execute=True) as callbacks:
        second = player.post(f"attempts/{attempt['id']}/submit")
    assert callbacks == []
    assert second.status_code == 202 and second.json()["id"] == first.json()["id"]
    assert Submission.objects.count() == 1
    body = player.get(f"submissions/{first.json()['id']}").json()
    assert body["status"] == "valid"
    assert body["result"]["won"] is False and body["result"]["moves"] == 3 and body["result"]["score"] == 0
    # The result says when the review and the solution are published: at the day's end, not before.
    after = body["after_the_day"]
    # the day's end (midnight in DAILY_TIMEZONE), written in UTC as every time the API returns
    ends = days.next_day_starts_at(days.today()).astimezone(dt.UTC)
    assert after["ready_at"] == ends.isoformat().replace("+00:00", "Z")
    assert 0 < after["ready_in_seconds"] <= 86400
    # the two answers are a moment apart on the real clock: the whole seconds left may differ by one
    earlier = first.json()["after_the_day"]
    assert 0 <= earlier.pop("ready_in_seconds") - after["ready_in_seconds"] <= 2
    assert {k: v for k, v in after.items() if k != "ready_in_seconds"} == earlier
    assert after["review"] == f"/api/v1/attempts/{attempt['id']}/review"
    assert_error(player.post(f"attempts/{attempt['id']}/moves", {"from": 3, "moves": ["s"]}), 409)


def test_an_illegal_final_batch_is_kept_invalid_with_its_error(
    player: Api, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    make_challenge()
    attempt = start(player)
    player.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": ["s"]})
    with on_commit(execute=True):
        response = player.post(f"attempts/{attempt['id']}/submit", {"from": 1, "moves": ["s", "t7t1"]})
    assert response.status_code == 202
    body = player.get(f"submissions/{response.json()['id']}").json()
    assert body["status"] == "invalid" and body["result"] is None
    assert body["error"]["index"] == 2 and body["error"]["move"] == "t7t1" and body["error"]["reason"]
    assert Submission.objects.get().moves == ["s", "s", "t7t1"]


def test_submission_of_another_player_is_404(player: Api) -> None:
    make_challenge()
    attempt = start(player)
    submission = player.post(f"attempts/{attempt['id']}/submit").json()
    assert_error(Api(token_for(make_user())).get(f"submissions/{submission['id']}"), 404)
    assert_error(Api().get(f"submissions/{submission['id']}"), 401)


# --- accounts ------------------------------------------------------------------------------------


def test_register_and_token() -> None:
    api = Api()
    response = api.post("auth/register", {"username": "ada", "password": "analytical-engine-1843"})
    assert response.status_code == 201 and response.json()["token"]
    token = api.post("auth/token", {"username": "ada", "password": "analytical-engine-1843"}).json()["token"]
    assert token != response.json()["token"]  # each login its own token (only digests are stored)
    for key in (token, response.json()["token"]):
        assert Api(key).get("leagues").status_code == 200
    assert_error(api.post("auth/register", {"username": "ADA", "password": "analytical-engine-1843"}), 409)
    assert_error(api.post("auth/token", {"username": "ada", "password": "wrong"}), 401)
    assert_error(api.post("auth/register", {"username": "bob", "password": "123"}), 400)
    assert_error(api.post("auth/register", {"username": "b o b", "password": "analytical-engine-1843"}), 400)
    assert_error(api.post("auth/register", {"username": 5, "password": "analytical-engine-1843"}), 400)
    assert_error(api.post("auth/register", ["ada"]), 400)


@pytest.mark.throttled
def test_logins_are_throttled() -> None:
    from django.core.cache import cache

    from core.limits import limits_forget

    keys = ["throttle_auth_127.0.0.1", "throttle_anon_127.0.0.1"]  # only these: the cache may be shared Redis
    cache.delete_many(keys)
    limits_forget(usernames=("x",), addresses=("127.0.0.1",))
    api = Api()
    statuses = [api.post("auth/token", {"username": "x", "password": "y"}).status_code for _ in range(40)]
    assert statuses[0] == 401 and statuses[-1] == 429
    cache.delete_many(keys)
    limits_forget(usernames=("x",), addresses=("127.0.0.1",))


# --- hints and sharing ---------------------------------------------------------------------------


def test_hint_suggests_a_legal_move_and_marks_the_attempt_assisted(
    player: Api, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    make_challenge(game="josephine", seed=1)
    attempt = start(player, game="josephine")
    response = player.post(f"attempts/{attempt['id']}/hint")
    assert response.status_code == 200
    body = response.json()
    assert body["assisted"] is True and body["reason"]
    assert body["move"] in {str(m) for m in State(deal("josephine", 1)).legal_moves()}
    moved = player.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": [body["move"]]})
    assert moved.status_code == 200 and moved.json()["assisted"] is True
    with on_commit(execute=True):
        submission = player.post(f"attempts/{attempt['id']}/submit").json()
    result = player.get(f"submissions/{submission['id']}").json()["result"]
    assert result["assisted"] is True and result["board"] == "all"
    assert "assisted, not on the day's board" in result["share"] and "rank " not in result["share"]
    assert_error(player.post(f"attempts/{attempt['id']}/hint"), 409)
    assert_error(Api(token_for(make_user())).post(f"attempts/{attempt['id']}/hint"), 404)


def stuck_log(game: str, seed: int) -> list[str]:
    """A log from the deal to a position with no legal move (not won): seeded random play-outs that
    favour the foundations and the stock, the first that sticks."""
    for attempt in range(100):
        rng = random.Random(attempt)
        state = State(deal(game, seed))
        log: list[str] = []
        while len(log) < 900 and (moves := list(state.legal_moves())):
            home = [m for m in moves if "f" in str(m)[1:]]
            stock = [m for m in moves if str(m) in ("s", "r")]
            if home and rng.random() < 0.9:
                move = rng.choice(home)
            elif stock and rng.random() < 0.5:
                move = stock[0]
            else:
                move = rng.choice(moves)
            state.play(move)
            log.append(str(move))
        if not moves and not state.won:
            return log
    raise AssertionError(f"no stuck position found for {game} {seed}")


NO_MOVE = "no legal move is left: undo, or give up"


def test_any_hint_marks_a_ranked_attempt_even_one_that_finds_no_move(player: Api, on_commit: Any) -> None:
    """SPEC section 7: asking for a hint is the assist, whatever it finds. A ranked game stuck at its end
    that asks anyway is assisted for good, and its result is off the day's board of unassisted results."""
    make_challenge(game="josephine", seed=1)
    log = stuck_log("josephine", 1)
    # Played at a person's pace by the server's clock (games.pace), or the result is held and on no board.
    with time_machine.travel(days.next_day_starts_at(days.today()) - dt.timedelta(hours=12), tick=True) as clock:
        attempt = start(player, game="josephine")
        assert attempt["ranked"] is True
        for at in range(0, len(log), 10):
            clock.shift(dt.timedelta(seconds=10))
            moved = player.post(f"attempts/{attempt['id']}/moves", {"from": at, "moves": log[at : at + 10]})
            assert moved.status_code == 200, moved.content
        assert Attempt.objects.get(pk=attempt["id"]).assisted is False
        for _ in range(2):  # asking again changes nothing more
            body = player.post(f"attempts/{attempt['id']}/hint").json()
            assert body == {"move": None, "reason": NO_MOVE, "assisted": True}
        assert Attempt.objects.get(pk=attempt["id"]).assisted is True
        with on_commit(execute=True):
            submission = player.post(f"attempts/{attempt['id']}/submit").json()
    body = player.get(f"submissions/{submission['id']}").json()
    assert body["status"] == "valid", body
    assert (body["result"]["assisted"], body["result"]["board"]) == (True, "all")
    board = f"leaderboards/{days.today()}/josephine"
    assert Api().get(board).json()["entries"] == []
    assert [e["assisted"] for e in Api().get(f"{board}?board=all").json()["entries"]] == [True]


def test_a_practice_hint_marks_only_when_it_names_a_move(player: Api) -> None:
    """Practice ranks nowhere: a hint that finds no move leaves it as it was, one that names a move marks it."""
    make_challenge(game="josephine", seed=1, day=days.today() - dt.timedelta(days=1))
    attempt = start(player, game="josephine", day=days.today() - dt.timedelta(days=1))
    assert attempt["ranked"] is False
    log = stuck_log("josephine", 1)
    assert player.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": log}).status_code == 200
    body = player.post(f"attempts/{attempt['id']}/hint").json()
    assert body == {"move": None, "reason": NO_MOVE, "assisted": False}
    assert Attempt.objects.get(pk=attempt["id"]).assisted is False
    # A plain undo of the last move (it turned nothing up), and the hint now names a move: it marks.
    undone = player.post(f"attempts/{attempt['id']}/moves", {"from": len(log), "moves": ["u"]}).json()
    assert undone["assisted"] is False
    body = player.post(f"attempts/{attempt['id']}/hint").json()
    assert body["move"] and body["assisted"] is True
    assert Attempt.objects.get(pk=attempt["id"]).assisted is True


def test_share_text_has_the_numbers_and_no_card(player: Api, on_commit: DjangoCaptureOnCommitCallbacks) -> None:
    make_challenge(game="forty-and-eight", seed=3)
    attempt = start(player, game="forty-and-eight")
    player.post(f"attempts/{attempt['id']}/moves", {"from": 0, "moves": ["s"] * 64 + ["r", "s"]})
    with on_commit(execute=True):
        submission = player.post(f"attempts/{attempt['id']}/submit").json()
    result = player.get(f"submissions/{submission['id']}").json()["result"]
    share = result["share"]
    assert "Forty and Eight" in share and "66 moves" in share and "1 redeal" in share and "not won" in share
    assert "rank" not in share  # a loss never reads "rank 1 of 1" (issue 53)
    assert not _cards_in(share.split())
