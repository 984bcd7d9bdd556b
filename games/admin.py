"""Django admin: inspect attempts; check submissions; the fair-play cases of held and flagged results.
And the days' challenges: their seeds proven, their days prepared by the solver worker's tasks (sent by name).

What the admin keeps to (README, "Administration"):

- **Rows of days not over are for the permission only.** A day's seed, solution and the move logs of
  its games give its deal away until the day is over. A staff user without ``games.view_future_deal``
  gets no row of a day not over from any admin that shows them (challenges, attempts, submissions,
  fair-play cases, game reviews): they are left out of the querysets, so no list, lookup (``?seed__gt=``),
  filter, search, ordering or page finds them. A user with the permission sees them, and each such
  view (a page, or a list that holds them) is logged to ``dailypatience.audit`` (warning level).
- **Rows made by the service are not added by hand** (attempts, submissions, results, fair-play cases): no
  "add" in their admins, and no field of theirs is edited in a form.
- **Every action declares its permission** (``@admin.action(permissions=[...])``); an action the user
  may not run answers 403, and each run is logged with its actor (``LogEntry``, the object's history).
- **No key is shown**: API tokens are stored as digests (``games.auth``); their admin lists whose and
  when, and revokes (delete), and never adds. DRF's own token admin (plain keys) is unregistered.
- **No delete leaves a result held**: a fair-play case cannot be deleted (it is decided: cleared or
  disqualified); deleting a submission or an attempt deletes its result with its cases.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Model, Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from core.auth import request_player
from core.errors import ApplicationError
from core.tasks import send
from engine import State, card_text, deal
from engine.rng import SEED_MAX
from games import days
from games.errors import Conflict
from games.models import ApiToken, Attempt, Challenge, FairPlayCase, Result, SeedVerification, Submission
from games.pace import finishing_run_start
from games.selectors import COUNTED, challenge_is_over
from games.services import challenges, fairplay, submissions

audit = logging.getLogger("dailypatience.audit")

FUTURE_DEAL_PERMISSION = "games.view_future_deal"
DECIDE_PERMISSION = "games.change_fairplaycase"  # clear or disqualify a fair-play case
HIDDEN = "hidden until the day is over (permission: can see the seed and solution of a day not over)"


def may_see_deal(request: HttpRequest, challenge: Challenge | None) -> bool:
    """What gives a day's deal away (seed, solution, move logs): anyone once the day is over, else the permission."""
    return challenge is None or challenge_is_over(challenge=challenge) or request.user.has_perm(FUTURE_DEAL_PERMISSION)


def log_future_view(request: HttpRequest, challenge: Challenge | None, what: str) -> None:
    """Logged when the page shows ``what`` of a day not over (to a user with the permission)."""
    if challenge is not None and not challenge_is_over(challenge=challenge) and may_see_deal(request, challenge):
        audit.warning(
            "admin: %s (id %s) saw %s of %s %s, a day not over",
            request.user.get_username(),
            request.user.pk,
            what,
            challenge.game,
            challenge.date,
        )


_M = TypeVar("_M", bound=Model)  # the model an admin below lists


class ServiceAdmin(admin.ModelAdmin[_M]):
    """The rules above, for an admin whose rows belong to a challenge (``day_field``: the path of its
    date from the row, e.g. ``challenge__date``)."""

    day_field = "challenge__date"

    def get_queryset(self, request: HttpRequest) -> QuerySet[_M]:
        queryset = super().get_queryset(request)
        if request.user.has_perm(FUTURE_DEAL_PERMISSION):
            return queryset
        return queryset.filter(**{f"{self.day_field}__lt": days.today()})  # only days that are over

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        if request.method == "POST" and "action" in request.POST:
            # Django answers an action the user may not run with "No action selected": say it plainly.
            if request.POST["action"] not in self.get_actions(request):
                raise PermissionDenied
        elif request.user.has_perm(FUTURE_DEAL_PERMISSION):
            self._log_future_listing(request)
        return super().changelist_view(request, extra_context)

    def _log_future_listing(self, request: HttpRequest) -> None:
        """A list that holds rows of days not over (shown to a user with the permission) is logged, with its query."""
        if super().get_queryset(request).filter(**{f"{self.day_field}__gte": days.today()}).exists():
            audit.warning(
                "admin: %s (id %s) listed %s of days not over (query: %s)",
                request.user.get_username(),
                request.user.pk,
                self.model._meta.verbose_name_plural,
                request.GET.urlencode() or "-",
            )

    def log_done(self, request: HttpRequest, obj: Any, message: str) -> None:
        """An action's run on one row, with its actor, in the row's history (LogEntry)."""
        self.log_change(request, obj, message)


