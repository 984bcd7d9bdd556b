"""DRF's request-rate throttles, reading the client's address from ``core.net`` (the configured proxy
depth, ``NUM_PROXIES``), so that they and the login limits (``core.limits``) agree on who a client is.
A client that adds ``X-Forwarded-For`` entries of its own gets no new address by doing so, and one
that moves through the addresses of its IPv6 /64 neither (``core.net.client_network``)."""

from __future__ import annotations

from typing import Any

from rest_framework import throttling

from core.net import client_network


class AnonRateThrottle(throttling.AnonRateThrottle):
    def get_ident(self, request: Any) -> str:
        return client_network(request)


class UserRateThrottle(throttling.UserRateThrottle):
    def get_ident(self, request: Any) -> str:
        return client_network(request)


class ScopedRateThrottle(throttling.ScopedRateThrottle):
    def get_ident(self, request: Any) -> str:
        return client_network(request)
