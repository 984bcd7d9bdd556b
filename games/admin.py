"""Django admin: inspect attempts; review submissions; the review queue of held and flagged results.
(Challenges are the solver worker's: solver_worker.admin.)"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from core.errors import ApplicationError
from games.models import Attempt, Result, Review, Submission
from games.pace import finishing_run_start
from games.services import reviews, submissions


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["id", "player", "challenge", "ranked", "assisted", "started_at", "finished_at", "length"]
    list_filter = ["ranked", "assisted", "challenge__game"]
    search_fields = ["player__username"]
    raw_id_fields = ["player", "challenge"]
    readonly_fields = ["player", "challenge", "ranked", "moves", "assisted", "started_at", "finished_at", "batches",
                       "origin", "browser"]

    @admin.display(description="moves")
    def length(self, obj: Attempt) -> int:
        return len(obj.moves)


class ResultInline(admin.StackedInline):
    model = Result
    can_delete = False
    extra = 0
    readonly_fields = ["won", "score", "moves", "foundation_cards", "play_time_ms", "ranked", "assisted",
                       "finished_at", "disqualified", "held"]
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


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    """The review queue, newest first: why, the log, the server's receipt of each batch, the player's
    history; actions clear (a held result goes on the boards) or disqualify, recorded with who and when."""

    list_display = ["created_at", "status", "kind", "player", "game", "date", "holds", "short_reason", "decided_by",
                    "decided_at"]
    list_filter = ["status", "kind", "holds", "result__challenge__game"]
    search_fields = ["result__player__username", "reason"]
    ordering = ["-created_at", "-id"]
    actions = ["clear", "disqualify"]
    fields = ["status", "kind", "holds", "reason", "others", "created_at", "decided_by", "decided_at", "outcome",
              "timings", "log", "history"]
    readonly_fields = fields

    def get_queryset(self, request: HttpRequest) -> QuerySet[Review]:
        return super().get_queryset(request).select_related(
            "result__player", "result__challenge", "result__submission__attempt", "decided_by"
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # decisions go through the actions, which record who and when

    @admin.display(description="player")
    def player(self, obj: Review) -> str:
        return str(obj.result.player)

    @admin.display(description="game")
    def game(self, obj: Review) -> str:
        return obj.result.challenge.game

    @admin.display(description="date")
    def date(self, obj: Review) -> Any:
        return obj.result.challenge.date

    @admin.display(description="reason")
    def short_reason(self, obj: Review) -> str:
        return obj.reason if len(obj.reason) <= 90 else obj.reason[:89] + "…"

    @admin.display(description="result")
    def outcome(self, obj: Review) -> str:
        r = obj.result
        return (f"{'won' if r.won else 'not won'}, score {r.score}, {r.moves} moves, "
                f"{r.play_time_ms / 1000:.2f} s; held: {r.held}; disqualified: {r.disqualified}")

    @admin.display(description="batches as the server received them (s after the start: moves)")
    def timings(self, obj: Review) -> str:
        batches = obj.result.submission.attempt.batches
        return ", ".join(f"{at / 1000:.2f}: {n}" for at, n in batches) or "(none recorded)"

    @admin.display(description="the log (the finishing run onto the foundations after |)")
    def log(self, obj: Review) -> str:
        moves = obj.result.submission.moves
        cut = finishing_run_start(moves)
        return " ".join(moves[:cut]) + (" | " + " ".join(moves[cut:]) if cut < len(moves) else "")

    @admin.display(description="the player's latest results")
    def history(self, obj: Review) -> str:
        rows = reviews.player_history(player_id=obj.result.player_id)
        return format_html("<ul>{}</ul>", format_html_join(
            "", "<li>{} {}: {}, score {}, {} moves, {} s{}</li>",
            ((r.challenge.date, r.challenge.game, "won" if r.won else "not won", r.score, r.moves,
              f"{r.play_time_ms / 1000:.2f}",
              " (held)" if r.held else " (disqualified)" if r.disqualified else "" if r.ranked else " (practice)")
             for r in rows),
        ))

    @admin.action(description="Clear (a person played it: a held result goes on the boards)")
    def clear(self, request: HttpRequest, queryset: QuerySet[Review]) -> None:
        done = 0
        for review in queryset:
            try:
                reviews.review_clear(review_id=review.pk, staff=request.user)
                done += 1
            except ApplicationError as exc:
                self.message_user(request, str(exc), level="warning")
        self.message_user(request, f"{done} review(s) cleared.")

    @admin.action(description="Disqualify (the result leaves every board for good)")
    def disqualify(self, request: HttpRequest, queryset: QuerySet[Review]) -> None:
        for review in queryset:
            reviews.review_disqualify(review_id=review.pk, staff=request.user)
        self.message_user(request, f"{queryset.count()} result(s) disqualified.")
