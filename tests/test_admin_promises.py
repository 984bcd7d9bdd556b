"""The admin keeps the service's promises, tried as staff with and without each permission.

- A challenge's date and game never change, nor a ready one's seed (read only in the admin, refused by the model).
- Every action declares its permission: view-only staff get 403 and nothing changes; staff with it run
  it, and each run is in the object's history with its actor (LogEntry).
- No "add" for the rows the service makes; no delete that leaves a result held (a fair-play case is
  decided, never deleted, nor is what it hangs on).
- The fair-play cases open on the open cases that hold a result; decisions are on a case's page too.
- Staff without ``games.view_future_deal`` find no row of a day not over, whatever they ask the lists.
"""

from __future__ import annotations

import datetime as dt
from typing import Any
from unittest import mock

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from core import tasks as core_tasks
from games import days
from games.models import Attempt, Challenge, ChallengeFixed, FairPlayCase, Result, Submission
from games.tests.factories import make_challenge, make_staff, make_user
from reviews.models import GameReview

pytestmark = pytest.mark.django_db

YESTERDAY = dt.timedelta(days=-1)


def played(*, offset: int = -1, seed: int = 7000, game: str = "klondike", held: bool = True) -> FairPlayCase:
    """A challenge ``offset`` days from today with one finished ranked game: its attempt, submission, result
    (held, unless told), the result's open fair-play case and the game's review, as the service would leave
    them."""
    challenge = make_challenge(game=game, seed=seed + offset, day=days.today() + dt.timedelta(days=offset))
    player = make_user()
    now = timezone.now()
    attempt = Attempt.objects.create(player=player, challenge=challenge, ranked=True, moves=["s"], finished_at=now)
    submission = Submission.objects.create(attempt=attempt, moves=["s"], status=Submission.Status.VALID)
    result = Result.objects.create(
        submission=submission,
        player=player,
        challenge=challenge,
        ranked=True,
        won=False,
        score=0,
        moves=1,
        foundation_cards=0,
        play_time_ms=1000,
        finished_at=now,
        held=held,
    )
    GameReview.objects.create(attempt=attempt)
    kind = FairPlayCase.Kind.PACE if held else FairPlayCase.Kind.ADDRESS
    return FairPlayCase.objects.create(result=result, kind=kind, holds=held, reason="Held: a test.")


def history(user: User, obj: Any) -> list[str]:
    return [e.get_change_message() for e in LogEntry.objects.filter(user=user, object_id=str(obj.pk))]


# --- a challenge's deal never moves ---------------------------------------------------------------------


def test_a_challenges_date_and_game_are_read_only_in_the_admin_and_refused_by_the_model(admin_client: Client) -> None:
    challenge = make_challenge(seed=11, solution=["s"])
    url = reverse("admin:games_challenge_change", args=[challenge.pk])
    page = admin_client.get(url).content.decode()
    assert 'name="date"' not in page and 'name="game"' not in page  # shown, not editable
    form = {
        "date": str(challenge.date - dt.timedelta(days=1)),  # issue 52: a played day moved to yesterday
        "game": "lucas",
        "published": "on",
        "verifications-TOTAL_FORMS": "0",
        "verifications-INITIAL_FORMS": "0",
    }
    assert admin_client.post(url, form).status_code == 302
    challenge.refresh_from_db()
    assert (challenge.date, challenge.game, challenge.seed_int) == (days.today(), "klondike", 11)

    with pytest.raises(ChallengeFixed):
        Challenge.objects.filter(pk=challenge.pk).update(date=days.today() - dt.timedelta(days=1))
    with pytest.raises(ChallengeFixed):
        Challenge.objects.filter(pk=challenge.pk).update(game="maria")
    for field, value in (("date", days.today() + dt.timedelta(days=3)), ("game", "lucas"), ("seed", 12)):
        moved = Challenge.objects.get(pk=challenge.pk)
        setattr(moved, field, value)
        with pytest.raises(ChallengeFixed):
            moved.save()
    challenge.refresh_from_db()
    assert (challenge.date, challenge.game, challenge.seed_int) == (days.today(), "klondike", 11)

    pending = Challenge.objects.create(date=days.today() + dt.timedelta(days=9), game="maria")
    pending.seed = 5  # not ready: a preparer's seed may still come and go
    pending.save()
    pending.published = False  # what the form edits
    pending.save()


