"""Endpoint syntax and the network policy (league.entry.netpolicy), without the network."""

from __future__ import annotations

import ipaddress

import pytest

from arena.registry import RegistryConfig
from config import Settings
from league.entry.netpolicy import Endpoint, EndpointError, NetworkPolicy, PolicyError, ResolveError, parse_endpoint, parse_networks


@pytest.mark.parametrize(("text", "host", "port"), [
    ("127.0.0.1:50051", "127.0.0.1", 50051), ("bots.example.org:1", "bots.example.org", 1),
    ("[::1]:65535", "::1", 65535), ("localhost:80", "localhost", 80), ("a-b.c_d:9", None, None),
])
def test_parse_endpoint(text: str, host: str | None, port: int | None) -> None:
    if host is None:
        with pytest.raises(EndpointError):
            parse_endpoint(text)
    else:
        assert parse_endpoint(text) == Endpoint(host, port)


def test_dial_pins_the_checked_address() -> None:
    assert Endpoint("bots.example.org", 7).dial(ipaddress.ip_address("10.1.2.3")) == "10.1.2.3:7"
    assert Endpoint("bots.example.org", 7).dial(ipaddress.ip_address("fd00::1")) == "[fd00::1]:7"


def test_default_policy_allows_loopback_and_private_only() -> None:
    policy = NetworkPolicy.from_strings("loopback,private", "link-local")
    allowed = ["127.0.0.1", "127.8.9.10", "::1", "10.0.0.5", "172.16.3.4", "192.168.1.1", "fd12::1", "::ffff:10.0.0.1"]
    refused = ["8.8.8.8", "169.254.169.254", "fe80::1", "0.0.0.0", "::", "224.0.0.1", "255.255.255.255", "2001:db8::1"]
    assert [a for a in allowed if policy.refusal(ipaddress.ip_address(a))] == []
    assert [a for a in refused if policy.refusal(ipaddress.ip_address(a)) is None] == []


def test_public_policy_and_every_resolved_address_is_checked() -> None:
    names = {"good.test": ["93.184.216.34"], "split.test": ["93.184.216.34", "10.0.0.1"]}
    public = NetworkPolicy(parse_networks("any"), parse_networks("loopback,private,link-local"),
                           lambda host, port: names[host])
    assert [str(a) for a in public.resolve(Endpoint("good.test", 1))] == ["93.184.216.34"]
    with pytest.raises(PolicyError, match="10.0.0.1 is in the denied network 10.0.0.0/8"):
        public.resolve(Endpoint("split.test", 1))
    with pytest.raises(PolicyError):
        public.resolve(Endpoint("127.0.0.1", 1))


def test_resolution_failures_and_timeouts() -> None:
    def slow(host: str, port: int) -> list[str]:
        import time

        time.sleep(2)
        return ["127.0.0.1"]

    policy = NetworkPolicy(parse_networks("any"), (), slow)
    with pytest.raises(ResolveError, match="did not resolve within 0.2 s"):
        policy.resolve(Endpoint("slow.test", 1), timeout_s=0.2)
    with pytest.raises(ResolveError, match="resolves to no address"):
        NetworkPolicy(parse_networks("any"), (), lambda h, p: []).resolve(Endpoint("empty.test", 1))


def test_bad_network_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="bad network 'intranet'"):
        parse_networks("loopback,intranet")

    settings = Settings(allowed_networks="10.0.0.0/8", denied_networks="", register_limit=3, register_window_s=60.0)
    config = RegistryConfig.from_settings(settings)
    assert config.policy.allowed == (ipaddress.ip_network("10.0.0.0/8"),) and config.register_limit == 3
