"""DRF's request-rate throttles, reading the client's address from ``core.net`` (the configured proxy
depth, ``NUM_PROXIES``), so that they and the login limits (``core.limits``) agree on who a client is.
A client that adds ``X-Forwarded-For`` entries of its own gets no new address by doing so."""

from __future__ import annotations

from typing import Any

from rest_framework import throttling

from core.net import client_address


class AnonRateThrottle(throttling.AnonRateThrottle):
    def get_ident(self, request: Any) -> str:
        return client_address(request)


class UserRateThrottle(throttling.UserRateThrottle):
    def get_ident(self, request: Any) -> str:
        return client_address(request)


class ScopedRateThrottle(throttling.ScopedRateThrottle):
    def get_ident(self, request: Any) -> str:
        return client_address(request)
