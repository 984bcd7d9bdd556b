"""GET /me/export and POST /me/delete, and what a banned player is told, tried as an attacker would:
no login, someone else's data, no or a wrong password, no confirmation, bad bodies, guests, a flood of
guesses, and a delete racing a submission."""

from __future__ import annotations

import datetime as dt
import functools
import json
import threading
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from pytest_django import DjangoCaptureOnCommitCallbacks, Settings

from accounts import services
from follows.models import Follow
from games import days
from games import services as games_services
from games.models import Attempt, FairPlayCase, Result, Submission
from games.tests.factories import make_challenge, make_user, token_for
from leagues.models import League, Membership
from ratings.models import RatingHistory

pytestmark = pytest.mark.django_db

PASSWORD = "not-a-common-pass-42"


class Api:
    def __init__(self, token: str | None = None, client: Client | None = None) -> None:
        self.client = client or Client(HTTP_HOST="localhost")
        self.headers: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}

    def get(self, path: str) -> Any:
        return self.client.get(f"/api/v1/{path}", **self.headers)

    def post(self, path: str, body: Any = None, raw: str | None = None) -> Any:
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post(f"/api/v1/{path}", data, content_type="application/json", **self.headers)


def error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()["error"]
    assert body["message"]
    if code:
        assert body["code"] == code, body
    return dict(body)


def exists(user: Any) -> bool:
    return get_user_model().objects.filter(pk=user.pk).exists()


# --- Export -----------------------------------------------------------------------------------------


def test_the_export_holds_the_callers_data_and_nobody_elses() -> None:
    me, other = make_user("exporter"), make_user("bystander")
    challenge = make_challenge()
    mine = Attempt.objects.create(player=me, challenge=challenge, ranked=True, moves=["s", "s"])
    Attempt.objects.create(player=other, challenge=challenge, ranked=True, moves=["s"])
    submission = Submission.objects.create(attempt=mine, moves=["s", "s"], status=Submission.Status.VALID)
    result = Result.objects.create(
        submission=submission,
        player=me,
        challenge=challenge,
        ranked=True,
        won=False,
        score=0,
        moves=2,
        foundation_cards=0,
        play_time_ms=1000,
        finished_at=challenge.created_at,
    )
    other_result_attempt = Attempt.objects.create(
        player=other, challenge=make_challenge(game="klondike-3"), ranked=True
    )
    other_result = Result.objects.create(
        submission=Submission.objects.create(attempt=other_result_attempt, status=Submission.Status.VALID),
        player=other,
        challenge=other_result_attempt.challenge,
        ranked=True,
        won=False,
        score=0,
        moves=0,
        foundation_cards=0,
        play_time_ms=1,
        finished_at=challenge.created_at,
    )
    FairPlayCase.objects.create(
        result=result,
        kind=FairPlayCase.Kind.ADDRESS,
        holds=False,
        others=["bystander"],
        reason="Flagged: bystander also ranked on this challenge from the same client address.",
    )
    FairPlayCase.objects.create(
        result=other_result,
        kind=FairPlayCase.Kind.BROWSER,
        holds=False,
        others=["exporter"],
        reason="Flagged: exporter also ranked on this challenge from the same browser.",
    )
    league = League.objects.create(name="mine", owner=me)
    Membership.objects.create(league=league, player=me)

    key = token_for(me)
    response = Api(key).get("me/export")
    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    data = response.json()
    assert data["account"]["username"] == "exporter"
    assert [a["moves"] for a in data["attempts"]] == [["s", "s"]]
    assert data["attempts"][0]["result"]["score"] == 0
    assert data["attempts"][0]["result"]["fair_play_cases"][0]["reason"].startswith("Flagged: another player also")
    assert len(data["fair_play_cases_naming_me"]) == 1 and data["fair_play_cases_naming_me"][0]["kind"] == "browser"
    assert data["leagues"][0]["owner"] is True and data["leagues"][0]["invite_code"] == league.invite_code
    text = json.dumps(data)
    assert "bystander" not in text  # the other player's name is theirs
    assert key not in text  # a token's key is a secret, never exported
    assert data["api_tokens"] and all(set(t) == {"created"} for t in data["api_tokens"])


