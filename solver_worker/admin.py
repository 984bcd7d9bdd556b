"""Django admin for the days' deals: schedule, verify and inspect challenges.

The challenge's page is here, with the app whose workers prepare and verify deals, because its actions
send those workers' tasks (a seed to prove, a day to prepare).

A day's seed and solution give its deal away: the admin shows them once the day is over (as the API
does), and before only to a user with the permission ``games.view_future_deal`` (a superuser has
every permission): without it, the rows of days not over are in no list or page at all; with it,
each such view is logged (logger ``dailypatience.audit``, warning level). See games.admin.

A challenge's date and game are its identity: set when it is added, never changed (read only here,
refused by the model). Its seed changes only through a solver task that proves the new one, and
only while nobody has played it; a played challenge cannot be deleted.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from core.auth import request_player
from core.tasks import send
from engine import State, card_text, deal
from engine.rng import SEED_MAX as _SEED_MAX
from games import days
from games.admin import HIDDEN, ServiceAdmin, log_future_view, may_see_deal
from games.errors import Conflict
from games.models import Challenge, SeedVerification
from games.selectors import COUNTED, challenge_is_over
from solver_worker import services
from solver_worker.models import GameReview


class ChallengeForm(forms.ModelForm[Challenge]):
    replace_seed = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=_SEED_MAX,
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
        ahead = services.days_prepared_ahead(first=days.today(), count=count)
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
        claim = services.challenge_claim(obj)
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
            services.seed_verification_request(
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
            claim = services.challenge_claim(challenge)
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
                if not send("solver_worker.prepare_challenge", args=(challenge.date.isoformat(), challenge.game)):
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
            claim = services.challenge_claim(challenge)
            if claim is None or not services.challenge_claim_release(challenge_id=challenge.pk):
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


@admin.register(GameReview)
class GameReviewAdmin(ServiceAdmin[GameReview]):
    """Reviews as the solver made them: read only (a review is remade by deleting its row)."""

    list_display = ["attempt", "status", "outcome", "winnable_after", "lost_after", "tries", "seconds", "finished_at"]
    list_filter = ["status", "outcome"]
    search_fields = ["attempt__id", "attempt__player__username"]
    day_field = "attempt__challenge__date"
    readonly_fields = [
        "attempt",
        "status",
        "outcome",
        "winnable_after",
        "lost_after",
        "data",
        "tries",
        "seconds",
        "error",
        "created_at",
        "started_at",
        "finished_at",
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
