"""The client's address, as far as the deployment can vouch for it.

``X-Forwarded-For`` is a list anybody can start: a client may send any addresses it likes, and each
proxy in front of the service appends the address it received the request from. Only the entries
appended by our own proxies are true, so the client's address is the one ``NUM_PROXIES`` places
from the right (the last proxy's peer), and with no proxy (``NUM_PROXIES = 0``) it is the socket's
peer, ``REMOTE_ADDR``, whatever the headers say. Throttles, sign-up limits and the review flags all
read the address here, never from a header directly.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings


def client_address(request: Any) -> str:
    """The address of the client that sent ``request`` (a Django or DRF request)."""
    meta = request.META
    remote = str(meta.get("REMOTE_ADDR") or "")
    proxies = int(getattr(settings, "NUM_PROXIES", 0) or 0)
    if proxies <= 0:
        return remote
    forwarded = [part.strip() for part in str(meta.get("HTTP_X_FORWARDED_FOR") or "").split(",") if part.strip()]
    if len(forwarded) < proxies:
        return remote  # fewer hops than our own proxies add: the header is not theirs
    return forwarded[-proxies]
