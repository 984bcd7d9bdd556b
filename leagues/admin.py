"""Django admin: leagues with their member counts, memberships inline.

Edits here bypass leagues.services (and its limits): they are for staff fixing things.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest

from leagues.models import League, Membership


class MembershipInline(admin.TabularInline[Membership, League]):
    model = Membership
    extra = 0
    raw_id_fields = ["player"]
    readonly_fields = ["joined_at"]
    ordering = ["joined_at", "id"]


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin[League]):
    list_display = ["name", "owner", "members", "invite_code", "created_at"]
    search_fields = ["name", "owner__username", "invite_code"]
    date_hierarchy = "created_at"
    raw_id_fields = ["owner"]
    readonly_fields = ["invite_code", "created_at"]
    inlines = [MembershipInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[League]:
        return super().get_queryset(request).select_related("owner").annotate(_members=Count("memberships"))

    @admin.display(description="members", ordering="_members")
    def members(self, obj: Any) -> int:
        return int(obj._members)
