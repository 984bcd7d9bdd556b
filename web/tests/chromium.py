"""The browser tests' chromium (Debian's, driven by Playwright's sync API; Playwright's own browser downloads
are never used), the viewports they look at, and a page that fails its test on any JavaScript error. The
fixtures built on them (``browser``, ``page``, ``sized``) are web/tests/conftest.py's."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DESKTOP = {"width": 1280, "height": 800}
WIDE = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
SIZES = [pytest.param(WIDE, id="1366x768"), pytest.param(PHONE, id="390x844")]  # the ``sized`` fixture's


class PolicyFreeBrowser:
    """The browser, whose contexts bypass the pages' Content-Security-Policy unless told otherwise:
    Playwright's ``wait_for_function`` evaluates a string in the page, which the policy forbids
    (test_no_page_breaks_its_content_security_policy keeps the policy, and polls instead)."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **kwargs: Any) -> Any:
        kwargs.setdefault("bypass_csp", True)
        return self._browser.new_context(**kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@contextmanager
def watched_page(browser: Any, live_server: Any, viewport: dict[str, int]) -> Iterator[Any]:
    """A page in a context of its own at ``viewport`` (narrower than 600 px: a phone, with touch); once
    its test is over, any JavaScript error the page raised fails it."""
    mobile = viewport["width"] < 600
    context = browser.new_context(base_url=live_server.url, viewport=viewport, is_mobile=mobile, has_touch=mobile)
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"
