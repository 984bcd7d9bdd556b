"""The account page's data rights in a real browser: "Download your data" gives the JSON file of the
player's data, and "Delete your account" (the password and the tick) deletes it and signs out."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from web.tests.test_browser import PASSWORD

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def sign_up(page: Any, username: str) -> None:
    page.goto("/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url(re.compile(r"/$"))


def test_download_the_data_then_delete_the_account(browser: Any, live_server: Any) -> None:
    context = browser.new_context(base_url=live_server.url, accept_downloads=True)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    sign_up(page, "leaving")
    page.goto("/accounts/account/")
    with page.expect_download() as download:
        page.click("#export")
    data = json.loads(open(download.value.path()).read())  # noqa: SIM115 - playwright's temporary file
    assert data["account"]["username"] == "leaving"

    page.click("#delete")
    page.wait_for_url(re.compile(r"/accounts/delete/$"))
    page.fill("#id_password", "not my password")
    page.check("#id_confirm")
    page.click("#delete-account")
    assert "That is not your password" in page.locator("main").inner_text()
    assert get_user_model().objects.filter(username="leaving").exists()

    page.fill("#id_password", PASSWORD)
    page.check("#id_confirm")
    page.click("#delete-account")
    page.wait_for_selector("#deleted")
    assert not get_user_model().objects.filter(username="leaving").exists()
    page.goto("/accounts/account/")
    page.wait_for_url(re.compile(r"/accounts/login/"))  # signed out
    context.close()
    assert not errors, errors
