"""The client's address, as far as the deployment can vouch for it.

``X-Forwarded-For`` is a list anybody can start: a client may send any addresses it likes, and each
proxy in front of the service appends the address it received the request from. Only the entries
appended by our own proxies are true, so the client's address is the one ``NUM_PROXIES`` places
from the right (the last proxy's peer), and with no proxy (``NUM_PROXIES = 0``) it is the socket's
peer, ``REMOTE_ADDR``, whatever the headers say. Throttles, sign-up limits and the review flags all
read the address here, never from a header directly.
"""

from __future__ import annotations

import ipaddress
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


def address_key(address: str) -> str:
    """The share an address belongs to, for limits per client: an IPv4 address itself, an IPv6 one its
    /64 (one subscriber's network: a client there picks a new address at will). Text that is no address
    (a misconfigured proxy) is its own key."""
    try:
        ip = ipaddress.ip_address(address.strip().split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def client_share(request: Any) -> str:
    """``address_key`` of the request's client address (``client_address``)."""
    return address_key(client_address(request))
