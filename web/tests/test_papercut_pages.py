"""Papercuts of the pages (issue 25): errors that look like errors, password reset by e-mail (and the
attacks on it), the site's own 404 page under DEBUG, a guest's name, the e-mail on the account page."""

from __future__ import annotations

import datetime as dt
import re
import uuid
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from pytest_django import Settings

from games import services
from games.tests.factories import make_challenge, make_user, token_for

pytestmark = pytest.mark.django_db

PASSWORD = "not-a-common-pass-42"
NEW_PASSWORD = "another long passphrase 7"


def address() -> str:
    """A client address of this test alone: a shared Redis keeps the limits' counts across runs."""
    n = uuid.uuid4().int
    return f"10.{n % 250}.{(n >> 8) % 250}.{(n >> 16) % 250 + 1}"


@pytest.fixture
def client() -> Client:
    return Client(HTTP_HOST="localhost", REMOTE_ADDR=address())


def field_tag(html: str, name: str) -> str:
    match = re.search(rf'<input[^>]*name="{name}"[^>]*>', html)
    assert match, name
    return match.group(0)


# --- errors that look like errors ----------------------------------------------------------------------


def test_a_sign_up_error_is_an_error_tied_to_its_field(client: Client) -> None:
    response = client.post("/accounts/signup/", {"username": "ada", "password1": PASSWORD, "password2": PASSWORD + "x"})
    assert response.status_code == 200
    html = response.content.decode()
    tag = field_tag(html, "password2")
    assert 'aria-invalid="true"' in tag and "id_password2_error" in tag
    error = re.search(r'<ul class="errorlist" id="id_password2_error">(.*?)</ul>', html, re.S)
    assert error and "<b>Error:</b>" in error.group(1) and "match" in error.group(1)
    assert 'aria-invalid="true"' not in field_tag(html, "username")  # only the field at fault
    assert "<ul>" not in re.sub(r'<div class="helptext".*?</div>', "", html, flags=re.S)  # help lists in divs


def test_a_wrong_login_marks_both_fields_and_points_to_the_error(client: Client) -> None:
    make_user("ada")
    html = client.post("/accounts/login/", {"username": "ada", "password": "wrong password 1"}).content.decode()
    block = re.search(r'<div id="form-errors" class="errorlist nonfield" role="alert">(.*?)</div>', html, re.S)
    assert block and "<b>Error:</b>" in block.group(1)
    for name in ("username", "password"):
        tag = field_tag(html, name)
        assert 'aria-invalid="true"' in tag and 'aria-describedby="form-errors"' in tag, tag
    fresh = client.get("/accounts/login/").content.decode()
    assert "form-errors" not in fresh and 'aria-invalid="true"' not in fresh
    assert 'href="/accounts/password-reset/"' in fresh and "Forgot password?" in fresh


def test_error_styles_are_not_the_help_text_s_grey() -> None:
    from pathlib import Path

    css = (Path(__file__).resolve().parents[1] / "static" / "web" / "css" / "site.css").read_text()
    rule = re.search(r"\.auth-form \.errorlist \{([^}]*)\}", css)
    assert rule and "color: var(--red)" in rule.group(1) and "font-weight: 600" in rule.group(1)


# --- the e-mail address: optional at sign-up and on the account page ---------------------------------


def confirm_link(index: int = 0) -> str:
    match = re.search(r"https?://[^/\s]+(/accounts/email/confirm/[^\s]+/)", str(mail.outbox[index].body))
    assert match, mail.outbox[index].body
    return match.group(1)


def way_back_link(index: int) -> str:
    match = re.search(r"https?://[^/\s]+(/accounts/email/way-back/[^\s]+/)", str(mail.outbox[index].body))
    assert match, mail.outbox[index].body
    return match.group(1)


def test_sign_up_takes_an_optional_e_mail_stored_once_its_mailbox_confirms_it(client: Client) -> None:
    """Resets go only to a verified address: the address given at sign-up is stored once the link
    mailed to it is followed; a reset asked for before goes nowhere."""
    data = {"username": "ada", "password1": PASSWORD, "password2": PASSWORD}
    assert client.post("/accounts/signup/", {**data, "email": "Ada@Example.COM"}).status_code == 302
    assert get_user_model().objects.get(username="ada").email == ""
    assert mail.outbox[0].to == ["Ada@example.com"]
    link = confirm_link()
    mail.outbox.clear()
    assert ask_reset("Ada@example.com").status_code == 302 and mail.outbox == []  # not verified: no mail
    page = Client().get(link)
    assert page.status_code == 200 and "Confirmed" in page.content.decode()
    assert get_user_model().objects.get(username="ada").email == "Ada@example.com"
    other = Client(REMOTE_ADDR=address())
    assert other.post("/accounts/signup/", {**data, "username": "bea"}).status_code == 302
    assert get_user_model().objects.get(username="bea").email == ""
    bad = Client(REMOTE_ADDR=address()).post("/accounts/signup/", {**data, "username": "cy", "email": "not-an-address"})
    assert bad.status_code == 200 and 'id="id_email_error"' in bad.content.decode()
    assert not get_user_model().objects.filter(username="cy").exists()


