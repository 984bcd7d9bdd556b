"""Forms of the pages: logging in (the pages and the admin) under the login limits of core.limits,
and signing up with the names the API accepts."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from core.errors import ApplicationError
from core.limits import Throttled, login_guard
from games import services


class LimitedLoginMixin:
    """Checks the password only while the account and the address may try (core.limits), records
    the outcome, and says "try again in N seconds" as a form error when they may not."""

    request: Any
    cleaned_data: dict[str, Any]
    throttled = False

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        if not username or not self.cleaned_data.get("password"):
            return super().clean()  # type: ignore[misc]  # a missing field: nothing was tried
        try:
            with login_guard(request=self.request, username=username) as outcome:
                try:
                    cleaned: dict[str, Any] = super().clean()  # type: ignore[misc]
                except forms.ValidationError:
                    outcome.failure()
                    raise
                outcome.success()
                return cleaned
        except Throttled as exc:
            self.throttled = True
            raise forms.ValidationError(exc.message, code="throttled") from None


class LoginForm(LimitedLoginMixin, AuthenticationForm):
    pass


class AdminLoginForm(LimitedLoginMixin, AdminAuthenticationForm):
    pass


class SignupForm(UserCreationForm):
    """Django's sign-up form for the passwords; the name is checked as the API checks it
    (games.services.player_name_clean: NFKC first, then the rules), and the view creates the
    player through games.services.player_create (taken and look-alike names)."""

    def clean_username(self) -> str:
        try:
            return services.player_name_clean(username=self.cleaned_data["username"])
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message, code=exc.code) from None
