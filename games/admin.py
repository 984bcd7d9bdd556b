"""Django admin: schedule, verify and inspect challenges; review submissions."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from games import services
from games.engine import State, card_text, deal
from games.engine.rng import SEED_MAX as _SEED_MAX
from games.errors import Conflict
from games.models import Attempt, Challenge, Result, Submission


class ChallengeForm(forms.ModelForm):
    replace_seed = forms.IntegerField(
        required=False, min_value=0, max_value=_SEED_MAX,
        help_text="A new seed for this challenge: it is published only if the solver proves it winnable.",
    )

    class Meta:
        model = Challenge
        fields = ["date", "game", "published"]


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    form = ChallengeForm
    list_display = ["date", "game", "status", "published", "difficulty", "players", "win_rate", "seeds_tried"]
    list_filter = ["status", "game", "published", "date"]
    date_hierarchy = "date"
    ordering = ["-date", "game"]
    actions = ["verify_now", "publish", "unpublish"]
    readonly_fields = [
        "status", "seed", "difficulty", "solver_status", "solver_nodes", "solver_seconds", "seeds_tried",
        "failure", "solution_steps", "created_at", "updated_at",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Challenge]:
        ranked = Q(results__ranked=True, results__disqualified=False)
        return super().get_queryset(request).annotate(
            _players=Count("results", filter=ranked),
            _won=Count("results", filter=ranked & Q(results__won=True)),
        )

    @admin.display(description="players", ordering="_players")
    def players(self, obj: Any) -> int:
        return int(obj._players)

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

    def save_model(self, request: HttpRequest, obj: Challenge, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        seed = form.cleaned_data.get("replace_seed")
        if seed is not None:
            try:
                checked = services.challenge_verify_seed(challenge_id=obj.pk, seed=seed)
            except Conflict as exc:
                self.message_user(request, exc.message, messages.ERROR)
                return
            level = messages.SUCCESS if checked.status == Challenge.Status.READY else messages.WARNING
            self.message_user(request, f"seed {seed}: {checked.status}. {checked.failure}", level)

    @admin.action(description="Verify now (solve the seed again, or find one)")
    def verify_now(self, request: HttpRequest, queryset: QuerySet[Challenge]) -> None:
        for challenge in queryset:
            if challenge.seed is not None and not challenge.attempts.exists():
                done = services.challenge_verify_seed(challenge_id=challenge.pk, seed=challenge.seed_int)
            else:
                done = services.challenge_prepare(day=challenge.date, game=challenge.game)
            self.message_user(request, f"{done}: {done.status} {done.failure}".strip())

    @admin.action(description="Publish (ready challenges only)")
    def publish(self, request: HttpRequest, queryset: QuerySet[Challenge]) -> None:
        count = queryset.filter(status=Challenge.Status.READY).update(published=True)
        self.message_user(request, f"{count} challenge(s) published; challenges not ready are never published.")

    @admin.action(description="Unpublish")
    def unpublish(self, request: HttpRequest, queryset: QuerySet[Challenge]) -> None:
        self.message_user(request, f"{queryset.update(published=False)} challenge(s) unpublished.")


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["id", "player", "challenge", "ranked", "assisted", "started_at", "finished_at", "length"]
    list_filter = ["ranked", "assisted", "challenge__game"]
    search_fields = ["player__username"]
    raw_id_fields = ["player", "challenge"]
    readonly_fields = ["player", "challenge", "ranked", "moves", "assisted", "started_at", "finished_at"]

    @admin.display(description="moves")
    def length(self, obj: Attempt) -> int:
        return len(obj.moves)


class ResultInline(admin.StackedInline):
    model = Result
    can_delete = False
    extra = 0
    readonly_fields = ["won", "score", "moves", "foundation_cards", "play_time_ms", "ranked", "assisted",
                       "finished_at", "disqualified"]
    exclude = ["player", "challenge"]


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    list_display = ["id", "player", "game", "date", "status", "created_at", "validated_at", "disqualified"]
    list_filter = ["status", "attempt__challenge__game", "attempt__ranked"]
    search_fields = ["attempt__player__username"]
    readonly_fields = ["attempt", "status", "error", "moves", "created_at", "validated_at", "validations"]
    inlines = [ResultInline]
    actions = ["revalidate", "disqualify"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Submission]:
        return super().get_queryset(request).select_related("attempt__player", "attempt__challenge", "result")

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

    @admin.action(description="Re-validate (replay the log again)")
    def revalidate(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        for submission in queryset:
            services.submission_revalidate(submission_id=submission.pk)
        self.message_user(request, f"{queryset.count()} submission(s) re-validated.")

    @admin.action(description="Disqualify (the result leaves the leaderboards)")
    def disqualify(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        count = 0
        for submission in queryset.select_related("result"):
            result = getattr(submission, "result", None)
            if result is not None:
                services.result_disqualify(result_id=result.pk)
                count += 1
        self.message_user(request, f"{count} result(s) disqualified.")