def test_the_account_page_sets_and_removes_the_e_mail_with_the_password(client: Client) -> None:
    user = make_user("ada")
    assert client.get("/accounts/account/").status_code == 302  # log in first
    client.force_login(user)
    assert 'id="account-link"' in client.get("/players/ada").content.decode()
    assert 'id="account-link"' not in client.get("/players/bea").content.decode()  # not someone else's
    html = client.post("/accounts/account/", {"email": "ada@example.com", "password": PASSWORD}).content.decode()
    assert "A link is on its way to ada@example.com" in html
    user.refresh_from_db()
    assert user.email == "" and mail.outbox[0].to == ["ada@example.com"]
    assert Client().get(confirm_link()).status_code == 200
    user.refresh_from_db()
    assert user.email == "ada@example.com"
    assert Client().get(confirm_link()).status_code == 400  # once: the address it replaced has changed
    client.post("/accounts/account/", {"email": "", "password": PASSWORD})
    user.refresh_from_db()
    assert user.email == ""
    assert mail.outbox[-1].to == ["ada@example.com"] and "removed" in mail.outbox[-1].body  # the old address told


def test_a_session_alone_cannot_change_the_e_mail_and_the_old_address_has_a_way_back() -> None:
    """Issue 51, "A session is enough to take an account": from a logged-in session the recovery
    e-mail changed without the password and the old address was not told; a reset to the new address
    then took the account. Now the password is asked for, the new address must confirm, and the old
    address is told with a way back that puts it back and throws everybody out."""
    owner = make_user("ada")
    owner.email = "ada@example.com"
    owner.save()
    thief = Client(REMOTE_ADDR=address())
    thief.force_login(owner)  # a session left open on a shared computer
    for password in ("", "guess"):
        page = thief.post("/accounts/account/", {"email": "thief@example.com", "password": password})
        assert page.status_code == 200 and "A link is on its way" not in page.content.decode()
    owner.refresh_from_db()
    assert owner.email == "ada@example.com" and mail.outbox == []
    # Someone who also knows the password: the old address hears of it at once.
    thief.post("/accounts/account/", {"email": "thief@example.com", "password": PASSWORD})
    assert sorted(m.to[0] for m in mail.outbox) == ["ada@example.com", "thief@example.com"]
    told = next(i for i, m in enumerate(mail.outbox) if m.to == ["ada@example.com"])
    confirm = next(i for i, m in enumerate(mail.outbox) if m.to == ["thief@example.com"])
    assert "thief@example.com" in mail.outbox[told].body
    assert thief.get(confirm_link(confirm)).status_code == 200
    owner.refresh_from_db()
    assert owner.email == "thief@example.com"
    token = token_for(owner)
    back = Client(REMOTE_ADDR=address())
    page = back.get(way_back_link(told))
    assert page.status_code == 200 and "ada@example.com" in page.content.decode()
    owner.refresh_from_db()
    assert owner.email == "thief@example.com"  # a GET (a mail scanner) changes nothing
    assert back.post(way_back_link(told)).status_code == 200
    owner.refresh_from_db()
    assert owner.email == "ada@example.com" and not owner.check_password(PASSWORD)
    assert thief.get("/accounts/account/").status_code == 302  # the thief's session has ended
    assert Client().post("/api/v1/auth/logout", HTTP_AUTHORIZATION=f"Token {token}").status_code == 401
    mail.outbox.clear()
    assert ask_reset("ada@example.com").status_code == 302 and mail.outbox[0].to == ["ada@example.com"]


def test_a_guest_has_no_e_mail_to_set(client: Client) -> None:
    guest = services.guest_create()
    client.force_login(guest)
    response = client.get("/accounts/account/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/signup/")
    client.post("/accounts/account/", {"email": "guest@example.com"})
    guest.refresh_from_db()
    assert guest.email == ""
    with pytest.raises(Exception, match="guest"):
        services.player_email_set(player=guest, email="guest@example.com")


# --- password reset by e-mail ---------------------------------------------------------------------------


def ask_reset(email: str, client: Client | None = None) -> Any:
    return (client or Client(REMOTE_ADDR=address())).post("/accounts/password-reset/", {"email": email})


