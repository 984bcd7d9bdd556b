"""Issue 51, tried as a determined cheater would: a paced bot, a guest as a back door, identities that
share a browser or an address, and the login page starting a ranked attempt. Each test names the
sentence of SPEC section 7 (its "Identities are cheap" paragraph) or the route of the issue it holds.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from pytest_django import DjangoCaptureOnCommitCallbacks

from core.limits import limits_forget
from games import days, services
from games.models import Attempt, FairPlayCase, Result
from games.tests.factories import make_challenge, make_result, make_user, token_for
from games.tests.test_apis import Api, submit_valid

pytestmark = pytest.mark.django_db

LOGS = json.loads((Path(__file__).parent / "data" / "winning_logs.json").read_text())
SEED, LOG = LOGS["klondike"]["seed"], LOGS["klondike"]["moves"]
COOKIE = "dp_browser"
PASSWORD = "not-a-common-pass-42"  # the factories' password


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks: DjangoCaptureOnCommitCallbacks) -> DjangoCaptureOnCommitCallbacks:
    return django_capture_on_commit_callbacks


@pytest.fixture
def clock() -> Iterator[time_machine.Traveller]:
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


def start(api: Api, *, address: str = "192.0.2.50", browser: str | None = None) -> int:
    if browser is not None:
        api.client.cookies[COOKIE] = browser
    response = api.client.post(f"/api/v1/daily/{days.today()}/klondike/attempts", **api.headers, REMOTE_ADDR=address)
    assert response.status_code == 201, response.content
    return int(response.json()["id"])


def look(api: Api, clock: time_machine.Traveller, *, address: str, browser: str, draws: int = 3) -> int:
    """Start the day's deal and draw a few stock cards: hidden cards disclosed to this identity."""
    attempt_id = start(api, address=address, browser=browser)
    clock.shift(dt.timedelta(seconds=2))
    assert api.post(f"attempts/{attempt_id}/moves", {"from": 0, "moves": ["s"] * draws}).status_code == 200
    clock.shift(dt.timedelta(seconds=2))
    return attempt_id


def play_to_win(
    api: Api, clock: time_machine.Traveller, attempt_id: int, *, per_batch: int = 1, seconds: float = 1.0
) -> None:
    for at in range(0, len(LOG), per_batch):
        clock.shift(dt.timedelta(seconds=seconds))
        response = api.post(f"attempts/{attempt_id}/moves", {"from": at, "moves": LOG[at : at + per_batch]})
        assert response.status_code == 200, response.content
    clock.shift(dt.timedelta(seconds=0.5))


def person_win(
    api: Api,
    clock: time_machine.Traveller,
    on_commit: DjangoCaptureOnCommitCallbacks,
    *,
    address: str = "192.0.2.50",
    browser: str | None = None,
) -> dict[str, Any]:
    """The winning line a move a second (a person's pace), from this address and browser."""
    attempt_id = start(api, address=address, browser=browser)
    play_to_win(api, clock, attempt_id)
    return submit_valid(api, attempt_id, on_commit)


def board() -> list[str]:
    return [e["player"] for e in Api().get(f"leaderboards/{days.today()}/klondike").json()["entries"]]


def holds(username: str) -> dict[str, bool]:
    return {r.kind: r.holds for r in FairPlayCase.objects.filter(result__player__username=username)}


# --- a person's pace -----------------------------------------------------------------------------------