def test_a_challenge_is_added_with_its_day_and_game(admin_client: Client) -> None:
    day = days.today() + dt.timedelta(days=20)
    response = admin_client.post(
        reverse("admin:games_challenge_add"),
        {
            "date": str(day),
            "game": "maria",
            "published": "on",
            "verifications-TOTAL_FORMS": "0",
            "verifications-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content
    assert Challenge.objects.get(date=day).status == Challenge.Status.PENDING


# --- actions: their permission, their history -----------------------------------------------------------

ACTIONS = [  # admin, action, the permission it needs, what it changes
    ("challenge", "publish", "change_challenge"),
    ("challenge", "unpublish", "change_challenge"),
    ("challenge", "verify_now", "change_challenge"),
    ("submission", "revalidate", "change_submission"),
    ("submission", "disqualify", "change_submission"),
    ("fairplaycase", "clear", "change_fairplaycase"),
    ("fairplaycase", "disqualify", "change_fairplaycase"),
]


def state() -> list[Any]:
    return [
        list(Challenge.objects.order_by("pk").values_list("published", "status")),
        list(Result.objects.order_by("pk").values_list("held", "disqualified")),
        list(FairPlayCase.objects.order_by("pk").values_list("status", "decided_by")),
        list(Submission.objects.order_by("pk").values_list("validations", "status")),
    ]


@pytest.mark.parametrize(("model", "action", "permission"), ACTIONS)
def test_view_only_staff_get_403_on_every_action_and_staff_with_its_permission_run_it_logged(
    model: str, action: str, permission: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = core_tasks.task  # Verify now only queues: the solver's tasks are sent nowhere
    queued = {"solver_worker.verify_seed", "solver_worker.prepare_challenge"}
    monkeypatch.setattr(core_tasks, "task", lambda name: mock.Mock() if name in queued else real(name))
    case = played()
    fresh = make_challenge(game="lucas", seed=3, day=days.today() - dt.timedelta(days=1))  # ready, unplayed
    if action == "publish":
        Challenge.objects.filter(pk=fresh.pk).update(published=False)
    target = {"challenge": fresh, "submission": case.result.submission, "fairplaycase": case}[model]
    url = reverse(f"admin:games_{model}_changelist")
    post = {"action": action, "_selected_action": [target.pk]}

    viewer, _ = make_staff(f"view_{model}")
    assert viewer.get(url).status_code == 200
    before = state()
    assert viewer.post(url, post).status_code == 403
    assert state() == before and not LogEntry.objects.exists()

    decider, user = make_staff(f"view_{model}", permission)
    assert decider.post(url, post).status_code == 302
    assert state() != before or action == "verify_now"
    assert history(user, target), f"{action} left no history"
    if action == "verify_now":
        assert fresh.verifications.get().requested_by == user  # the seed sent to be proven again


def test_no_add_for_the_rows_the_service_makes(admin_client: Client) -> None:
    for model in ("attempt", "submission", "fairplaycase"):
        assert admin_client.get(reverse(f"admin:games_{model}_add")).status_code == 403
    assert admin_client.get(reverse("admin:reviews_gamereview_add")).status_code == 403
    page = admin_client.get(reverse("admin:games_attempt_changelist")).content.decode()
    assert "Add attempt" not in page


def test_no_delete_leaves_a_result_held(admin_client: Client) -> None:
    case = played(offset=-2)
    assert admin_client.get(reverse("admin:games_fairplaycase_delete", args=[case.pk])).status_code == 403
    url = reverse("admin:games_fairplaycase_changelist")
    assert admin_client.post(url, {"action": "delete_selected", "_selected_action": [case.pk]}).status_code == 403
    assert FairPlayCase.objects.filter(pk=case.pk).exists() and Result.objects.get().held
    # Nor through what holds it: its submission or attempt (each would take the case with it).
    submission = case.result.submission
    for model, pk in (("submission", submission.pk), ("attempt", submission.attempt_id)):
        assert admin_client.post(reverse(f"admin:games_{model}_delete", args=[pk]), {"post": "yes"}).status_code == 403
    assert FairPlayCase.objects.filter(pk=case.pk).exists() and Result.objects.get().held
    # A played challenge is not deleted; one nobody played is.
    challenge = Challenge.objects.get()
    assert admin_client.get(reverse("admin:games_challenge_delete", args=[challenge.pk])).status_code == 403
    unplayed = make_challenge(game="maria", day=days.today() + dt.timedelta(days=4))
    answer = admin_client.post(reverse("admin:games_challenge_delete", args=[unplayed.pk]), {"post": "yes"})
    assert answer.status_code == 302 and not Challenge.objects.filter(pk=unplayed.pk).exists()


# --- the fair-play cases -------------------------------------------------------------------------------


def test_the_fair_play_cases_open_on_the_open_cases_that_hold_a_result(admin_client: Client) -> None:
    holding = played(offset=-1)
    flagged = played(offset=-2, held=False)
    decided = played(offset=-3)
    FairPlayCase.objects.filter(pk=decided.pk).update(status=FairPlayCase.Status.CLEARED)
    url = reverse("admin:games_fairplaycase_changelist")

    def listed(query: str = "") -> set[int]:
        return {r.pk for r in admin_client.get(url + query).context["cl"].result_list}

    assert listed() == {holding.pk}
    assert listed("?queue=flagged") == {flagged.pk}
    assert listed("?queue=open") == {holding.pk, flagged.pk}
    assert listed("?queue=decided") == {decided.pk}
    assert listed("?queue=all") == {holding.pk, flagged.pk, decided.pk}


def test_decisions_on_a_fair_play_case_page_need_the_permission_and_are_logged() -> None:
    case = played()
    url = reverse("admin:games_fairplaycase_change", args=[case.pk])

    viewer, _ = make_staff("view_fairplaycase")
    page = viewer.get(url).content.decode()
    assert page.count('name="_decision"') == 0
    assert viewer.post(url, {"_decision": "clear"}).status_code == 403
    case.refresh_from_db()
    assert case.status == FairPlayCase.Status.OPEN and Result.objects.get().held

    decider, user = make_staff("view_fairplaycase", "change_fairplaycase")
    page = decider.get(url).content.decode()
    assert page.count('name="_decision"') == 2 and "Clear: a person played it" in page
    assert decider.post(url, {"_decision": "clear"}).status_code == 302
    case.refresh_from_db()
    assert case.status == FairPlayCase.Status.CLEARED and case.decided_by == user
    assert not Result.objects.get().held  # on the boards
    assert history(user, case) == [f"Cleared: a person played it (result {case.result_id})."]
    assert decider.post(url, {"_decision": "delete"}).status_code == 403  # only the two decisions


# --- seeds closed to staff without the permission (issue 51, item 3) ----------------------------------

WALK = {  # every admin that shows seeds, solutions or move logs, and what a curious user asks it
    "games_challenge": [
        "",
        "?seed__gt=0",
        "?seed__lt=9999999",
        "?seed=7000",
        "?seed=7001",
        "?date={today}",
        "?date__gte={today}",
        "?date__year={year}",
        "?status__exact=ready",
        "?game__exact=klondike",
        "?q=klondike",
        "?o=1",
        "?o=-1",
        "?_to_field=id&_popup=1",
        "?solution__icontains=s",
    ],
    "games_attempt": [
        "",
        "?challenge__date__gte={today}",
        "?challenge__seed__gt=0",
        "?challenge__id__exact={today_id}",
        "?challenge={today_id}",
        "?moves__icontains=s",
        "?challenge__game=klondike",
        "?q=player",
        "?o=-3",
    ],
    "games_submission": [
        "",
        "?attempt__challenge__seed__gt=0",
        "?attempt__challenge__date={today}",
        "?moves__icontains=s",
        "?status__exact=valid",
        "?q=player",
        "?o=6",
    ],
    "games_fairplaycase": [
        "",
        "?queue=all",
        "?queue=all&result__challenge__seed__gt=0",
        "?queue=all&result__challenge__date={today}",
        "?queue=all&q=Held",
        "?queue=all&o=1",
    ],
    "reviews_gamereview": ["", "?attempt__challenge__seed__gt=0", "?q={today_attempt}", "?o=1"],
}


def challenge_of(row: Any) -> Challenge:
    for path in ("challenge", "attempt.challenge", "result.challenge"):
        obj = row
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            continue
        if isinstance(obj, Challenge):
            return obj
    assert isinstance(row, Challenge)
    return row


def audited(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "dailypatience.audit"]


def test_staff_without_the_permission_find_nothing_of_today_or_tomorrow(caplog: pytest.LogCaptureFixture) -> None:
    past, today, tomorrow = played(offset=-1), played(offset=0), played(offset=1)
    hidden = {today.result.challenge_id, tomorrow.result.challenge_id}
    values = {
        "today": days.today().isoformat(),
        "year": days.today().year,
        "today_id": today.result.challenge_id,
        "today_attempt": today.result.submission.attempt_id,
    }
    perms = [f"view_{m}" for m in ("challenge", "attempt", "submission", "fairplaycase", "seedverification")]
    staff, user = make_staff(*perms)
    from django.contrib.auth.models import Permission

    user.user_permissions.add(Permission.objects.get(codename="view_gamereview", content_type__app_label="reviews"))
    seen: set[int] = set()
    with caplog.at_level("WARNING", logger="dailypatience.audit"):
        for name, queries in WALK.items():
            for query in queries:
                answer = staff.get(reverse(f"admin:{name}_changelist") + query.format(**values))
                assert answer.status_code in (200, 302, 400), (name, query, answer.status_code)
                if answer.status_code == 200:
                    listed = {challenge_of(row).pk for row in answer.context["cl"].result_list}
                    assert not listed & hidden, (name, query)
                    seen |= listed
            for case in (today, tomorrow):  # each row's own page, and its history
                row = {
                    "games_challenge": case.result.challenge,
                    "games_attempt": case.result.submission.attempt,
                    "games_submission": case.result.submission,
                    "games_fairplaycase": case,
                    "reviews_gamereview": GameReview.objects.get(attempt=case.result.submission.attempt),
                }[name]
                for view in ("change", "history"):
                    assert staff.get(reverse(f"admin:{name}_{view}", args=[row.pk])).status_code == 302
    assert seen == {past.result.challenge_id}  # the walk saw the day that is over, and only it
    assert not audited(caplog)

    allowed, user = make_staff(*perms, "view_future_deal")
    with caplog.at_level("WARNING", logger="dailypatience.audit"):
        answer = allowed.get(reverse("admin:games_challenge_changelist") + "?seed__gt=0")
        assert {c.pk for c in answer.context["cl"].result_list} >= hidden
    assert audited(caplog) == [
        f"admin: {user.username} (id {user.pk}) listed challenges of days not over (query: seed__gt=0)"
    ]


def test_every_admin_action_of_ours_declares_its_permission() -> None:
    """A new action without `permissions=` would be open to every staff user who can see the list."""
    from django.contrib import admin as django_admin

    ours = ("games", "habits", "leaderboard", "leagues", "reviews", "auth")
    checked = 0
    for model, model_admin in django_admin.site._registry.items():
        if model._meta.app_label not in ours:
            continue
        for action in model_admin.actions or []:
            function = getattr(model_admin, action) if isinstance(action, str) else action
            permissions = getattr(function, "allowed_permissions", ())
            assert permissions, f"{type(model_admin).__name__}.{action}"
            for permission in permissions:
                assert callable(getattr(model_admin, f"has_{permission}_permission", None)), (action, permission)
            checked += 1
    assert checked >= 8


def test_revalidate_on_a_fair_play_case_page_needs_the_submission_permission_and_is_logged() -> None:
    case = played()
    submission = case.result.submission
    validations = submission.validations
    url = reverse("admin:games_fairplaycase_change", args=[case.pk])

    decider, _ = make_staff("view_fairplaycase", "change_fairplaycase")  # may clear or disqualify, not re-validate
    page = decider.get(url).content.decode()
    assert 'value="revalidate"' not in page and page.count('name="_decision"') == 2
    before = state()
    assert decider.post(url, {"_decision": "revalidate"}).status_code == 403
    assert state() == before and not LogEntry.objects.exists()

    revalidator, user = make_staff("view_fairplaycase", "change_submission")
    page = revalidator.get(url).content.decode()
    assert 'value="revalidate"' in page and 'value="clear"' not in page  # only what it may press
    assert revalidator.post(url, {"_decision": "clear"}).status_code == 403
    response = revalidator.post(url, {"_decision": "revalidate"})
    assert response.status_code == 302
    submission.refresh_from_db()
    assert submission.validations == validations + 1 and submission.status == Submission.Status.VALID
    assert history(user, submission) == [f"Re-validated from fair-play case {case.pk}: valid."]
    # The log holds no implausible pace: the new result has no fair-play case, and the page goes to the list.
    assert not FairPlayCase.objects.exists() and response["Location"] == reverse("admin:games_fairplaycase_changelist")