def reset_link() -> str:
    assert len(mail.outbox) == 1, [m.subject for m in mail.outbox]
    match = re.search(r"https?://[^/\s]+(/accounts/reset/[^\s]+/)", str(mail.outbox[0].body))
    assert match, mail.outbox[0].body
    return match.group(1)


def with_email(name: str, email: str) -> Any:
    user = make_user(name)
    user.email = email
    user.save()
    return user


def test_a_reset_link_is_mailed_and_works_once(client: Client) -> None:
    user = with_email("ada", "ada@example.com")
    response = ask_reset("ADA@example.com")  # the address as typed: any case
    assert response.status_code == 302 and response["Location"] == "/accounts/password-reset/sent/"
    assert mail.outbox[0].to == ["ada@example.com"] and "ada" in mail.outbox[0].body
    link = reset_link()
    form = client.get(link, follow=True)
    assert form.status_code == 200 and "Choose a new password" in form.content.decode()
    set_url = form.redirect_chain[-1][0]
    done = client.post(set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)
    login = Client(REMOTE_ADDR=address()).post("/accounts/login/", {"username": "ada", "password": NEW_PASSWORD})
    assert login.status_code == 302
    # Used once: the same link, even in another browser, no longer works.
    again = Client(REMOTE_ADDR=address()).get(link, follow=True)
    assert "This link does not work" in again.content.decode()
    other = "x" + NEW_PASSWORD
    assert client.post(set_url, {"new_password1": other, "new_password2": other}).status_code == 200
    user.refresh_from_db()
    assert user.check_password(NEW_PASSWORD)


def test_a_reset_link_expires(settings: Settings) -> None:
    settings.PASSWORD_RESET_TIMEOUT = 3600
    with time_machine.travel(dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC), tick=False) as clock:
        user = with_email("ada", "ada@example.com")
        ask_reset("ada@example.com")
        link = reset_link()
        clock.shift(dt.timedelta(seconds=3601))
        page = Client(REMOTE_ADDR=address()).get(link, follow=True).content.decode()
        assert "This link does not work" in page
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


def test_the_answer_does_not_tell_whether_an_account_has_the_address() -> None:
    with_email("ada", "ada@example.com")
    known, unknown = ask_reset("ada@example.com"), ask_reset("nobody@example.com")
    assert (known.status_code, known["Location"]) == (unknown.status_code, unknown["Location"])
    assert len(mail.outbox) == 1  # only the account's address gets a mail
    pages = [Client().get(r["Location"]).content.decode() for r in (known, unknown)]
    assert pages[0] == pages[1] and "If an account has that address" in pages[0]


def test_a_guest_never_gets_a_reset_link() -> None:
    guest = services.guest_create()
    type(guest).objects.filter(pk=guest.pk).update(email="guest@example.com")  # even if a row said so
    response = ask_reset("guest@example.com")
    assert response.status_code == 302 and mail.outbox == []
    # A token made for a guest by hand is refused too.
    guest.refresh_from_db()
    uid = urlsafe_base64_encode(force_bytes(guest.pk))
    token = default_token_generator.make_token(guest)
    page = Client().get(f"/accounts/reset/{uid}/{token}/", follow=True).content.decode()
    assert "This link does not work" in page


@pytest.mark.throttled
def test_asking_is_limited_per_address_and_e_mail_and_past_the_cap_the_answer_is_the_same(settings: Settings) -> None:
    """Issue 51, "Five reset requests an hour for the victim's e-mail make the victim's own reset a
    429": the count is per (client address, e-mail address), so strangers asking for the owner's address
    never use up the owner's; past a cap nothing is sent and the page is the same "sent" page."""
    settings.PASSWORD_RESET_LIMIT_PER_HOUR = 2
    settings.PASSWORD_RESET_SOURCE_LIMIT_PER_HOUR = 4
    run = uuid.uuid4().hex[:8]  # addresses of this run alone: a shared Redis keeps the counts for the hour
    known = f"ada-{run}@example.com"
    with_email("ada", known)
    stranger = Client(REMOTE_ADDR=address())
    answers = [ask_reset(known.upper() if i % 2 else known, stranger) for i in range(5)]
    assert [(a.status_code, a["Location"]) for a in answers] == [(302, "/accounts/password-reset/sent/")] * 5
    assert len(mail.outbox) == 2  # the stranger's cap for this address: nothing more sent
    owner = Client(REMOTE_ADDR=address())
    assert ask_reset(known, owner).status_code == 302
    assert len(mail.outbox) == 3  # the owner's own reset goes out
    # One client asking for many addresses is capped too, with the same answer.
    spammer = Client(REMOTE_ADDR=address())
    statuses = [ask_reset(f"someone{i}-{run}@example.com", spammer).status_code for i in range(6)]
    assert statuses == [302] * 6


