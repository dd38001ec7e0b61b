"""Which bot endpoints the platform may dial: endpoint syntax and the network policy.

The platform dials out to authors' endpoints, so an endpoint is untrusted
input: without a policy, registering ``169.254.169.254:80`` or an internal
host would make the platform probe it. :func:`parse_endpoint` accepts only
``host:port`` (a DNS name or an IP literal, ``[v6]:port`` for IPv6; no
scheme, path or unix socket). :meth:`NetworkPolicy.resolve` resolves the host
and accepts it only if *every* address it resolves to is in an allowed network
and in no denied network (IPv4-mapped IPv6 addresses are checked as IPv4;
unspecified, multicast and broadcast addresses are always refused). Callers
then dial the checked address itself, not the name, so a DNS answer that
changes between check and dial (rebinding) cannot slip through.

Networks are CIDRs or the words ``loopback``, ``private`` (RFC 1918, RFC 6598
shared space and IPv6 unique-local), ``link-local`` and ``any``.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

#: Seconds to wait for a DNS answer.
RESOLVE_TIMEOUT_S = 5.0
#: Longest endpoint accepted, characters.
MAX_ENDPOINT_CHARS = 261  # a 253-character name, ':' and a 5-digit port, plus brackets

NAMED_NETWORKS: dict[str, tuple[str, ...]] = {
    "loopback": ("127.0.0.0/8", "::1/128"),
    "private": ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7"),
    "link-local": ("169.254.0.0/16", "fe80::/10"),
    "any": ("0.0.0.0/0", "::/0"),
}

_HOSTNAME = re.compile(r"^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$")


class EndpointError(ValueError):
    """An endpoint that is not ``host:port``."""


class PolicyError(ValueError):
    """An endpoint whose host resolves to an address the policy refuses."""


class ResolveError(ValueError):
    """An endpoint whose host does not resolve (in time)."""


@dataclass(frozen=True)
class Endpoint:
    """A parsed endpoint: ``host`` (a name or an IP literal without brackets) and ``port``."""

    host: str
    port: int

    def dial(self, address: IPAddress) -> str:
        """The gRPC target dialling ``address`` on this port ("1.2.3.4:5", "[::1]:5")."""
        return f"[{address}]:{self.port}" if address.version == 6 else f"{address}:{self.port}"


def parse_endpoint(text: str) -> Endpoint:
    """Parse ``host:port`` / ``[v6]:port``; raises EndpointError with what is wrong."""
    if not text or len(text) > MAX_ENDPOINT_CHARS:
        raise EndpointError(f"an endpoint is host:port, 1 to {MAX_ENDPOINT_CHARS} characters")
    if "/" in text or "@" in text or any(c.isspace() for c in text):
        raise EndpointError(f"endpoint {text!r} must be host:port, without a scheme, path or spaces")
    if text.startswith("["):
        host, sep, port_text = text[1:].partition("]:")
        if not sep:
            raise EndpointError(f"endpoint {text!r}: an IPv6 endpoint is [address]:port")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise EndpointError(f"endpoint {text!r}: {host!r} is not an IPv6 address") from None
    else:
        host, sep, port_text = text.rpartition(":")
        if not sep or not host:
            raise EndpointError(f"endpoint {text!r} must be host:port, e.g. 127.0.0.1:50051")
        if ":" in host:
            try:
                ipaddress.IPv6Address(host)
            except ValueError:
                raise EndpointError(f"endpoint {text!r} must be host:port, without a scheme") from None
            raise EndpointError(f"endpoint {text!r}: write an IPv6 address as [address]:port")
        if not _HOSTNAME.match(host):
            raise EndpointError(f"endpoint {text!r}: {host!r} is not a host name or IPv4 address")
    if not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise EndpointError(f"endpoint {text!r}: the port must be a number from 1 to 65535")
    return Endpoint(host, int(port_text))


def parse_networks(spec: str | Sequence[str]) -> tuple[IPNetwork, ...]:
    """Networks from a comma-separated string or a list of CIDRs and words; raises ValueError."""
    items = [s.strip() for s in (spec.split(",") if isinstance(spec, str) else spec) if s.strip()]
    out: list[IPNetwork] = []
    for item in items:
        for cidr in NAMED_NETWORKS.get(item.lower(), (item,)):
            try:
                out.append(ipaddress.ip_network(cidr, strict=False))
            except ValueError:
                raise ValueError(f"bad network {item!r}: use a CIDR such as 10.0.0.0/8 or one of "
                                 f"{', '.join(NAMED_NETWORKS)}") from None
    return tuple(out)


def _normal(address: IPAddress) -> IPAddress:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _default_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]).split("%")[0] for info in infos]


@dataclass(frozen=True)
class NetworkPolicy:
    """Allowed and denied networks for bot endpoints (see the module docstring)."""

    allowed: tuple[IPNetwork, ...]
    denied: tuple[IPNetwork, ...] = ()
    resolver: Callable[[str, int], list[str]] = _default_resolver

    @classmethod
    def from_strings(cls, allowed: str, denied: str = "") -> NetworkPolicy:
        """Build from setting strings ("loopback,private", "10.1.0.0/16"); raises ValueError."""
        return cls(parse_networks(allowed), parse_networks(denied))

    def refusal(self, address: IPAddress) -> str | None:
        """Why ``address`` is refused, or None if it is allowed."""
        a = _normal(address)
        if a.is_unspecified or a.is_multicast or (a.version == 4 and a == ipaddress.IPv4Address("255.255.255.255")):
            return f"{a} is not a host address"
        for net in self.denied:
            if a.version == net.version and a in net:
                return f"{a} is in the denied network {net}"
        if not any(a.version == net.version and a in net for net in self.allowed):
            shown = ", ".join(str(n) for n in self.allowed) or "none"
            return f"{a} is outside the allowed networks ({shown})"
        return None

    def resolve(self, endpoint: Endpoint, timeout_s: float = RESOLVE_TIMEOUT_S) -> list[IPAddress]:
        """Every address of the endpoint's host, each checked; raises ResolveError or PolicyError."""
        try:
            literal = ipaddress.ip_address(endpoint.host)
        except ValueError:
            literal = None
        if literal is not None:
            addresses: list[IPAddress] = [literal]
        else:
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="resolve")
            future = pool.submit(self.resolver, endpoint.host, endpoint.port)
            pool.shutdown(wait=False)  # a hung lookup must not hold the caller past the timeout
            try:
                names = future.result(timeout=timeout_s)
            except FutureTimeout:
                raise ResolveError(f"host {endpoint.host!r} did not resolve within {timeout_s:g} s") from None
            except (OSError, UnicodeError) as exc:
                raise ResolveError(f"host {endpoint.host!r} does not resolve: {exc}") from None
            addresses = sorted({_normal(ipaddress.ip_address(n)) for n in names}, key=lambda a: (a.version, a))
            if not addresses:
                raise ResolveError(f"host {endpoint.host!r} resolves to no address")
        refused = [why for a in addresses if (why := self.refusal(a)) is not None]
        if refused:
            raise PolicyError(f"endpoint {endpoint.host}:{endpoint.port} refused by the network policy: {'; '.join(refused)}")
        return addresses
