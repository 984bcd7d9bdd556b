"""The client's address, as far as the deployment can vouch for it.

``X-Forwarded-For`` is a list anybody can start: a client may send any addresses it likes, and each
proxy in front of the service appends the address it received the request from. Only the entries
appended by our own proxies are true, so the client's address is the one ``NUM_PROXIES`` places
from the right (the last proxy's peer), and with no proxy (``NUM_PROXIES = 0``) it is the socket's
peer, ``REMOTE_ADDR``, whatever the headers say. Throttles, sign-up limits and the fair-play flags all
read the address here, never from a header directly, and key it by :func:`client_network`: an IPv6
/64 is one address.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings

IPV6_PREFIX = 64  # an IPv6 subscriber gets at least a /64: every address in it is one client


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


def network_of(address: str) -> str:
    """The client an address stands for: an IPv4 address itself, an IPv6 address's /64 (a subscriber
    is handed a whole /64 and may use any address in it), an IPv4-mapped IPv6 address as IPv4.
    Anything that is not an address is returned as it is."""
    try:
        parsed = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_PREFIX), strict=False))
    return str(parsed)


def client_network(request: Any) -> str:
    """The client's address as every limit, throttle and fair-play flag keys it (:func:`network_of`)."""
    return network_of(client_address(request))