def test_a_reset_link_uses_the_configured_site_url_never_the_requests_host(settings: Settings) -> None:
    """Issue 51: "The reset link is built from the request's host: an allowed host with a port the
    client chose passes into the mail"."""
    settings.SITE_URL = "https://patience.example"
    settings.ALLOWED_HOSTS = ["localhost", "patience.example"]
    with_email("ada", "ada@example.com")
    response = Client(HTTP_HOST="localhost:6666", REMOTE_ADDR=address()).post(
        "/accounts/password-reset/", {"email": "ada@example.com"}
    )
    assert response.status_code == 302
    body = mail.outbox[0].body
    assert "https://patience.example/accounts/reset/" in body and "6666" not in body and "localhost" not in body


# --- the site's own 404 page, also under DEBUG ---------------------------------------------------------


@pytest.mark.parametrize("debug", [True, False])
def test_an_unknown_address_is_the_site_s_404_page(settings: Settings, debug: bool) -> None:
    settings.DEBUG = debug
    client = Client(raise_request_exception=False)
    for path in ("/nope", "/no/such/page/", "/players/ada/extra", "/static-not"):
        response = client.get(path)
        html = response.content.decode()
        assert response.status_code == 404, path
        assert "Nothing here" in html and "Daily Patience" in html, path
        assert "Page not found at" not in html and "URLconf" not in html, path  # not Django's debug page
    assert Client(enforce_csrf_checks=True).post("/nope", {}).status_code == 404  # not a CSRF 403
    api = client.get("/api/v1/nowhere")
    assert api.status_code == 404 and api.json()["error"]["code"] == "not_found"
    assert client.post("/api/nope", {}).json()["error"]["code"] == "not_found"
    # The catch-all keeps APPEND_SLASH: a page's address without its slash still leads to it.
    moved = client.get("/accounts/login?next=/archive")
    assert moved.status_code == 301 and moved["Location"] == "/accounts/login/?next=/archive"
    assert client.get("/archive").status_code == 200


# --- a guest's name is "Guest" ----------------------------------------------------------------------------


def test_a_guest_s_own_game_page_says_guest(client: Client) -> None:
    challenge = make_challenge(game="klondike", seed=2026)
    guest = services.guest_create()
    attempt = services.attempt_start(player=guest, challenge=challenge)
    client.force_login(guest)
    html = client.get(f"/games/{attempt.pk}").content.decode()
    assert "Guest's Klondike" in html and guest.get_username() + "'s" not in html
    assert f"/players/{guest.get_username()}" not in html
    header = client.get("/").content.decode()
    assert '<span class="me guest"' in header


def test_the_request_does_the_same_work_whether_or_not_an_account_has_the_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The mail is looked up and sent by a task (web.send_password_reset), queued for every valid
    request: a mail server's delay cannot tell an attacker which addresses have accounts."""
    from core.tasks import task

    with_email("ada", "ada@example.com")
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(type(task("web.send_password_reset")), "apply_async", lambda self, **kw: sent.append(kw))
    for email in ("ada@example.com", "nobody@example.com"):
        assert ask_reset(email).status_code == 302
    assert [call["kwargs"]["email"] for call in sent] == ["ada@example.com", "nobody@example.com"]
    assert mail.outbox == []  # nothing sent in the request itself


def test_with_the_broker_down_the_mail_is_sent_in_the_request(monkeypatch: pytest.MonkeyPatch) -> None:
    from kombu.exceptions import OperationalError

    from core.circuit import BROKER
    from core.tasks import task

    with_email("ada", "ada@example.com")

    def down(self: Any, **kwargs: Any) -> None:
        raise OperationalError("broker down")

    monkeypatch.setattr(type(task("web.send_password_reset")), "apply_async", down)
    assert ask_reset("ada@example.com").status_code == 302
    assert len(mail.outbox) == 1 and BROKER.is_open()
    assert ask_reset("ada@example.com").status_code == 302  # the circuit is open: not even a try
    assert len(mail.outbox) == 2


def test_a_guests_profile_says_guest_not_its_internal_name(client: Client) -> None:
    guest = services.guest_create()
    page = client.get(f"/players/{guest.get_username()}").content.decode()
    assert "<h1>Guest</h1>" in page and "<title>Guest · Daily Patience</title>" in page
    assert f">{guest.get_username()}<" not in page  # only the page's script reads it (data-username)
    client.force_login(guest)
    assert 'id="account-link"' not in client.get(f"/players/{guest.get_username()}").content.decode()
