"""Where a URL someone else gave us may lead: the SSRF guard shared by photo URLs and webhook endpoints.

A URL from outside is a request the server makes on someone's behalf, so its host is resolved here,
once, and every address must be public (`is_public_address`): not private, loopback, link-local (the
cloud metadata service, 169.254.169.254), CGNAT, multicast, reserved or unspecified, nor an IPv6 address
that embeds one of those (IPv4-mapped, NAT64, 6to4, Teredo), nor the EC2 IPv6 metadata address. The
request then goes to the address that was checked (`pinned`), with the name in `Host` and in TLS SNI, so
a DNS answer that changes between check and connect (DNS rebinding) changes nothing.

Each caller adds its own rules on top (photo URLs: `imaging/fetch.py`; webhooks: `mail/webhooks.py`),
and may allow some non-public addresses on purpose (`parse_networks`: an operator's internal CRM).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeAlias

import httpx

IPAddress: TypeAlias = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network
#: `resolver(host, port)` -> the addresses (as text) the host name resolves to.
Resolver = Callable[[str, int], Awaitable[list[str]]]

_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_METADATA = frozenset({ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")})


class Unresolvable(ValueError):
    """The host name did not resolve."""


async def system_resolver(host: str, port: int) -> list[str]:
    """The operating system's resolver (getaddrinfo, run off the event loop)."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return [str(info[4][0]) for info in infos]


def is_public_address(address: IPAddress) -> bool:
    """Whether `address` is on the public internet: the only kind of address a URL from outside may reach."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded: list[ipaddress.IPv4Address] = []
        if address.ipv4_mapped is not None:
            embedded.append(address.ipv4_mapped)
        if address.sixtofour is not None:
            embedded.append(address.sixtofour)
        if address.teredo is not None:
            embedded.extend(address.teredo)
        if address in _NAT64:
            embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        if any(not is_public_address(inner) for inner in embedded):
            return False
    return not (
        address in _METADATA
        or not address.is_global
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_multicast
        or address.is_reserved
        or address.is_unspecified
        or (isinstance(address, ipaddress.IPv4Address) and address in _CGNAT)
    )


def parse_networks(items: Iterable[str]) -> tuple[IPNetwork, ...]:
    """Addresses or networks (`10.0.0.7`, `10.1.0.0/16`, `::1`) as networks; ValueError names a bad one."""
    networks: list[IPNetwork] = []
    for item in items:
        try:
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{item.strip()!r} is not an IP address or network") from None
    return tuple(networks)


def in_networks(address: IPAddress, networks: Iterable[IPNetwork]) -> bool:
    return any(address.version == network.version and address in network for network in networks)


async def resolve(host: str, port: int, resolver: Resolver = system_resolver) -> list[IPAddress]:
    """The addresses `host` stands for (an address literal stands for itself); `Unresolvable` if none."""
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass  # a name, not an address literal
    try:
        answers = await resolver(host, port)
    except (OSError, UnicodeError):
        raise Unresolvable(host) from None
    # A scope id (fe80::1%eth0) is dropped: the address alone decides.
    return [ipaddress.ip_address(answer.split("%", 1)[0]) for answer in answers]


def pinned(
    client: httpx.AsyncClient, method: str, url: httpx.URL, address: IPAddress, headers: dict[str, str], **options: Any
) -> httpx.Request:
    """A request for `url` sent to `address`, the one that was checked; the name stays in Host and TLS SNI."""
    host = url.raw_host.decode("ascii")
    extensions = {} if host == str(address) else {"sni_hostname": host}
    headers = {"Host": url.netloc.decode("ascii"), **headers}
    return client.build_request(
        method, url.copy_with(host=str(address)), headers=headers, extensions=extensions, **options
    )
