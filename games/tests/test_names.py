"""Names that are what they look like (issue 27, item 6), tried as an impersonator would: every
refusal a clear 400 or 409, never a 500, and nothing stored half-way."""

from __future__ import annotations

import json
import threading
from collections import Counter
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.test import Client

from core import names
from games import services
from games.models import PlayerNameKey

PASSWORD = "a long passphrase 42"
CYRILLIC_A, CYRILLIC_O, CYRILLIC_E = "\u0430", "\u043e", "\u0435"


def register(username: Any, client: Client | None = None) -> Any:
    return (client or Client()).post(
        "/api/v1/auth/register",
        json.dumps({"username": username, "password": PASSWORD}),
        content_type="application/json",
    )


def assert_refused(response: Any, status: int, *words: str) -> str:
    assert response.status_code == status, (response.status_code, response.content)
    message = response.json()["error"]["message"]
    for word in words:
        assert word in message, message
    return str(message)


def users() -> set[str]:
    return set(get_user_model().objects.values_list("username", flat=True))


@pytest.mark.django_db
class TestRegister:
    def test_a_name_that_grows_past_the_limit_once_normalised_is_a_400(self) -> None:
        """The issue's 500: NFKC makes U+FDFA eighteen characters, so ten of them are 180."""
        assert_refused(register("\ufdfa" * 10), 400, "180 characters", "NFKC")
        assert users() == set()

    def test_the_validator_judges_the_stored_form(self) -> None:
        """``x`` U+2474 U+00BC would be stored as ``x(1)1`` U+2044 ``4``: parentheses and a fraction
        slash, which no name may hold."""
        assert_refused(register("x\u2474\u00bc"), 400, "x(1)1\u20444")
        assert users() == set()

    def test_full_width_and_case_copies_are_the_same_name(self) -> None:
        assert register("Ada").status_code == 201
        full_width = "\uff21\uff44\uff41"  # full-width "Ada", stored as ASCII "Ada"
        for copy in (full_width, "ada", "ADA", "aDa", "\uff41\uff44\uff41"):
            assert_refused(register(copy), 409, "is taken")
        assert users() == {"Ada"}

    def test_look_alikes_of_a_name_are_refused_naming_it(self) -> None:
        assert register("admin").status_code == 201
        assert register("paypal").status_code == 201
        for copy in (f"{CYRILLIC_A}dmin", "adrnin", "ADMlN", f"p{CYRILLIC_A}yp{CYRILLIC_A}l", "PAYPAI", "paypa1"):
            assert_refused(register(copy), 409, "looks too much like")
        assert users() == {"admin", "paypal"}

    def test_a_look_alike_registered_first_blocks_the_latin_name(self) -> None:
        assert register(f"b{CYRILLIC_O}b").status_code == 201
        assert_refused(register("bob"), 409, "looks too much like")

    def test_distinct_names_still_pass(self) -> None:
        for name in ("ada", "adam", "ada.l", "bob_1", "Zoë", "\u6771\u4eac", "j\u00fcrgen", "m\u00e9lanie"):
            assert register(name).status_code == 201, name
        assert PlayerNameKey.objects.values("user").distinct().count() == 8

    def test_the_stored_name_is_the_normalised_one_and_it_logs_in(self) -> None:
        response = register("\uff4c\uff49\uff4e")  # full-width "lin"
        assert response.status_code == 201 and response.json()["username"] == "lin"
        assert users() == {"lin"}
        login = Client().post(
            "/api/v1/auth/token",
            {"username": "\uff4c\uff49\uff4e", "password": PASSWORD},
            content_type="application/json",
        )
        assert login.status_code == 200 and login.json()["username"] == "lin"

    @pytest.mark.parametrize(
        "bad",
        ["", "   ", "a b", "ad\u200bmin", "ad\u202emin", "\u2066x\u2069", "a\x00b", "a/b", "x" * 151, ["a"], None, 7],
    )
    def test_bad_names_are_a_400(self, bad: Any) -> None:
        assert register(bad).status_code == 400
        assert users() == set() and not PlayerNameKey.objects.exists()

    def test_guests_hold_their_names_too(self) -> None:
        guest = services.guest_create()
        assert_refused(register(guest.get_username().upper()), 409, "is taken")


@pytest.mark.django_db
def test_the_sign_up_page_refuses_look_alikes_with_a_message() -> None:
    assert register("admin").status_code == 201
    page = Client().post(
        "/accounts/signup/", {"username": f"{CYRILLIC_A}dmin", "password1": PASSWORD, "password2": PASSWORD}
    )
    assert page.status_code == 200 and "looks too much like the existing name" in page.content.decode()
    page = Client().post("/accounts/signup/", {"username": "\ufdfa" * 10, "password1": PASSWORD, "password2": PASSWORD})
    assert page.status_code == 200 and "at most 150 characters" in page.content.decode()
    page = Client().post("/accounts/signup/", {"username": "ADMIN", "password1": PASSWORD, "password2": PASSWORD})
    assert page.status_code == 200 and "is taken" in page.content.decode()
    assert users() == {"admin"}


def test_the_skeleton_follows_unicode_ts39() -> None:
    assert names.skeleton("paypal") == names.skeleton(f"p{CYRILLIC_A}yp{CYRILLIC_A}l")
    assert names.skeleton("l") == names.skeleton("1") == names.skeleton("I")
    assert names.skeleton("m") == "rn"
    assert names.skeleton("ad\u200bmin") == names.skeleton("admin")  # invisible characters drop out
    assert names.skeleton_key("Ada") == names.skeleton_key(f"{CYRILLIC_A}DA") == names.skeleton_key("ada")
    assert names.skeleton_key("ada") != names.skeleton_key("adam")
    assert names.folded_key("Stra\u00dfe") == names.folded_key("STRASSE")
    assert names.skeleton(f"h{CYRILLIC_E}llo") == "hello"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("trial", range(3))
def test_case_variants_and_look_alikes_sent_at_the_same_moment_register_once(trial: int) -> None:
    """Checked before writing is not enough: the unique columns decide, so one of the racers wins."""
    if connection.vendor != "postgresql":
        pytest.skip("needs concurrent connections (PostgreSQL)")
    variants = ["kate", "KATE", "Kate", f"k{CYRILLIC_A}te", "\uff4b\uff41\uff54\uff45", "kAtE"]
    barrier = threading.Barrier(len(variants))
    statuses: list[int] = []
    errors: list[BaseException] = []

    def run(name: str) -> None:
        try:
            barrier.wait(timeout=30)
            statuses.append(register(name).status_code)
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(name,)) for name in variants]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    assert Counter(statuses) == Counter({201: 1, 409: len(variants) - 1})
    assert len(users()) == 1 and PlayerNameKey.objects.values("user").distinct().count() == 1
