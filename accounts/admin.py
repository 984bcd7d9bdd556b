"""The player admin, in place of Django's stock user admin: a player's results inline, the fair-play
cases (holds and flags) of their results and those naming them, filters for guests and bans, and the ban actions.

- **Ban / Lift the ban** (``games.ban_player``, "Can ban and unban players"): ``accounts.services``;
  each run is logged with its actor in the player's history (LogEntry). Staff without the permission
  are not offered the actions, and a forged POST of one answers 403.
- **Delete** (Django's ``auth.delete_user``, the change page's button and the list's action) goes
  through ``accounts.services.player_delete``: the boards (PostgreSQL and Redis), other players'
  fair-play cases and the player's leagues are handled, never a bare cascade.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.models import User
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts import services
from core.errors import ApplicationError
from games.models import FairPlayCase, Result

BAN_PERMISSION = "games.ban_player"


class BanActionForm(ActionForm):
    reason = forms.CharField(
        required=False, max_length=500, label="Reason (for a ban; shown to the player)", widget=forms.TextInput()
    )


class GuestFilter(admin.SimpleListFilter):
    title = "guest"
    parameter_name = "guest"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Guests"), ("no", "Accounts")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        if self.value() == "yes":
            return queryset.filter(guest__isnull=False)
        if self.value() == "no":
            return queryset.filter(guest__isnull=True)
        return queryset


class BannedFilter(admin.SimpleListFilter):
    title = "banned"
    parameter_name = "banned"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Banned"), ("no", "Not banned")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        if self.value() == "yes":
            return queryset.filter(ban__isnull=False)
        if self.value() == "no":
            return queryset.filter(ban__isnull=True)
        return queryset


class ResultInline(admin.TabularInline[Result, User]):
    """The player's results, newest first: read here, decided in the fair-play cases."""

    model = Result
    fk_name = "player"
    extra = 0
    max_num = 0
    can_delete = False
    show_change_link = False
    ordering = ["-finished_at"]
    readonly_fields = fields = (
        "challenge",
        "ranked",
        "won",
        "score",
        "moves",
        "play_time_ms",
        "assisted",
        "held",
        "disqualified",
        "finished_at",
    )

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> QuerySet[Result]:
        return super().get_queryset(request).select_related("challenge")


def _case_rows(cases: QuerySet[FairPlayCase]) -> str:
    rows = [
        (
            reverse("admin:games_fairplaycase_change", args=[r.pk]),
            f"{r.result.challenge} · {r.get_kind_display()} · {r.status}{' · holds' if r.holds else ''}",
            r.reason,
        )
        for r in cases.select_related("result__challenge")[:50]
    ]
    if not rows:
        return "none"
    return format_html("<ul>{}</ul>", format_html_join("", '<li><a href="{}">{}</a>: {}</li>', rows))


admin.site.unregister(User)


@admin.register(User)
class PlayerAdmin(UserAdmin[User]):
    list_display = ["username", "email", "guest", "banned", "results", "is_staff", "date_joined", "last_login"]
    list_filter = [GuestFilter, BannedFilter, "is_staff", "is_superuser", "is_active"]
    inlines = [ResultInline]
    action_form = BanActionForm
    actions = ["ban_players", "unban_players"]
    readonly_fields = ("ban_status", "fair_play_cases_of_results", "fair_play_cases_naming")
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("Moderation", {"fields": ["ban_status", "fair_play_cases_of_results", "fair_play_cases_naming"]}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        return (
            super()
            .get_queryset(request)
            .select_related("guest", "ban")
            .annotate(_results=Count("results", filter=Q(results__ranked=True)))
        )

    @admin.display(boolean=True, description="guest", ordering="guest")
    def guest(self, obj: User) -> bool:
        return hasattr(obj, "guest")

    @admin.display(boolean=True, description="banned", ordering="ban")
    def banned(self, obj: User) -> bool:
        return hasattr(obj, "ban")

    @admin.display(description="ranked results", ordering="_results")
    def results(self, obj: Any) -> int:
        return int(getattr(obj, "_results", 0))

    @admin.display(description="ban")
    def ban_status(self, obj: User) -> str:
        ban = getattr(obj, "ban", None)
        if ban is None:
            return "not banned"
        by = ban.banned_by.get_username() if ban.banned_by is not None else "?"
        return f"banned since {ban.created_at:%Y-%m-%d %H:%M} by {by}: {ban.reason or '(no reason given)'}"

    @admin.display(description="fair-play cases (holds and flags) of their results")
    def fair_play_cases_of_results(self, obj: User) -> str:
        if obj.pk is None:
            return "none"
        return _case_rows(FairPlayCase.objects.filter(result__player_id=obj.pk))

    @admin.display(description="fair-play cases of others' results naming them")
    def fair_play_cases_naming(self, obj: User) -> str:
        if obj.pk is None:
            return "none"
        name = obj.get_username()
        ids = [r.pk for r in FairPlayCase.objects.filter(reason__contains=name) if name in (r.others or [])]
        return _case_rows(FairPlayCase.objects.filter(pk__in=ids))

    # --- bans ---------------------------------------------------------------------------------------

    def has_ban_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(BAN_PERMISSION)

    @admin.action(description="Ban from the boards (their results leave every board)", permissions=["ban"])
    def ban_players(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        reason = str(request.POST.get("reason", "")).strip()[:500]
        done = 0
        for player in queryset:
            try:
                services.player_ban(player=player, by=_actor(request), reason=reason)
            except ApplicationError as exc:
                self.message_user(request, exc.message, messages.ERROR)
                continue
            self.log_change(request, player, f"Banned from the boards. Reason: {reason or '(none given)'}")
            done += 1
        if done:
            self.message_user(request, f"Banned {done} player(s); their results left every board.")

    @admin.action(description="Lift the ban (their results count again)", permissions=["ban"])
    def unban_players(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        done = 0
        for player in queryset:
            if services.player_unban(player=player, by=_actor(request)):
                self.log_change(request, player, "Ban lifted.")
                done += 1
        self.message_user(request, f"Lifted {done} ban(s).")

    # --- deletion: the erasure service, never a bare cascade ----------------------------------------

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, Any, set[str], Any]:
        """The confirmation lists what goes; ``auth.delete_user`` is enough to confirm it. (Django would
        also ask for the delete permission of every model the cascade reaches: attempts, results, tokens...
        The erasure service decides what goes with a player, not each model's permission.)"""
        deleted, counts, _, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request: HttpRequest, obj: User) -> None:
        services.player_delete(player=obj, by=_actor(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for player in queryset:
            services.player_delete(player=player, by=_actor(request))


def _actor(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None
