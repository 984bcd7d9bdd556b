"""The browser tests' fixtures, found by every test module here by their names: one chromium per module,
and a page on it (web/tests/chromium.py). Skipped when /usr/bin/chromium is absent on a developer's
machine; CI installs it (.ci/run), and there a missing browser is a failure, not a skip."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from web.tests.chromium import CHROMIUM, CHROMIUM_ARGS, DESKTOP, SIZES, PolicyFreeBrowser, watched_page


@pytest.fixture(scope="module")
def browser(django_db_setup: None) -> Iterator[Any]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: CI installs it (.ci/run: apt-get install chromium)")
        pytest.skip(f"no browser: {CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an asyncio loop in this thread, which makes Django refuse ORM
    # calls here; the tests' own ORM calls are plain synchronous code, so they are allowed.
    with pytest.MonkeyPatch.context() as patch, sync_playwright() as playwright:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield PolicyFreeBrowser(browser)
        browser.close()


@pytest.fixture
def page(browser: Any, live_server: Any) -> Iterator[Any]:
    """A desktop page (1280x800)."""
    with watched_page(browser, live_server, DESKTOP) as page:
        yield page


@pytest.fixture(params=SIZES)
def sized(request: pytest.FixtureRequest, browser: Any, live_server: Any) -> Iterator[Any]:
    """A page at one of the two sizes: 1366x768, and a 390x844 phone with touch."""
    with watched_page(browser, live_server, request.param) as page:
        yield page
