"""Django admin: inspect attempts; review submissions. (Challenges are the solver worker's: solver_worker.admin.)"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from games.models import Attempt, Result, Submission
from games.services import submissions


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
            submissions.submission_revalidate(submission_id=submission.pk)
        self.message_user(request, f"{queryset.count()} submission(s) re-validated.")

    @admin.action(description="Disqualify (the result leaves the leaderboards)")
    def disqualify(self, request: HttpRequest, queryset: QuerySet[Submission]) -> None:
        count = 0
        for submission in queryset.select_related("result"):
            result = getattr(submission, "result", None)
            if result is not None:
                submissions.result_disqualify(result_id=result.pk)
                count += 1
        self.message_user(request, f"{count} result(s) disqualified.")