def test_spec7_a_paced_bot_win_is_held_for_a_fair_play_check(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """Issue 51, "A paced bot ranks": the whole line known in advance, sent 30 moves then 24 every 4 s
    (under 30 at once and 6 a second) by a fresh account: a ranked result whose play the server judges
    implausible for a person is held for review and is on no public board until staff clear it."""
    make_challenge(game="klondike", seed=SEED)
    bot = Api(token_for(make_user("pacedbot", new=True)))
    attempt_id = start(bot, address="198.51.100.99", browser="bot-browser")
    sizes = [30] + [24] * 5
    at = 0
    for size in sizes:
        clock.shift(dt.timedelta(seconds=4))
        response = bot.post(f"attempts/{attempt_id}/moves", {"from": at, "moves": LOG[at : at + size]})
        assert response.status_code == 200, response.content
        at += size
    result = submit_valid(bot, attempt_id, on_commit)
    assert result["won"] is True and result["play_time_ms"] < 30_000
    assert result["fair_play"]["status"] == "held" and "a person" in result["fair_play"]["reason"]
    assert holds("pacedbot") == {FairPlayCase.Kind.PACE: True}
    assert board() == []


def test_a_person_playing_a_move_a_second_is_not_held(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    make_challenge(game="klondike", seed=SEED)
    ada = Api(token_for(make_user("ada", new=True)))
    result = person_win(ada, clock, on_commit, browser="ada-browser")
    assert result["fair_play"] is None and board() == ["ada"]


def test_spec7_the_days_median_once_it_has_enough_winners(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """A win in well under the day's median winning time (once 20 wins count) is held."""
    challenge = make_challenge(game="klondike", seed=SEED)
    for _ in range(20):
        make_result(challenge=challenge, won=True, play_time_ms=30 * 60_000, finished_at=timezone.now())
    quick = Api(token_for(make_user("quick")))
    result = person_win(quick, clock, on_commit, address="198.51.100.3")  # 146 s: a person's pace, under 1/10 of 30 min
    assert result["fair_play"] is not None and "median" in result["fair_play"]["reason"]
    assert "quick" not in board()


# --- identities share their disclosures (SPEC section 7) ---------------------------------------------------


def test_spec7_held_when_hidden_cards_were_disclosed_earlier_that_day_to_another_identity_in_the_same_browser(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """ "a ranked result is also held when, earlier that day, hidden cards of the same deal were
    disclosed to another identity in the same browser" (established accounts, different addresses)."""
    make_challenge(game="klondike", seed=SEED)
    scout, runner = Api(token_for(make_user("scout"))), Api(token_for(make_user("runner")))
    look(scout, clock, address="192.0.2.1", browser="one-browser")
    result = person_win(runner, clock, on_commit, address="198.51.100.2", browser="one-browser")
    assert result["fair_play"]["status"] == "held" and "scout" in result["fair_play"]["reason"]
    assert holds("runner") == {FairPlayCase.Kind.BROWSER: True}
    assert board() == []


def test_spec7_an_identity_in_the_same_browser_that_disclosed_nothing_only_flags(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    make_challenge(game="klondike", seed=SEED)
    first, runner = Api(token_for(make_user("first"))), Api(token_for(make_user("runner")))
    first_attempt = start(first, address="192.0.2.1", browser="one-browser")  # opened, no card disclosed
    submit_valid(first, first_attempt, on_commit)
    result = person_win(runner, clock, on_commit, address="198.51.100.2", browser="one-browser")
    assert result["fair_play"] is None and holds("runner") == {FairPlayCase.Kind.BROWSER: False}
    assert "runner" in board()


def test_spec7_held_when_disclosed_to_a_guest_from_the_same_network_address(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """ "... or to a new one (a guest, ...) from the same network address": an established account,
    another browser, the address a guest looked from."""
    make_challenge(game="klondike", seed=SEED)
    guest = services.guest_create()
    look(Api(token_for(guest)), clock, address="203.0.113.7", browser="guest-browser")
    runner = Api(token_for(make_user("runner")))
    result = person_win(runner, clock, on_commit, address="203.0.113.7", browser="runner-browser")
    assert result["fair_play"]["status"] == "held"
    assert holds("runner") == {FairPlayCase.Kind.ADDRESS: True}
    assert board() == []


def test_spec7_held_when_disclosed_to_an_account_made_that_day_from_the_same_address(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """ "... or to a new one (..., or an account made that day) from the same network address"; and
    the other way round: a new account ranking where an established one looked is held too."""
    make_challenge(game="klondike", seed=SEED)
    look(Api(token_for(make_user("fresh", new=True))), clock, address="203.0.113.7", browser="b1")
    runner = Api(token_for(make_user("runner")))
    assert person_win(runner, clock, on_commit, address="203.0.113.7", browser="b2")["fair_play"] is not None
    newcomer = Api(token_for(make_user("newcomer", new=True)))
    assert person_win(newcomer, clock, on_commit, address="203.0.113.7", browser="b3")["fair_play"] is not None
    assert holds("newcomer") == {FairPlayCase.Kind.ADDRESS: True}


def test_spec7_an_ipv6_slash_64_counts_as_one_address(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """ "(an IPv6 /64 counts as one address)": another address of the guest's /64 is the same address;
    an address of the next /64 is another."""
    make_challenge(game="klondike", seed=SEED)
    look(Api(token_for(services.guest_create())), clock, address="2001:db8:1:2::10", browser="g")
    same, other = Api(token_for(make_user("same"))), Api(token_for(make_user("other")))
    assert person_win(same, clock, on_commit, address="2001:db8:1:2:ffff:ee:dd:1", browser="s")["fair_play"]
    assert person_win(other, clock, on_commit, address="2001:db8:1:3::10", browser="o")["fair_play"] is None
    assert board() == ["other"]


def test_spec7_established_accounts_behind_one_shared_address_do_not_hold_each_other(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """ "Established accounts behind one shared address (a household, an office) do not hold each
    other": flagged for staff, on the board."""
    make_challenge(game="klondike", seed=SEED)
    parent, child = Api(token_for(make_user("parent"))), Api(token_for(make_user("child")))
    submit_valid(parent, look(parent, clock, address="203.0.113.7", browser="b1"), on_commit)
    result = person_win(child, clock, on_commit, address="203.0.113.7", browser="b2")
    assert result["fair_play"] is None and holds("child") == {FairPlayCase.Kind.ADDRESS: False}
    assert set(board()) == {"parent", "child"}


def test_spec7_a_disclosure_after_the_result_ended_holds_nothing(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """ "earlier that day": a guest who looks once the game has ended holds nothing."""
    make_challenge(game="klondike", seed=SEED)
    runner = Api(token_for(make_user("runner")))
    runner_attempt = start(runner, address="203.0.113.7", browser="b1")
    play_to_win(runner, clock, runner_attempt)
    with on_commit(execute=True):
        assert runner.post(f"attempts/{runner_attempt}/submit").status_code == 202
    guest = services.guest_create()
    look(Api(token_for(guest)), clock, address="203.0.113.7", browser="b2")
    with on_commit(execute=True):
        staff_revalidates = services.submission_revalidate(
            submission_id=Attempt.objects.get(pk=runner_attempt).submission.pk
        )
    assert staff_revalidates.status == "valid" and not Result.objects.get(player__username="runner").held


def test_spec7_a_guests_result_that_an_account_claims_is_judged_by_the_same_rule(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """Issue 51, "A guest is a back door": guest 1 looks at the deal, guest 2 in the same browser wins
    at a person's pace, then logs in to an account: the claimed result is held, on no board."""
    make_challenge(game="klondike", seed=SEED)
    look(Api(token_for(services.guest_create())), clock, address="203.0.113.7", browser="shared")
    guest_two = services.guest_create()
    result = person_win(Api(token_for(guest_two)), clock, on_commit, address="203.0.113.8", browser="shared")
    assert result["fair_play"]["status"] == "held"
    account = make_user("claimer")
    browser = Client(HTTP_HOST="localhost", REMOTE_ADDR="203.0.113.8")
    browser.cookies[COOKIE] = "shared"
    browser.force_login(guest_two)
    limits_forget(addresses=("203.0.113.8",))
    with on_commit(execute=True):
        response = browser.post("/accounts/login/", {"username": "claimer", "password": PASSWORD})
    assert response.status_code == 302, response.content
    claimed = Result.objects.get(player=account)
    assert claimed.ranked and claimed.held
    assert board() == []


def test_spec7_a_claimed_result_is_judged_again_with_the_account_as_the_player(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    """The claim judges again: a guest's result that nothing held (no other identity had looked), then
    a hold found at the claim (a new identity from that address looked before the game ended) stays."""
    make_challenge(game="klondike", seed=SEED)
    guest = services.guest_create()
    attempt_id = start(Api(token_for(guest)), address="203.0.113.9", browser="g")
    play_to_win(Api(token_for(guest)), clock, attempt_id)
    with on_commit(execute=True):
        Api(token_for(guest)).post(f"attempts/{attempt_id}/submit")
    result = Result.objects.get(player=guest)
    assert not result.held
    # A look recorded as before the game ended (a result validated out of order, a clock).
    other = services.guest_create()
    looked = Attempt.objects.create(
        player=other,
        challenge=result.challenge,
        ranked=True,
        moves=["s"],
        batches=[[1000, 1]],
        origin=Attempt.objects.get(pk=attempt_id).origin,
    )
    Attempt.objects.filter(pk=looked.pk).update(started_at=result.finished_at - dt.timedelta(minutes=5))
    account = make_user("claimer")
    with on_commit(execute=True):
        services.guest_claim(guest=guest, account=account)
    result.refresh_from_db()
    assert result.player_id == account.pk and result.held
    assert holds("claimer") == {FairPlayCase.Kind.ADDRESS: True}


def test_spec7_a_guests_play_press_records_where_its_ranked_attempt_started() -> None:
    """ "Play now" on the table page starts a guest's attempt: from that address and browser, as the
    API's start records it, so that the rule sees a guest who looks through the pages."""
    make_challenge(game="klondike", seed=SEED)
    client = Client(HTTP_HOST="localhost", REMOTE_ADDR="203.0.113.21")
    client.cookies[COOKIE] = "visitor-browser"
    response = client.post("/accounts/guest/", {"next": f"/play/{days.today()}/klondike"})
    assert response.status_code == 302
    attempt = Attempt.objects.get()
    assert attempt.origin == services.origin_hash(kind="address", value="203.0.113.21")
    assert attempt.browser == services.origin_hash(kind="browser", value="visitor-browser")


def test_a_claim_does_not_reopen_a_hold_staff_cleared(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks
) -> None:
    make_challenge(game="klondike", seed=SEED)
    look(Api(token_for(services.guest_create())), clock, address="203.0.113.7", browser="shared")
    guest = services.guest_create()
    person_win(Api(token_for(guest)), clock, on_commit, address="198.51.100.8", browser="shared")
    case = FairPlayCase.objects.get(result__player=guest, kind=FairPlayCase.Kind.BROWSER)
    with on_commit(execute=True):
        services.fair_play_case_clear(case_id=case.pk, staff=make_user("staff"))
    account = make_user("claimer")
    with on_commit(execute=True):
        services.guest_claim(guest=guest, account=account)
    result = Result.objects.get(player=account)
    assert not result.held and board() == ["claimer"]
    assert FairPlayCase.objects.get(result=result, kind=FairPlayCase.Kind.BROWSER).status == FairPlayCase.Status.CLEARED


def test_players_behind_one_address_make_one_flag_naming_a_bounded_few_and_holds_stay_apart(
    clock: time_machine.Traveller, on_commit: DjangoCaptureOnCommitCallbacks, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A campus behind one address: one flag for the address and day (the players counted, a few named),
    never one row per player naming all the others; SPEC section 7's holds stay one case per held
    result, apart from it."""
    from games.services import fairplay

    monkeypatch.setattr(fairplay, "NAMES_SHOWN", 3)
    make_challenge(game="klondike", seed=SEED)
    campus = [Api(token_for(make_user(f"student{i}"))) for i in range(7)]
    attempts = [start(api, address="203.0.113.7") for api in campus]
    for api, attempt_id in zip(campus, attempts, strict=True):
        submit_valid(api, attempt_id, on_commit)
    flags = list(FairPlayCase.objects.filter(holds=False))
    assert len(flags) == 1
    flag = flags[0]
    students = ["student0", "student1", "student2"]
    assert (flag.kind, flag.players, flag.others) == (FairPlayCase.Kind.ADDRESS, 7, students)
    assert flag.reason.endswith("student0, student1, student2 and 4 more.") and flag.day == days.today()
    assert len(board()) == 7  # flags are signals: everyone stays on the board

    look(Api(token_for(services.guest_create())), clock, address="203.0.113.7", browser="guest-browser")
    late = Api(token_for(make_user("late")))
    assert person_win(late, clock, on_commit, address="203.0.113.7", browser="late-browser")["fair_play"] is not None
    hold = FairPlayCase.objects.get(holds=True)
    assert hold.result.player.username == "late" and hold.kind == FairPlayCase.Kind.ADDRESS and hold.players == 1
    assert FairPlayCase.objects.filter(holds=False).count() == 1 and "late" not in board()