class HidesFutureMoves(ServiceAdmin[_M]):
    """The read-only field ``moves_field`` (a move log), shown as the deal is (``challenge_of`` names the
    row's challenge): to anyone once its day is over, before that only with the permission."""

    moves_field = "moves"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the service makes these rows

    def challenge_of(self, obj: Any) -> Challenge:
        raise NotImplementedError

    def _hides(self, request: HttpRequest, obj: Any) -> bool:
        return obj is not None and not may_see_deal(request, self.challenge_of(obj))

    def _swap(self, fields: Any) -> list[str]:
        return list(dict.fromkeys("moves_hidden" if f == self.moves_field else f for f in fields))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(self.readonly_fields)
        return self._swap(fields) if self._hides(request, obj) else fields

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """Without the log in the form either (a view-only user sees every form field read-only)."""
        fields = list(super().get_fields(request, obj))
        return self._swap(fields) if self._hides(request, obj) else fields

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None) -> Any:
        obj = self.get_object(request, object_id)
        if obj is not None:
            log_future_view(request, self.challenge_of(obj), f"the moves of {obj._meta.verbose_name} {obj.pk}")
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description="moves")
    def moves_hidden(self, obj: Any) -> str:
        return HIDDEN


# -- challenges: the days' deals -------------------------------------------------------------------------
# Schedule, verify and inspect challenges. A challenge's date and game are its identity: set when it is
# added, never changed (read only here, refused by the model). Its seed changes only through a solver task
# that proves the new one, and only while nobody has played it; a played challenge cannot be deleted. The
# seed and solution of a day not over are for FUTURE_DEAL_PERMISSION only (ServiceAdmin, may_see_deal).
# The solver worker (an app above this one) proves seeds and prepares days: its tasks are sent by name.

PREPARE_TASK = "solver_worker.prepare_challenge"


class ChallengeForm(forms.ModelForm[Challenge]):
    replace_seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=SEED_MAX,
        help_text="A new seed for this challenge: a solver task checks it (see Seed verifications below); "
        "it replaces the current seed only if proven winnable, and only while nobody has played.",
    )

    class Meta:
        model = Challenge
        fields = ["date", "game", "published"]


class SeedVerificationInline(admin.TabularInline[SeedVerification, Challenge]):
    """Each verification an admin asked for, with the solver task's status (reload the page to follow it)."""

    model = SeedVerification
    extra = 0
    can_delete = False
    fields = readonly_fields = ("seed", "status", "message", "requested_by", "created_at", "started_at", "finished_at")
    ordering = ["-created_at"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Challenge)