def test_the_export_holds_whom_the_player_follows_and_their_rating_history_but_not_their_followers() -> None:
    me, ann, fan = make_user("exporter"), make_user("ann"), make_user("fan")
    Follow.objects.create(follower=me, followed=ann)
    Follow.objects.create(follower=fan, followed=me)
    RatingHistory.objects.create(
        player=me,
        game="klondike",
        day=dt.date(2026, 12, 1),
        mu=26.0,
        sigma=8.0,
        rating=1010,
        previous=1000,
        rank=1,
        players=3,
    )
    data = Api(token_for(me)).get("me/export").json()
    assert [f["username"] for f in data["follows"]] == ["ann"]
    assert "fan" not in json.dumps(data)  # who follows them is the followers' own data
    assert data["reminder"] is None  # none set
    assert [(r["game"], r["day"], r["rating"], r["rank"]) for r in data["ratings"]] == [
        ("klondike", "2026-12-01", 1010, 1)
    ]


def test_the_export_and_the_delete_need_a_login() -> None:
    error(Api().get("me/export"), 401)
    error(Api().post("me/delete", {"password": PASSWORD, "confirm": True}), 401)
    error(Api("not-a-token").get("me/export"), 401)


def test_the_export_of_a_session_player_and_a_guest() -> None:
    client = Client(HTTP_HOST="localhost")
    player = make_user()
    client.force_login(player)
    assert Api(client=client).get("me/export").json()["account"]["username"] == player.username
    guest = games_services.guest_create()
    client.force_login(guest)
    assert Api(client=client).get("me/export").json()["account"]["guest"] is True


# --- Self-service deletion -------------------------------------------------------------------------


def test_a_player_deletes_their_account_with_the_password_and_a_confirmation(
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    player = make_user()
    api = Api(token_for(player))
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("me/delete", {"password": PASSWORD, "confirm": True})
    assert response.status_code == 204
    assert not exists(player)
    error(api.get("me/export"), 401)  # its token went with it


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"password": PASSWORD}, 400, None),  # no confirmation
        ({"password": PASSWORD, "confirm": False}, 400, "confirmation_required"),
        ({"password": PASSWORD, "confirm": "true"}, 400, None),  # a string is no JSON boolean
        ({"password": PASSWORD, "confirm": 1}, 400, None),
        ({"confirm": True}, 403, "wrong_password"),  # no password
        ({"password": "", "confirm": True}, 403, "wrong_password"),
        ({"password": "wrong", "confirm": True}, 403, "wrong_password"),
        ({"password": 42, "confirm": True}, 400, None),
        ({"password": "x" * 300, "confirm": True}, 400, None),
    ],
)
def test_a_delete_without_the_password_or_the_confirmation_deletes_nothing(
    body: dict[str, Any], status: int, code: str | None
) -> None:
    player = make_user()
    error(Api(token_for(player)).post("me/delete", body), status, code)
    assert exists(player)


@pytest.mark.parametrize("raw", ["[]", "null", '"delete"', "{", '{"password": "x", "confirm": true'])
def test_a_delete_with_a_body_that_is_no_object_deletes_nothing(raw: str) -> None:
    player = make_user()
    error(Api(token_for(player)).post("me/delete", raw=raw), 400)
    assert exists(player)


def test_one_player_cannot_delete_another() -> None:
    """``me`` is the caller: another player's password deletes nothing of theirs (nor the caller)."""
    victim, attacker = make_user("victim"), make_user("attacker")
    victim.set_password("victims-own-password-9")
    victim.save()
    api = Api(token_for(attacker))
    error(api.post("me/delete", {"password": "victims-own-password-9", "confirm": True}), 403, "wrong_password")
    error(api.post("me/delete", {"password": PASSWORD, "confirm": True, "username": "victim"}), 400)
    assert exists(victim) and exists(attacker)


@pytest.mark.throttled
def test_guessing_the_password_through_the_delete_meets_the_login_limits(settings: Settings) -> None:
    settings.THROTTLE = True
    player = make_user()
    api = Api(token_for(player))
    answers = [api.post("me/delete", {"password": f"guess{i}", "confirm": True}).status_code for i in range(8)]
    assert 429 in answers and set(answers) <= {403, 429}
    error(api.post("me/delete", {"password": PASSWORD, "confirm": True}), 429)  # even the right one, now
    assert exists(player)


def test_a_guest_deletes_itself_with_a_confirmation_only() -> None:
    guest = games_services.guest_create()
    client = Client(HTTP_HOST="localhost", enforce_csrf_checks=False)
    client.force_login(guest)
    error(Api(client=client).post("me/delete", {"confirm": False}), 400, "confirmation_required")
    assert exists(guest)
    assert Api(client=client).post("me/delete", {"confirm": True}).status_code == 204
    assert not exists(guest)
    error(Api(client=client).get("me/export"), 401)  # the session ended with it


