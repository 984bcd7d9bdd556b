"""Forms of the pages: logging in (the pages and the admin) under the login limits of core.limits,
signing up with the names the API accepts, an account's e-mail address and the password reset."""

from __future__ import annotations

import zoneinfo
from collections.abc import Iterable
from typing import Any

from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm, PasswordResetForm, UserCreationForm
from django.contrib.auth.models import User

from core.errors import ApplicationError
from core.limits import LoginOutcome, Throttled, login_guard
from games import selectors, services


class LimitedLoginMixin:
    """Checks the password only while the account and the address may try (core.limits), records
    the outcome, and says "try again in N seconds" as a form error when they may not."""

    request: Any
    cleaned_data: dict[str, Any]
    throttled = False
    login_outcome: LoginOutcome | None = None  # after a check: its outcome (the device cookie to set)

    def clean(self) -> dict[str, Any]:
        username = self.cleaned_data.get("username")
        if not username or not self.cleaned_data.get("password"):
            return super().clean()  # type: ignore[misc,no-any-return]  # a missing field: nothing was tried
        try:
            with login_guard(request=self.request, username=username) as outcome:
                self.login_outcome = outcome
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


FORM_ERRORS_ID = "form-errors"  # the id of a form's own errors (web/form.html), which its fields point to


class LoginForm(LimitedLoginMixin, AuthenticationForm):
    def full_clean(self) -> None:
        """A wrong name or password is the form's error, not a field's: both fields are marked
        invalid and point to it, so a screen reader says why on either."""
        super().full_clean()
        if self.is_bound and self.non_field_errors():
            for name in ("username", "password"):
                self.fields[name].widget.attrs.update({"aria-invalid": "true", "aria-describedby": FORM_ERRORS_ID})


class AdminLoginForm(LimitedLoginMixin, AdminAuthenticationForm):
    pass


EMAIL_HELP = "Optional. Only used to send you a link if you forget your password."


class SignupForm(UserCreationForm[User]):
    """Django's sign-up form for the passwords; the name is checked as the API checks it
    (games.services.player_name_clean: NFKC first, then the rules), and the view creates the
    player through games.services.player_create (taken and look-alike names). The e-mail address
    is optional: without it a forgotten password cannot be reset."""

    email = forms.EmailField(label="E-mail", required=False, help_text=EMAIL_HELP)

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")

    def clean_username(self) -> str:
        """The name as stored, refused here when taken or too like another, so that the page reports it
        together with the password's errors (the view's create still decides a race)."""
        try:
            name = services.player_name_clean(username=self.cleaned_data["username"])
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message, code=exc.code) from None
        clash = selectors.player_name_clash(name=name)
        if clash:
            raise forms.ValidationError(clash, code="conflict")
        return name


class EmailForm(forms.Form):
    """An account's e-mail address (empty: none), for password resets; changing it asks for the password
    (a session alone must not be enough to redirect the account's resets: web.email_address)."""

    email = forms.EmailField(label="E-mail", required=False, help_text=EMAIL_HELP)
    password = forms.CharField(
        label="Your password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text="To change the address, your password.",
    )


def _time_zones() -> list[tuple[str, str]]:
    return [(name, name.replace("_", " ")) for name in sorted(zoneinfo.available_timezones())]


class ReminderForm(forms.Form):
    """The streak reminder: on or off, and when, in the player's own time zone (the page fills in the
    browser's zone when none is stored)."""

    enabled = forms.BooleanField(
        label="E-mail me when my streak would end tonight",
        required=False,
        help_text="Sent only on a day when your streak is at risk (a win yesterday, none yet today), once at most.",
    )
    remind_at = forms.TimeField(
        label="At", widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"), help_text="Your own time of day."
    )
    time_zone = forms.TypedChoiceField(label="Your time zone", choices=_time_zones)


class ResetForm(PasswordResetForm):
    """Django's reset form, for accounts only: a guest has neither a password nor an address, and is
    left out even if a row says otherwise. The page answers the same whether or not anyone matched."""

    email = forms.EmailField(label="E-mail", max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"}))

    def get_users(self, email: str) -> Iterable[Any]:
        return [user for user in super().get_users(email) if not services.player_is_guest(player=user)]


RESET_SUBJECT = "web/password_reset_subject.txt"
RESET_BODY = "web/password_reset_email.txt"


def reset_mail_send(*, email: str, domain: str, use_https: bool) -> None:
    """Mail a reset link to every account (not a guest) with this address; nothing if none has it.
    Run by the task ``web.send_password_reset``, so that the page's answer takes the same time whether
    or not an account has the address (a mail server's delay would tell)."""
    form = ResetForm({"email": email})
    if form.is_valid():
        form.save(
            domain_override=domain,
            use_https=use_https,
            subject_template_name=RESET_SUBJECT,
            email_template_name=RESET_BODY,
        )


class AccountDeleteForm(forms.Form):
    """Deleting one's own account: the password (a guest has none) and a confirmation (accounts.selfservice)."""

    password = forms.CharField(
        label="Your password",
        strip=False,
        required=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    confirm = forms.BooleanField(
        label="Yes, delete my account, my games and my results for good",
        required=True,
        error_messages={"required": "Tick the box to confirm: nothing can be brought back."},
    )
