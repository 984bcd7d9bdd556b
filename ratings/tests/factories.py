"""Rows for the ratings' tests, made directly (no services)."""

from __future__ import annotations

from django.contrib.auth.models import User

from games.models import Guest
from games.tests.factories import make_challenge, make_result, make_user

__all__ = ["make_challenge", "make_guest", "make_result", "make_user"]


def make_guest() -> User:
    user = make_user()
    Guest.objects.create(user=user)
    return user
