"""The client's address: only what our own proxies appended to X-Forwarded-For is believed."""

from __future__ import annotations

from typing import Any

import pytest
from django.http import HttpRequest
from django.test import RequestFactory
from pytest_django import Settings

from core.net import client_address, client_network, network_of


def request(remote: str = "198.51.100.7", forwarded: str | None = None) -> HttpRequest:
    extra: dict[str, Any] = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


@pytest.mark.parametrize("forwarded", [None, "", "1.2.3.4", "1.2.3.4, 5.6.7.8", "garbage"])
def test_without_a_proxy_the_socket_peer_is_the_client_whatever_the_header(
    settings: Settings, forwarded: str | None
) -> None:
    settings.NUM_PROXIES = 0
    assert client_address(request(forwarded=forwarded)) == "198.51.100.7"


def test_behind_one_proxy_the_entry_it_appended_is_the_client(settings: Settings) -> None:
    settings.NUM_PROXIES = 1
    # The client wrote "1.2.3.4" itself; nginx appended the peer it saw, 203.0.113.5.
    assert client_address(request(remote="10.0.0.2", forwarded="1.2.3.4, 203.0.113.5")) == "203.0.113.5"
    assert client_address(request(remote="10.0.0.2", forwarded="203.0.113.5")) == "203.0.113.5"


def test_rotating_the_header_does_not_change_the_address_behind_one_proxy(settings: Settings) -> None:
    settings.NUM_PROXIES = 1
    seen = {client_address(request(remote="10.0.0.2", forwarded=f"9.9.9.{i}, 203.0.113.5")) for i in range(20)}
    assert seen == {"203.0.113.5"}


def test_a_header_with_fewer_hops_than_our_proxies_is_not_believed(settings: Settings) -> None:
    settings.NUM_PROXIES = 2
    assert client_address(request(remote="10.0.0.2", forwarded="203.0.113.5")) == "10.0.0.2"


def test_an_ipv6_slash_64_is_one_client_and_ipv4_is_itself(settings: Settings) -> None:
    assert network_of("2001:db8:1:2:3:4:5:6") == network_of("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert network_of("203.0.113.7") == "203.0.113.7"
    assert network_of("::ffff:203.0.113.7") == "203.0.113.7"  # an IPv4 client seen through a v6 socket
    assert network_of("fe80::1%eth0") == "fe80::/64"
    assert network_of("not an address") == "not an address"
    settings.NUM_PROXIES = 1
    assert client_network(request(remote="10.0.0.2", forwarded="2001:db8:9:9:1::7")) == "2001:db8:9:9::/64"
