"""Follows in the admin: staff can see and remove them (harassment reports)."""

from __future__ import annotations

from django.contrib import admin

from follows.models import Follow


@admin.register(Follow)
class FollowAdmin(admin.ModelAdmin[Follow]):
    list_display = ["follower", "followed", "created_at"]
    search_fields = ["follower__username", "followed__username"]
    raw_id_fields = ["follower", "followed"]
