"""Response headers no view should have to remember: no cache may keep a player's own API answers,
and every HTML page says where its scripts, styles and requests may come from.

- ``Cache-Control: private, no-store`` on every ``/api/`` answer to an authenticated request (a
  token, a session, a guest): a shared cache or the browser's disk must not keep one player's
  attempts, leagues or invite codes.
- ``Content-Security-Policy`` (``CONTENT_SECURITY_POLICY`` below) on every HTML answer that has
  none: scripts, styles, images, fonts and requests from this site only, no plugin, no framing, forms
  posted here only. The pages have no inline script or style (web/templates; the only inline style
  is the 500 page's, allowed by its hash). Django's admin (one optional inline ``<style>``) and the
  Swagger UI (an inline ``<style>``) get ``style-src 'unsafe-inline'``; their scripts stay strict.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from pathlib import Path

from django.http import HttpRequest, HttpResponse


def _inline_style_hash(template: Path) -> str:
    match = re.search(r"<style>(.*?)</style>", template.read_text(), re.S)
    if match is None:
        return ""
    digest = base64.b64encode(hashlib.sha256(match.group(1).encode()).digest()).decode()
    return f" 'sha256-{digest}'"


_ERROR_PAGE_STYLE = _inline_style_hash(Path(__file__).resolve().parent.parent / "web" / "templates" / "500.html")

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'" + _ERROR_PAGE_STYLE + "; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
RELAXED_STYLES = ("/admin/", "/api/docs/")  # their templates are not ours: inline styles allowed
# (Without the hash: a hash in the list makes browsers ignore 'unsafe-inline'.)
CONTENT_SECURITY_POLICY_RELAXED = CONTENT_SECURITY_POLICY.replace(
    "style-src 'self'" + _ERROR_PAGE_STYLE, "style-src 'self' 'unsafe-inline'"
)


class SecurityHeadersMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.path.startswith("/api/") and _authenticated(request):
            response["Cache-Control"] = "private, no-store"
        if "Content-Security-Policy" not in response and response.get("Content-Type", "").startswith("text/html"):
            relaxed = request.path.startswith(RELAXED_STYLES)
            policy = CONTENT_SECURITY_POLICY_RELAXED if relaxed else CONTENT_SECURITY_POLICY
            response["Content-Security-Policy"] = policy
        return response


def _authenticated(request: HttpRequest) -> bool:
    """DRF puts the user it authenticated (a token's too) on the request; a credential counts anyway."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return True
    return "Authorization" in request.headers
