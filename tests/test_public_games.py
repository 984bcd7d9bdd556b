"""Everyone's games (issue 28, item 5): a ranked game is public once its day is over, never before.

Attacker's view: another player's id, a guest, an anonymous caller, a rotated X-Forwarded-For, the board's
cached page, the profile and the HTML pages. Practice stays its player's; an open attempt is nobody else's.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.contrib.auth.models import User
from pytest_django import DjangoCaptureOnCommitCallbacks
from rest_framework.test import APIClient

from games import services
from games.models import Attempt, Challenge
from games.services.players import guest_create
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = pytest.mark.django_db

WINS = json.loads((Path(__file__).parents[1] / "games" / "tests" / "data" / "winning_logs.json").read_text())
KLONDIKE = WINS["klondike"]
DAY = dt.date(2026, 12, 1)
NOON = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.UTC)
MIDNIGHT = dt.datetime(2026, 12, 2, 0, 0, tzinfo=dt.UTC)
LOST_LOG = KLONDIKE["moves"][:6]
Finish = Callable[..., Attempt]  # finish(challenge, moves, *, player=None): the attempt, played and submitted


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(NOON, tick=False) as traveller:
        yield traveller


@pytest.fixture
def challenge(clock: time_machine.Traveller) -> Challenge:
    return make_challenge(game="klondike", seed=KLONDIKE["seed"], day=DAY, solution=KLONDIKE["moves"])


@pytest.fixture
def finish(clock: time_machine.Traveller, django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> Finish:
    def finished(challenge: Challenge, moves: list[str], *, player: User | None = None) -> Attempt:
        """Played at a person's pace by the server's clock (ten moves every ten seconds), or a win is held."""
        player = player or make_user()
        attempt = services.attempt_start(player=player, challenge=challenge)
        for start in range(0, len(moves), 10):
            clock.shift(dt.timedelta(seconds=10))
            services.attempt_append_moves(
                attempt_id=attempt.pk, player=player, start=start, moves=moves[start : start + 10]
            )
        with django_capture_on_commit_callbacks(execute=True):
            services.attempt_submit(attempt_id=attempt.pk, player=player)
        attempt.refresh_from_db()
        return attempt

    return finished


def client_for(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(user)}")
    return client


def urls(attempt: Attempt) -> list[str]:
    return [f"/api/v1/attempts/{attempt.pk}/replay", f"/api/v1/attempts/{attempt.pk}/review"]


def strangers() -> list[APIClient]:
    """Another account, a guest, and nobody at all."""
    return [client_for(make_user()), client_for(guest_create()), APIClient()]


def board(client: APIClient, **query: str) -> Any:
    answer = client.get(f"/api/v1/leaderboards/{DAY}/klondike", query)
    assert answer.status_code == 200
    return answer.json()


def test_before_the_day_is_over_nothing_of_anybody_s_game_is_out(
    clock: time_machine.Traveller, challenge: Challenge, finish: Finish
) -> None:
    ranked = finish(challenge, KLONDIKE["moves"])
    for client in strangers():
        for url in urls(ranked):
            for address in (None, "203.0.113.9", "198.51.100.7, 10.0.0.1"):
                extra: dict[str, Any] = {} if address is None else {"HTTP_X_FORWARDED_FOR": address}
                answer = client.get(url, **extra)
                assert answer.status_code == 404, (url, address)
                assert answer.json()["error"]["message"] == f"attempt {ranked.pk} not found"  # no schedule leaked
    # the board (the anonymous page from the cache, and a player's own view) links nothing yet
    anonymous = board(APIClient())
    assert anonymous["entries"][0]["player"] == ranked.player.get_username()
    assert {k: anonymous["entries"][0][k] for k in ("attempt", "replay", "review")} == {
        "attempt": None,
        "replay": None,
        "review": None,
    }
    mine = board(client_for(ranked.player))
    assert mine["entries"][0]["attempt"] is None and mine["me"]["entry"]["review"] is None
    profile = APIClient().get(f"/api/v1/players/{ranked.player.get_username()}").json()
    assert profile["recent"][0]["attempt"] is None and profile["recent"][0]["replay"] is None
    # nor the HTML pages
    for path in (f"/board/{DAY}/klondike", f"/players/{ranked.player.get_username()}"):
        html = APIClient().get(path).content.decode()
        assert f"/attempts/{ranked.pk}/" not in html and "/review/" not in html
    # nor the game's own page: the same 404 page for a stranger as for an id that does not exist
    for client in strangers():
        page = client.get(f"/games/{ranked.pk}")
        assert page.status_code == 404 and f"/attempts/{ranked.pk}" not in page.content.decode()
    # the owner still watches their own game (as before); its review waits for midnight
    owner = client_for(ranked.player)
    assert owner.get(urls(ranked)[0]).status_code == 200
    assert owner.get(urls(ranked)[1]).status_code == 404


def test_after_the_day_ranked_games_are_everybody_s_practice_stays_the_player_s(
    clock: time_machine.Traveller, challenge: Challenge, finish: Finish
) -> None:
    ranked = finish(challenge, LOST_LOG)
    practice = finish(challenge, KLONDIKE["moves"], player=ranked.player)
    assert ranked.ranked and not practice.ranked
    other = make_user()
    still_open = services.attempt_start(player=other, challenge=challenge)  # ranked, never finished
    clock.move_to(MIDNIGHT - dt.timedelta(seconds=30))
    board(APIClient()), board(APIClient())  # the anonymous top page is cached now, without links
    clock.move_to(MIDNIGHT)  # within the board's max age: the cache still holds that page

    for client in strangers():
        replay = client.get(urls(ranked)[0])
        assert replay.status_code == 200 and replay.json()["moves"] == LOST_LOG
        review = client.get(urls(ranked)[1])
        assert review.status_code == 200
        assert review.json()["player"] == ranked.player.get_username() and review.json()["status"] == "pending"
        for url in urls(practice) + urls(still_open):
            assert client.get(url).status_code == 404, url
    for client in strangers():
        assert client.get(f"/games/{ranked.pk}").status_code == 200
        assert client.get(f"/games/{practice.pk}").status_code == 404
        assert client.get(f"/games/{still_open.pk}").status_code == 404
    owner = client_for(ranked.player)
    assert all(owner.get(url).status_code == 200 for url in urls(practice))
    assert client_for(other).get(urls(still_open)[0]).status_code == 200  # the owner's own open game

    links = {"attempt": ranked.pk, "replay": urls(ranked)[0], "review": urls(ranked)[1]}
    for client in (APIClient(), client_for(other)):  # the cached anonymous page is rendered anew
        entry = board(client)["entries"][0]
        assert {k: entry[k] for k in links} == links
    assert board(APIClient(), board="all")["entries"][0]["attempt"] == ranked.pk
    assert board(client_for(ranked.player))["me"]["entry"]["attempt"] == ranked.pk
    recent = APIClient().get(f"/api/v1/players/{ranked.player.get_username()}").json()["recent"]
    assert [(r["attempt"], r["review"]) for r in recent] == [(ranked.pk, urls(ranked)[1])]


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "99999999999999999999", "1%00", "1.5"])
def test_bad_ids_are_json_404s_for_anybody(clock: time_machine.Traveller, challenge: Challenge, bad: str) -> None:
    for client in strangers():
        for tail in ("replay", "review"):
            answer = client.get(f"/api/v1/attempts/{bad}/{tail}")
            assert answer.status_code == 404 and answer["Content-Type"].startswith("application/json")


def test_show_a_win_from_here_is_the_line_played_then_an_engine_checked_win(
    clock: time_machine.Traveller,
    challenge: Challenge,
    finish: Finish,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    from reviews import services as reviews

    lost = finish(challenge, LOST_LOG)
    practice = finish(challenge, LOST_LOG, player=lost.player)
    url = f"/api/v1/attempts/{lost.pk}/review/win"
    for client in strangers():
        assert client.get(url).status_code == 404  # nothing before the day is over
    clock.move_to(MIDNIGHT)
    assert APIClient().get(url).status_code == 404  # the review is not made yet: no win to show
    with django_capture_on_commit_callbacks(execute=True):
        reviews.reviews_sweep()
    review = APIClient().get(urls(lost)[1]).json()["review"]
    body = whole_win(APIClient(), url)
    start = body["win_from"]
    assert start == review["win_from"] and body["moves"][:start] == review["line"][:start]
    assert body["moves"][start:] == review["win"] and len(body["frames"]) == len(body["moves"]) + 1
    assert body["frames"][-1]["won"] and not body["frames"][start]["won"]
    for client in strangers():
        assert client.get(f"/api/v1/attempts/{practice.pk}/review/win").status_code == 404


def whole_win(client: APIClient, url: str) -> Any:
    """Every page of a review's win, joined as the page joins them (a page's first frame is the last one of the
    page before)."""
    first = client.get(url + "?page=0").json()
    moves, frames = list(first["moves"]), list(first["frames"])
    for page in range(1, first["pages"]):
        body = client.get(f"{url}?page={page}").json()
        assert body["first"] == len(moves) and body["win_from"] == first["win_from"]
        moves += body["moves"]
        frames += body["frames"][1:]
    assert len(moves) == first["length"]
    return {"moves": moves, "frames": frames, "win_from": first["win_from"]}


def test_a_review_s_win_comes_in_pages_each_made_once(
    clock: time_machine.Traveller,
    challenge: Challenge,
    finish: Finish,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An anonymous reader of a public game's win gets pages like /replay's, cached: asking again, or another
    reader, rebuilds no frame."""
    from unittest import mock

    from games import selectors
    from reviews import selectors as review_selectors
    from reviews import services as reviews

    lost = finish(challenge, LOST_LOG)
    clock.move_to(MIDNIGHT)
    with django_capture_on_commit_callbacks(execute=True):
        reviews.reviews_sweep()
    url = f"/api/v1/attempts/{lost.pk}/review/win"
    # Pages of this run only: a shared Redis keeps an earlier run's (the same ids and frozen times).
    run = uuid.uuid4().hex
    paged = selectors.log_replay_page
    monkeypatch.setattr(
        review_selectors, "log_replay_page", lambda **kw: paged(**{**kw, "base": f"{run}:{kw['base']}"})
    )
    first = APIClient().get(url).json()
    assert first["page"] == 0 and first["page_moves"] == selectors.REPLAY_PAGE_MOVES and first["pages"] >= 2
    assert len(first["moves"]) == selectors.REPLAY_PAGE_MOVES and len(first["frames"]) == len(first["moves"]) + 1
    assert first["length"] == first["win_from"] + len(APIClient().get(urls(lost)[1]).json()["review"]["win"])
    last = first["pages"] - 1
    with mock.patch.object(selectors, "_frame", wraps=selectors._frame) as frames:
        APIClient().get(f"{url}?page={last}")  # the last page first: replayed from the deal, then cached
        made = frames.call_count
        assert 0 < made <= selectors.REPLAY_PAGE_MOVES + 1
        for client in (APIClient(), client_for(make_user()), client_for(lost.player)):
            assert client.get(url).json() == first
            assert client.get(f"{url}?page={last}").status_code == 200
        assert frames.call_count == made  # nobody's second ask rebuilt a frame
    assert APIClient().get(f"{url}?page={last + 1}").status_code == 404
    for bad in ("-1", "x", "10000000"):
        assert APIClient().get(f"{url}?page={bad}").status_code == 400


