"""The client address a request came from, and the rate-limit partition it falls in.

The socket peer is the client unless it is one of the configured trusted proxies; only then
are `Forwarded` (RFC 7239) or `X-Forwarded-For` read, from the right, skipping every hop that is
itself a trusted proxy. A client can write anything into those headers, so a header from an
untrusted peer is ignored. IPv6 clients are partitioned by their /64: one subscriber usually
holds a whole /64, and keying on single addresses would give them 2**64 buckets.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable

from starlette.types import Scope

from garage_tools.headers import RequestHeaders

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class ClientAddressResolver:
    def __init__(self, trusted_proxies: Iterable[str]) -> None:
        self.trust_all = False
        self.trusted: list[Network] = []
        for entry in trusted_proxies:
            if entry == "*":
                self.trust_all = True
            else:
                self.trusted.append(ipaddress.ip_network(entry, strict=False))

    def resolve(self, scope: Scope, headers: RequestHeaders) -> str | None:
        """The client's address as text (IPv4-mapped IPv6 shown as IPv4), or None if unknown."""
        client = scope.get("client")
        if not client:
            return None
        if not (headers.forwarded or headers.x_forwarded_for):
            return _canonical(client[0])
        peer = _parse(client[0])
        if peer is None or not self._is_trusted(peer):
            return _canonical(client[0])
        hops = _forwarded_for(headers.forwarded) if headers.forwarded else _x_forwarded_for(headers.x_forwarded_for)
        if self.trust_all:
            # `*` trusts the peer, not the whole chain: the hop it appended is the client. Walking on
            # would let any client name its own address in the header's left part.
            hops = hops[-1:]
        for hop in reversed(hops):
            address = _parse(hop)
            if address is None:
                break  # an unparseable hop: trust nothing to its left
            if not self._is_trusted(address):
                return str(address)
            peer = address
        return str(peer)

    def _is_trusted(self, address: Address) -> bool:
        return self.trust_all or any(address in network for network in self.trusted)


@functools.lru_cache(maxsize=8192)  # every call asks, and callers repeat: a look-up, not a Python call
def rate_limit_partition(ip: str | None) -> str:
    """The bucket an address counts against: itself for IPv4, its /64 for IPv6."""
    if ip is None:
        return "unknown"
    address = _parse(ip)
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return ip


@functools.lru_cache(maxsize=8192)
def _canonical(text: str) -> str:
    """An address as the service names it (IPv4-mapped IPv6 as IPv4); unparseable text unchanged."""
    address = _parse(text)
    return str(address) if address is not None else text


@functools.lru_cache(maxsize=8192)  # callers repeat; parsing an address costs about 3 µs
def _parse(text: str) -> Address | None:
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _x_forwarded_for(values: list[str]) -> list[str]:
    return [_without_port(hop) for value in values for hop in value.split(",") if hop.strip()]


def _forwarded_for(values: list[str]) -> list[str]:
    """The `for=` nodes of `Forwarded` headers, in order, unquoted and without ports."""
    hops: list[str] = []
    for value in values:
        for element in value.split(","):
            for pair in element.split(";"):
                name, _, node = pair.strip().partition("=")
                if name.lower() == "for":
                    hops.append(_without_port(node))
    return hops


def _without_port(node: str) -> str:
    """`192.0.2.60:4711` → `192.0.2.60`, `"[2001:db8::1]:443"` → `2001:db8::1`; others unchanged."""
    node = node.strip().strip('"')
    if node.startswith("["):
        return node[1 : node.find("]")] if "]" in node else node[1:]
    if node.count(":") == 1:
        return node.split(":", 1)[0]
    return node