def test_a_session_delete_needs_the_csrf_token() -> None:
    player = make_user()
    client = Client(HTTP_HOST="localhost", enforce_csrf_checks=True)
    client.force_login(player)
    error(Api(client=client).post("me/delete", {"password": PASSWORD, "confirm": True}), 403)
    assert exists(player)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_delete_racing_a_validation_leaves_no_result_and_no_error() -> None:
    """The submission is validated first (and deleted with the player), or finds its rows gone."""
    from games.tasks import validate_submission

    for back in range(1, 6):
        player = make_user()
        challenge = make_challenge(seed=2026 + back, game="klondike", day=days.today() - dt.timedelta(days=back))
        attempt = Attempt.objects.create(
            player=player, challenge=challenge, ranked=True, finished_at=challenge.created_at
        )
        submission = Submission.objects.create(attempt=attempt, moves=[])
        outcomes = race(
            delete=functools.partial(services.player_delete, player=player),
            validate=functools.partial(validate_submission, submission.pk),
        )
        assert not isinstance(outcomes["delete"], Exception), outcomes
        assert outcomes["validate"] in ("valid", "gone"), outcomes
        assert not exists(player)
        assert not Result.objects.filter(player_id=player.pk).exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_delete_racing_a_submit_leaves_nothing_of_the_player() -> None:
    """The submit finishes first (its submission and result go with the player) or finds no attempt (404)."""
    from games.errors import NotFound

    for back in range(5):
        player = make_user()
        challenge = make_challenge(seed=3000 + back, game="klondike", day=days.today() - dt.timedelta(days=back))
        attempt = Attempt.objects.create(player=player, challenge=challenge, ranked=back == 0)
        outcomes = race(
            delete=functools.partial(services.player_delete, player=player),
            submit=functools.partial(
                games_services.attempt_submit, attempt_id=attempt.pk, player=player, start=None, moves=None
            ),
        )
        assert not isinstance(outcomes["delete"], Exception), outcomes
        assert not isinstance(outcomes["submit"], Exception) or isinstance(outcomes["submit"], NotFound), outcomes
        assert not exists(player)
        assert not Attempt.objects.filter(player_id=player.pk).exists()
        assert not Result.objects.filter(player_id=player.pk).exists()


def race(**work: Any) -> dict[str, Any]:
    """Run each piece of work in its own thread (and database connection), started together."""
    barrier = threading.Barrier(len(work))
    outcomes: dict[str, Any] = {}

    def run(name: str, job: Any) -> None:
        try:
            barrier.wait()
            outcomes[name] = job()
        except Exception as exc:
            outcomes[name] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=item) for item in work.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


# --- What a banned player is told -----------------------------------------------------------------


def test_a_banned_player_is_refused_a_ranked_start_and_told_why_and_the_profile_is_hidden() -> None:
    player = make_user("cheater")
    make_challenge(day=days.today())
    api = Api(token_for(player))
    services.player_ban(player=player, by=None, reason="two accounts on one board")
    body = error(api.post(f"daily/{days.today()}/klondike/attempts"), 403, "player_banned")
    assert "banned" in body["message"] and "two accounts on one board" in body["message"]
    assert not Attempt.objects.filter(player=player).exists()
    error(Api().get("players/cheater"), 404)
    error(Api().get("players/cheater/stats"), 404)
    assert Client(HTTP_HOST="localhost").get("/players/cheater").status_code == 404
    assert api.get("me/export").json()["account"]["banned"]["reason"] == "two accounts on one board"
    services.player_unban(player=player, by=None)
    assert api.post(f"daily/{days.today()}/klondike/attempts").status_code == 201
    assert Api().get("players/cheater").status_code == 200


def test_a_banned_players_games_leave_the_public_game_pages() -> None:
    from leaderboard.tests.factories import make_challenge as board_challenge
    from leaderboard.tests.factories import make_result

    player = make_user("was-public")
    past = board_challenge(date=days.today() - dt.timedelta(days=2))
    attempt_id = make_result(challenge=past, player=player).submission.attempt_id
    stranger = Api(token_for(make_user("stranger")))
    assert stranger.get(f"attempts/{attempt_id}/replay").status_code == 200  # a ranked game of a day over: public
    services.player_ban(player=player, by=None)
    error(stranger.get(f"attempts/{attempt_id}/replay"), 404)
    assert Client(HTTP_HOST="localhost").get(f"/games/{attempt_id}").status_code == 404
    assert Api(token_for(player)).get(f"attempts/{attempt_id}/replay").status_code == 200  # still their own