@pytest.mark.throttled
def test_a_review_s_win_is_throttled_per_address(
    clock: time_machine.Traveller,
    challenge: Challenge,
    finish: Finish,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    from django.core.cache import cache
    from rest_framework.throttling import SimpleRateThrottle

    from reviews import services as reviews

    lost = finish(challenge, LOST_LOG)
    clock.move_to(MIDNIGHT)
    with django_capture_on_commit_callbacks(execute=True):
        reviews.reviews_sweep()
    url = f"/api/v1/attempts/{lost.pk}/review/win"
    keys = [f"throttle_review_win_{a}" for a in ("2001:db8:3:4::/64", "192.0.2.8")]
    cache.delete_many(keys)
    rates = dict(SimpleRateThrottle.THROTTLE_RATES)
    SimpleRateThrottle.THROTTLE_RATES["review_win"] = "3/min"
    try:
        codes = [APIClient().get(url, REMOTE_ADDR=f"2001:db8:3:4::{i}").status_code for i in range(1, 5)]
        assert codes == [200, 200, 200, 429]  # new addresses of one /64 are one reader
        assert APIClient().get(url, REMOTE_ADDR="192.0.2.8").status_code == 200
    finally:
        SimpleRateThrottle.THROTTLE_RATES.clear()
        SimpleRateThrottle.THROTTLE_RATES.update(rates)
        cache.delete_many(keys)


def test_try_from_here_starts_a_practice_attempt_at_the_last_winnable_position(
    clock: time_machine.Traveller,
    challenge: Challenge,
    finish: Finish,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    from reviews import services as reviews

    lost = finish(challenge, LOST_LOG)
    practice = finish(challenge, LOST_LOG, player=lost.player)
    url = f"/api/v1/attempts/{lost.pk}/review/try"
    stranger = make_user()
    assert client_for(stranger).post(url).status_code == 404  # nothing before the day is over
    clock.move_to(MIDNIGHT)
    assert client_for(stranger).post(url).status_code == 404  # no review yet: nothing started
    assert not Attempt.objects.filter(player=stranger).exists()
    with django_capture_on_commit_callbacks(execute=True):
        reviews.reviews_sweep()
    review = APIClient().get(urls(lost)[1]).json()["review"]
    assert APIClient().post(url).status_code in (401, 403)
    assert client_for(stranger).post(f"/api/v1/attempts/{practice.pk}/review/try").status_code == 404
    with django_capture_on_commit_callbacks(execute=True):
        answer = client_for(stranger).post(url)
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    tried = Attempt.objects.get(pk=body["attempt"])
    assert tried.player_id == stranger.pk and not tried.ranked and tried.finished_at is None
    assert tried.moves == review["line"][: review["win_from"]] and body["moves"] == review["win_from"]
    assert body["play"] == f"/play/{DAY}/klondike"
    # the position goes on from there: the win the review found plays to the end
    with django_capture_on_commit_callbacks(execute=True):
        going_on = client_for(stranger).post(
            f"/api/v1/attempts/{tried.pk}/moves", {"from": body["moves"], "moves": review["win"][:5]}, format="json"
        )
    assert going_on.status_code == 200, going_on.json()
    again = client_for(stranger).post(url)  # while that one is open: a 409, and nothing stored
    assert again.status_code == 409
    assert Attempt.objects.filter(player=stranger).count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_try_from_here_at_once_start_one_attempt() -> None:
    """Two "try from here" of one player sent at the same instant (PostgreSQL: real transactions): one
    practice attempt, at the position; the other is a 409 and stores nothing."""
    import threading

    from django.db import connection

    from games.errors import Conflict
    from games.services.practice import attempt_try_from

    if connection.vendor != "postgresql":
        pytest.skip("concurrent transactions need PostgreSQL")
    with time_machine.travel(MIDNIGHT, tick=True):
        challenge = make_challenge(game="klondike", seed=KLONDIKE["seed"], day=DAY, solution=KLONDIKE["moves"])
        player = make_user()
        barrier = threading.Barrier(2)
        answers: list[object] = []

        def send() -> None:
            try:
                barrier.wait(10)
                answers.append(attempt_try_from(player=player, challenge=challenge, moves=LOST_LOG).pk)
            except Conflict as exc:
                answers.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=send) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert len(answers) == 2 and sum(isinstance(a, Conflict) for a in answers) == 1, answers
    attempt = Attempt.objects.get(player=player)
    assert attempt.moves == LOST_LOG and not attempt.ranked
    # an illegal line starts nothing either
    other = make_user()
    with time_machine.travel(MIDNIGHT, tick=False), pytest.raises(Exception, match="does not replay"):
        attempt_try_from(player=other, challenge=challenge, moves=["s", "t1t1"])
    assert not Attempt.objects.filter(player=other).exists()


# -- reviews and game pages from the boards (issue 51, item 4) -------------------------------------------


def test_spec7_held_guest_and_disqualified_games_stay_off_every_review_and_game_page(
    clock: time_machine.Traveller,
    challenge: Challenge,
    finish: Finish,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    """Issue 51, "Reviews crown the held": SPEC section 7, "Held results, and the games behind them,
    stay off every public board, review and game page until staff clear them". The day's best in a
    won game's review, and every public game, come from the results the public boards show."""
    from games.models import FairPlayCase, Result
    from reviews import services as reviews

    honest = finish(challenge, KLONDIKE["moves"])
    bot = make_user("bot")
    held = services.attempt_start(player=bot, challenge=challenge)
    clock.shift(dt.timedelta(seconds=1))
    with django_capture_on_commit_callbacks(execute=True):  # the whole line in one batch: held
        services.attempt_submit(attempt_id=held.pk, player=bot, start=0, moves=KLONDIKE["moves"])
    guest = guest_create()
    guest_game = finish(challenge, KLONDIKE["moves"], player=guest)
    cheat = finish(challenge, KLONDIKE["moves"], player=make_user("cheat"))
    services.result_disqualify(result_id=Result.objects.get(player__username="cheat").pk)
    assert Result.objects.get(player=bot).held
    clock.move_to(MIDNIGHT + dt.timedelta(minutes=5))
    with django_capture_on_commit_callbacks(execute=True):
        reviews.reviews_sweep()

    for game in (held, guest_game, cheat):
        for client in (client_for(make_user()), APIClient()):
            for url in urls(game):
                assert client.get(url).status_code == 404, url
            assert client.get(f"/games/{game.pk}").status_code == 404
    assert client_for(bot).get(urls(held)[0]).status_code == 200  # the player's own, as always
    best = client_for(honest.player).get(urls(honest)[1]).json()["review"]["best_players"]
    assert [b["player"] for b in best] == [honest.player.get_username()]

    # Staff clear the hold: the game and its place among the day's best are public from then on.
    with django_capture_on_commit_callbacks(execute=True):
        services.fair_play_case_clear(case_id=FairPlayCase.objects.get(result__player=bot).pk, staff=make_user("staff"))
    assert APIClient().get(urls(held)[0]).status_code == 200
    best = APIClient().get(urls(honest)[1]).json()["review"]["best_players"]
    assert [b["player"] for b in best] == ["bot", honest.player.get_username()]


def test_a_claimed_guests_game_is_public_after_the_day(
    clock: time_machine.Traveller,
    challenge: Challenge,
    finish: Finish,
    django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks,
) -> None:
    guest = guest_create()
    game = finish(challenge, KLONDIKE["moves"], player=guest)
    account = make_user("claimer")
    with django_capture_on_commit_callbacks(execute=True):
        services.guest_claim(guest=guest, account=account)
    clock.move_to(MIDNIGHT + dt.timedelta(minutes=5))
    assert APIClient().get(urls(game)[0]).status_code == 200
    assert APIClient().get(f"/games/{game.pk}").status_code == 200