class ChallengeAdmin(ServiceAdmin[Challenge]):
    form = ChallengeForm
    day_field = "date"
    list_display = [
        "date",
        "game",
        "status",
        "published",
        "difficulty",
        "players",
        "win_rate",
        "seeds_tried",
        "skipped",
        "verification",
        "claim",
    ]
    list_filter = ["status", "game", "published", "date"]
    date_hierarchy = "date"
    ordering = ["-date", "game"]
    actions = ["verify_now", "release_claim", "publish", "unpublish"]
    inlines = [SeedVerificationInline]
    readonly_fields = [
        "status",
        "claim",
        "seed",
        "difficulty",
        "solver_status",
        "solver_nodes",
        "solver_seconds",
        "seeds_tried",
        "seeds_lost",
        "seeds_unknown",
        "failure",
        "solution_steps",
        "created_at",
        "updated_at",
    ]

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> Any:
        """Above the list: per game, how many days from today are ready (what beat keeps at PREPARE_AHEAD_DAYS
        + 1; the metric dailypatience_days_prepared_ahead). Counts only: no seed, so for every staff user."""
        count = settings.PREPARE_AHEAD_DAYS + 1
        ahead = challenges.days_prepared_ahead(first=days.today(), count=count)
        summary = {"days_ahead": sorted(ahead.items()), "days_wanted": count}
        return super().changelist_view(request, {**(extra_context or {}), **summary})

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = list(self.readonly_fields) if obj is None else ["date", "game", *self.readonly_fields]
        if may_see_deal(request, obj):
            return fields
        return [{"seed": "seed_hidden", "solution_steps": "solution_hidden"}.get(f, f) for f in fields]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """Adding: the day and the game (a preparer proves a seed for them). Then they are read only."""
        fields = list(super().get_fields(request, obj))
        return ["date", "game", "published"] if obj is None else fields

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """A played challenge stays: its attempts, results and reviews hang on it."""
        if obj is not None and obj.attempts.exists():
            return False
        return super().has_delete_permission(request, obj)

    def get_actions(self, request: HttpRequest) -> Any:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)  # deleting one by one, on its page, where a played one is refused
        return actions

    def get_inline_instances(self, request: HttpRequest, obj: Any = None) -> list[Any]:
        """The verifications name seeds (each row's title too): shown as the seed is."""
        return super().get_inline_instances(request, obj) if may_see_deal(request, obj) else []

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None) -> Any:
        log_future_view(request, self.get_object(request, object_id), "the seed and solution")
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.display(description="seed")
    def seed_hidden(self, obj: Challenge) -> str:
        return HIDDEN

    @admin.display(description="solution, move by move")
    def solution_hidden(self, obj: Challenge) -> str:
        return HIDDEN

    def get_queryset(self, request: HttpRequest) -> QuerySet[Challenge]:
        ranked = COUNTED  # the results that count, as on the boards
        return (
            super()
            .get_queryset(request)
            .annotate(
                _players=Count("results", filter=ranked),
                _won=Count("results", filter=ranked & Q(results__won=True)),
            )
        )

    @admin.display(description="players", ordering="_players")
    def players(self, obj: Any) -> int:
        return int(obj._players)

    @admin.display(description="skipped (lost / unknown)")
    def skipped(self, obj: Challenge) -> str:
        """Seeds passed over before the published one: proven lost, or left undecided by the solver."""
        return f"{obj.seeds_lost} / {obj.seeds_unknown}"

    @admin.display(description="win rate")
    def win_rate(self, obj: Any) -> str:
        return f"{100 * obj._won / obj._players:.0f}%" if obj._players else "-"

    @admin.display(description="solution, move by move")
    def solution_steps(self, obj: Challenge) -> str:
        if not obj.solution or obj.seed is None:
            return "-"
        state = State(deal(obj.game, obj.seed_int))
        rows = []
        for i, text in enumerate(obj.solution, 1):
            state.play_text(text)
            waste = card_text(state.waste[-1]) if state.waste else ""
            rows.append((i, text, state.score, state.on_foundations, waste))
        body = format_html_join(
            "", "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>", rows
        )
        return format_html(
            "<table><thead><tr><th>#</th><th>move</th><th>score</th><th>on foundations</th><th>waste top</th>"
            "</tr></thead><tbody>{}</tbody></table>",
            body,
        )

    @admin.display(description="preparer's claim")
    def claim(self, obj: Challenge) -> str:
        """While it is being prepared: who holds it and since when it made no progress (a dead worker's claim
        is taken over after PREPARE_LEASE, or released at once by the action)."""
        claim = challenges.challenge_claim(challenge=obj)
        return "-" if claim is None else str(claim)

    @admin.display(description="last verification")
    def verification(self, obj: Challenge) -> str:
        last = obj.verifications.order_by("-created_at").first()
        if last is None:
            return "-"
        return (
            f"{last.seed}: {last.status}" if challenge_is_over(challenge=obj) else str(last.status)
        )  # the list: no seed

    def save_model(self, request: HttpRequest, obj: Challenge, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        seed = form.cleaned_data.get("replace_seed")
        if seed is not None:
            self._request_verification(request, obj, seed)

    def _request_verification(self, request: HttpRequest, challenge: Challenge, seed: int) -> None:
        try:
            challenges.seed_verification_request(
                challenge_id=challenge.pk, seed=seed, requested_by=request_player(request)
            )
        except Conflict as exc:
            self.message_user(request, f"{challenge}: {exc.message}", messages.ERROR)
            return
        self.message_user(
            request,
            f"{challenge}: seed {seed} sent to the solver; its status is under "
            "Seed verifications on the challenge's page.",
            messages.INFO,
        )

    @admin.action(
        description="Verify now (a solver task proves the seed again, or prepares the day)", permissions=["change"]
    )
    def verify_now(self, request: HttpRequest, queryset: QuerySet[Challenge]) -> None:
        """Says what it did for each: a seed sent to be proven, a preparation sent, or why nothing was sent."""
        for challenge in queryset:
            claim = challenges.challenge_claim(challenge=challenge)
            if claim is not None and not claim.abandoned:
                self.message_user(
                    request,
                    f"{challenge}: nothing sent: it is being prepared ({claim}). If that worker is gone, "
                    "release its claim (action), then Verify now again.",
                    messages.WARNING,
                )
            elif challenge.seed is not None and not challenge.attempts.exists():
                self._request_verification(request, challenge, challenge.seed_int)
                self.log_done(request, challenge, "Verify now: its seed sent to the solver to be proven again.")
            elif challenge.status != Challenge.Status.READY:
                taken = f" (the abandoned claim, {claim}, is taken over)" if claim is not None else ""
                if not send(PREPARE_TASK, args=(challenge.date.isoformat(), challenge.game)):
                    self.message_user(  # the broker is down: say so, nothing was sent
                        request, f"{challenge}: not sent, the broker is unreachable: try again.", messages.ERROR
                    )
                    continue
                challenge.refresh_from_db()
                self.message_user(
                    request,
                    f"{challenge}: preparation sent to the solver queue{taken}; it is {challenge.status} now.",
                )
                self.log_done(request, challenge, f"Verify now: preparation sent{taken}.")
            else:
                self.message_user(request, f"{challenge}: already played, its seed stays.", messages.WARNING)

    @admin.action(
        description="Release the preparer's claim (its worker died: prepared again by the next round)",
        permissions=["change"],
    )
    def release_claim(self, request: HttpRequest, queryset: QuerySet[Challenge]) -> None:
        for challenge in queryset:
            claim = challenges.challenge_claim(challenge=challenge)
            if claim is None or not challenges.challenge_claim_release(challenge_id=challenge.pk):
                self.message_user(request, f"{challenge}: not being prepared, no claim to release.", messages.WARNING)
                continue
            self.log_done(request, challenge, f"Released the preparer's claim ({claim}).")
            self.message_user(
                request, f"{challenge}: claim released ({claim}); it is pending: Verify now prepares it at once."
            )

    @admin.action(description="Publish (ready challenges only)", permissions=["change"])
    def publish(self, request: HttpRequest, queryset: QuerySet[Challenge]) -> None:
        count = 0
        for challenge in queryset.filter(status=Challenge.Status.READY, published=False):
            Challenge.objects.filter(pk=challenge.pk).update(published=True)
            self.log_done(request, challenge, "Published.")
            count += 1
        self.message_user(request, f"{count} challenge(s) published; challenges not ready are never published.")

    @admin.action(description="Unpublish", permissions=["change"])
    def unpublish(self, request: HttpRequest, queryset: QuerySet[Challenge]) -> None:
        count = 0
        for challenge in queryset.filter(published=True):
            Challenge.objects.filter(pk=challenge.pk).update(published=False)
            self.log_done(request, challenge, "Unpublished.")
            count += 1
        self.message_user(request, f"{count} challenge(s) unpublished.")


# -- attempts, submissions, the review queue ----------------------------------------------------------------


@admin.register(Attempt)
class AttemptAdmin(HidesFutureMoves[Attempt]):
    list_display = ["id", "player", "challenge", "ranked", "assisted", "started_at", "finished_at", "length"]
    list_filter = ["ranked", "assisted", "challenge__game"]
    search_fields = ["player__username"]
    raw_id_fields = ["player", "challenge"]
    readonly_fields = [
        "player",
        "challenge",
        "ranked",
        "moves",
        "assisted",
        "started_at",
        "finished_at",
        "batches",
        "origin",
        "browser",
    ]

    @admin.display(description="moves")
    def length(self, obj: Attempt) -> int:
        return len(obj.moves)

    def challenge_of(self, obj: Attempt) -> Challenge:
        return obj.challenge

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the server's log of a game: read only


class ResultInline(admin.StackedInline[Result, Submission]):
    model = Result
    can_delete = False
    extra = 0
    readonly_fields = [
        "won",
        "score",
        "moves",
        "foundation_cards",
        "play_time_ms",
        "ranked",
        "assisted",
        "finished_at",
        "disqualified",
        "held",
    ]
    exclude = ["player", "challenge"]


@admin.register(Submission)
class SubmissionAdmin(HidesFutureMoves[Submission]):
    list_display = ["id", "player", "game", "date", "status", "created_at", "validated_at", "disqualified"]
    list_filter = ["status", "attempt__challenge__game", "attempt__ranked"]
    search_fields = ["attempt__player__username"]
    readonly_fields = ["attempt", "status", "error", "moves", "created_at", "validated_at", "validations"]
    inlines = [ResultInline]
    actions = ["revalidate", "disqualify"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Submission]:
        return super().get_queryset(request).select_related("attempt__player", "attempt__challenge", "result")

    day_field = "attempt__challenge__date"

    def challenge_of(self, obj: Submission) -> Challenge:
        return obj.attempt.challenge

    @admin.display(description="player")
    def player(self, obj: Submission) -> str:
        return str(obj.attempt.player)

    @admin.display(description="game")
    def game(self, obj: Submission) -> str:
        return obj.attempt.challenge.game

    @admin.display(description="date")
    def date(self, obj: Submission) -> Any:
        return obj.attempt.challenge.date

    @admin.display(description="disqualified", boolean=True)
    def disqualified(self, obj: Submission) -> bool | None:
        result = getattr(obj, "result", None)
        return None if result is None else result.disqualified

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # the player's log and the worker's verdict: read only; decisions are the actions

    def has_decide_permission(self, request: HttpRequest) -> bool:
        """Re-validating and disqualifying: the model's change permission (its form stays read only)."""
        return request.user.has_perm("games.change_submission")

    @admin.action(description="Re-validate (replay the log again)", permissions=["decide"])
    def revalidate(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        count = 0
        for submission in queryset:
            done = submissions.submission_revalidate(submission_id=submission.pk)
            self.log_done(request, done, f"Re-validated: {done.status}.")
            count += 1
        self.message_user(request, f"{count} submission(s) re-validated.")

    @admin.action(description="Disqualify (the result leaves the leaderboards)", permissions=["decide"])
    def disqualify(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        count = 0
        for submission in queryset.select_related("result"):
            result = getattr(submission, "result", None)
            if result is not None:
                submissions.result_disqualify(result_id=result.pk)
                self.log_done(request, submission, f"Disqualified its result {result.pk}.")
                count += 1
        self.message_user(request, f"{count} result(s) disqualified.")


class QueueFilter(admin.SimpleListFilter):
    """The fair-play cases open on what waits for staff: open cases that hold a result off the boards."""

    title = "queue"
    parameter_name = "queue"
    DEFAULT = "holding"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            ("holding", "open, holding a result"),
            ("flagged", "open, flagged only"),
            ("open", "open"),
            ("decided", "decided"),
            ("all", "all"),
        ]

    def value(self) -> str:
        return str(super().value() or self.DEFAULT)

    def choices(self, changelist: Any) -> Any:
        for lookup, title in self.lookup_choices:
            yield {
                "selected": self.value() == lookup,
                "query_string": changelist.get_query_string({self.parameter_name: lookup}),
                "display": title,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        is_open = Q(status=FairPlayCase.Status.OPEN)
        wanted = {
            "holding": is_open & Q(holds=True),
            "flagged": is_open & Q(holds=False),
            "open": is_open,
            "decided": ~is_open,
        }.get(self.value())
        return queryset if wanted is None else queryset.filter(wanted)


FAIR_PLAY_CASE_FIELDS: list[str] = [
    "status",
    "kind",
    "holds",
    "reason",
    "players",
    "others",
    "created_at",
    "decided_by",
    "decided_at",
    "outcome",
    "timings",
    "log",
    "history",
]


@admin.register(FairPlayCase)
class FairPlayCaseAdmin(HidesFutureMoves[FairPlayCase]):
    """The fair-play cases, newest first: why, the log, the server's receipt of each batch, the player's
    history; actions clear (a held result goes on the boards) or disqualify, recorded with who and when."""

    list_display = [
        "created_at",
        "status",
        "kind",
        "player",
        "game",
        "date",
        "holds",
        "players",
        "short_reason",
        "decided_by",
        "decided_at",
    ]
    list_filter = [QueueFilter, "kind", "result__challenge__game"]
    search_fields = ["result__player__username", "reason"]
    ordering = ["-created_at", "-id"]
    actions = ["clear", "disqualify"]
    day_field = "result__challenge__date"
    fields = list(FAIR_PLAY_CASE_FIELDS)
    readonly_fields = FAIR_PLAY_CASE_FIELDS

    def get_queryset(self, request: HttpRequest) -> QuerySet[FairPlayCase]:
        return (
            super()
            .get_queryset(request)
            .select_related("result__player", "result__challenge", "result__submission__attempt", "decided_by")
        )

    moves_field = "log"  # a held game of a day not over may be that day's winning line

    def challenge_of(self, obj: FairPlayCase) -> Challenge:
        return obj.result.challenge

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # decisions go through the actions and the page's buttons, which record who and when

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # a deleted open case would leave its result held for good: decide it instead

    def has_decide_permission(self, request: HttpRequest) -> bool:
        """Clearing and disqualifying: the model's change permission (the case's form stays read only)."""
        return request.user.has_perm(DECIDE_PERMISSION)

    def change_view(self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None) -> Any:
        """The case's page, with the decision buttons the user may press (each its permission; posted back here)."""
        if request.method == "POST" and "_decision" in request.POST:
            return self._decide_from_page(request, object_id)
        buttons = [(name, d.button) for name, d in DECISIONS.items() if request.user.has_perm(d.permission)]
        context = {**(extra_context or {}), "decisions": buttons}
        return super().change_view(request, object_id, form_url, context)

    def _decide_from_page(self, request: HttpRequest, object_id: str) -> HttpResponse:
        decision = DECISIONS.get(request.POST["_decision"])
        if decision is None or not request.user.has_perm(decision.permission):
            raise PermissionDenied
        case = self.get_object(request, object_id)
        if case is None:  # not there, or of a day not over for a user without the permission
            raise Http404
        if decision is REVALIDATE:
            return self._revalidate(request, case)
        self._decide(request, case, request.POST["_decision"])
        return HttpResponseRedirect(request.path)

    def _revalidate(self, request: HttpRequest, case: FairPlayCase) -> HttpResponse:
        """The result's log replayed again (``submissions.submission_revalidate``): the result, and the
        fair-play cases it holds or anchors, are made anew (staff's decisions carried over). Logged on the
        submission and on the new case, which the page goes on to; to the list when there is none."""
        submission_id, kind, holds = case.result.submission_id, case.kind, case.holds
        done = submissions.submission_revalidate(submission_id=submission_id)
        self.log_done(request, done, f"Re-validated from fair-play case {case.pk}: {done.status}.")
        new = FairPlayCase.objects.filter(result__submission_id=submission_id, kind=kind, holds=holds).first()
        if new is None:
            self.message_user(request, f"Re-validated: {done.status}; the result no longer has this fair-play case.")
            return HttpResponseRedirect(reverse("admin:games_fairplaycase_changelist"))
        self.log_done(request, new, f"Re-validated its submission {submission_id}: {done.status}.")
        self.message_user(request, f"Re-validated: {done.status}.")
        return HttpResponseRedirect(reverse("admin:games_fairplaycase_change", args=[new.pk]))

    def _decide(self, request: HttpRequest, case: FairPlayCase, decision: str) -> bool:
        service, done = DECISIONS[decision].service, DECISIONS[decision].done
        assert service is not None
        try:
            service(case_id=case.pk, staff=request_player(request))
        except ApplicationError as exc:
            self.message_user(request, f"{case}: {exc}", messages.WARNING)
            return False
        self.log_done(request, case, f"{done} (result {case.result_id}).")
        return True

    @admin.display(description="player")
    def player(self, obj: FairPlayCase) -> str:
        return str(obj.result.player)

    @admin.display(description="game")
    def game(self, obj: FairPlayCase) -> str:
        return obj.result.challenge.game

    @admin.display(description="date")
    def date(self, obj: FairPlayCase) -> Any:
        return obj.result.challenge.date

    @admin.display(description="reason")
    def short_reason(self, obj: FairPlayCase) -> str:
        return obj.reason if len(obj.reason) <= 90 else obj.reason[:89] + "…"

    @admin.display(description="result")
    def outcome(self, obj: FairPlayCase) -> str:
        r = obj.result
        return (
            f"{'won' if r.won else 'not won'}, score {r.score}, {r.moves} moves, "
            f"{r.play_time_ms / 1000:.2f} s; held: {r.held}; disqualified: {r.disqualified}"
        )

    @admin.display(description="batches as the server received them (s after the start: moves)")
    def timings(self, obj: FairPlayCase) -> str:
        batches = obj.result.submission.attempt.batches
        return ", ".join(f"{at / 1000:.2f}: {n}" for at, n in batches) or "(none recorded)"

    @admin.display(description="the log (the finishing run onto the foundations after |)")
    def log(self, obj: FairPlayCase) -> str:
        moves = obj.result.submission.moves
        cut = finishing_run_start(moves)
        return " ".join(moves[:cut]) + (" | " + " ".join(moves[cut:]) if cut < len(moves) else "")

    @admin.display(description="the player's latest results")
    def history(self, obj: FairPlayCase) -> str:
        rows = fairplay.player_history(player_id=obj.result.player_id)
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                "<li>{} {}: {}, score {}, {} moves, {} s{}</li>",
                (
                    (
                        r.challenge.date,
                        r.challenge.game,
                        "won" if r.won else "not won",
                        r.score,
                        r.moves,
                        f"{r.play_time_ms / 1000:.2f}",
                        " (held)"
                        if r.held
                        else " (disqualified)"
                        if r.disqualified
                        else ""
                        if r.ranked
                        else " (practice)",
                    )
                    for r in rows
                ),
            ),
        )

    @admin.action(description="Clear (a person played it: a held result goes on the boards)", permissions=["decide"])
    def clear(self, request: HttpRequest, queryset: QuerySet[FairPlayCase]) -> None:
        done = sum(self._decide(request, case, "clear") for case in queryset)
        self.message_user(request, f"{done} fair-play case(s) cleared.")

    @admin.action(description="Disqualify (the result leaves every board for good)", permissions=["decide"])
    def disqualify(self, request: HttpRequest, queryset: QuerySet[FairPlayCase]) -> None:
        done = sum(self._decide(request, case, "disqualify") for case in queryset)
        self.message_user(request, f"{done} result(s) disqualified.")


@dataclass(frozen=True)
class Decision:
    """A button of a fair-play case's page: its service, what the history says, and the permission it needs."""

    button: str
    permission: str
    service: Callable[..., Any] | None = None  # (case_id, staff); None: the page's own (re-validate)
    done: str = ""


REVALIDATE = Decision(button="Re-validate: replay the log again", permission="games.change_submission")
DECISIONS = {  # a case page's buttons (clear and disqualify also the list's actions)
    "clear": Decision(
        button="Clear: a person played it",
        permission=DECIDE_PERMISSION,
        service=fairplay.fair_play_case_clear,
        done="Cleared: a person played it",
    ),
    "disqualify": Decision(
        button="Disqualify the result",
        permission=DECIDE_PERMISSION,
        service=fairplay.fair_play_case_disqualify,
        done="Disqualified the result",
    ),
    "revalidate": REVALIDATE,
}


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    """Whose tokens, and since when; deleting one revokes it (``games.auth``: every cache drops it at once,
    another process's copy within its seconds). The key was shown once, to the client: nothing here has it."""

    list_display = ["user", "created", "expires"]
    list_select_related = ["user"]
    search_fields = ["user__username"]
    ordering = ["-created"]
    fields = ["user", "created", "expires"]
    readonly_fields = ["user", "created", "expires"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # made by a registration or a login, whose answer alone shows the key

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="expires")
    def expires(self, obj: ApiToken) -> Any:
        return obj.created + dt.timedelta(days=settings.API_TOKEN_DAYS)


def _unregister_plain_tokens() -> None:
    """DRF's token admin lists keys in plain text (its table is emptied by migration games 0014)."""
    from rest_framework.authtoken.models import TokenProxy

    if admin.site.is_registered(TokenProxy):
        admin.site.unregister(TokenProxy)


_unregister_plain_tokens()
