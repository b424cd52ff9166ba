"""Which address a request is counted against: the socket peer, or what trusted proxies say it forwarded."""

from __future__ import annotations

import pytest
from starlette.types import Scope

from garage_tools.access.client_ip import ClientAddressResolver, rate_limit_partition
from garage_tools.headers import RequestHeaders

CLIENT = "203.0.113.7"
OTHER_CLIENT = "198.51.100.23"
V6_CLIENT = "2001:db8:1:2::7"


def scope(peer: str, *headers: tuple[str, str]) -> Scope:
    """An HTTP scope from `peer` with the given headers, in order, as uvicorn would hand it over."""
    return {
        "type": "http",
        "client": (peer, 51234),
        "headers": [(name.lower().encode(), value.encode()) for name, value in headers],
    }


def resolve(trusted: list[str], peer: str, *headers: tuple[str, str]) -> str | None:
    request = scope(peer, *headers)
    return ClientAddressResolver(trusted).resolve(request, RequestHeaders.read(request))


# Untrusted peers: headers are whatever the client wrote, so they are ignored.


def test_without_trusted_proxies_the_socket_peer_is_the_client() -> None:
    assert resolve([], CLIENT) == CLIENT


def test_untrusted_peer_cannot_claim_another_address_with_x_forwarded_for() -> None:
    assert resolve([], CLIENT, ("X-Forwarded-For", OTHER_CLIENT)) == CLIENT


def test_untrusted_peer_cannot_claim_another_address_with_forwarded() -> None:
    assert resolve([], CLIENT, ("Forwarded", f"for={OTHER_CLIENT}")) == CLIENT


def test_headers_from_a_peer_outside_the_trusted_networks_are_ignored() -> None:
    spoofed = ("X-Forwarded-For", OTHER_CLIENT)
    assert resolve(["127.0.0.1", "10.0.0.0/8"], CLIENT, spoofed) == CLIENT


def test_missing_socket_peer_is_unknown() -> None:
    request: Scope = {"type": "http", "headers": [(b"x-forwarded-for", CLIENT.encode())]}
    assert ClientAddressResolver(["*"]).resolve(request, RequestHeaders.read(request)) is None


# Trusted proxies: the forwarded chain is read from the right, past every trusted hop.


def test_trusted_loopback_proxy_forwards_the_client() -> None:
    assert resolve(["127.0.0.1"], "127.0.0.1", ("X-Forwarded-For", CLIENT)) == CLIENT


def test_trusted_proxy_without_forwarding_headers_is_itself_the_client() -> None:
    assert resolve(["127.0.0.1"], "127.0.0.1") == "127.0.0.1"


def test_x_forwarded_for_is_read_from_the_right_skipping_trusted_hops() -> None:
    chain = ("X-Forwarded-For", f"{OTHER_CLIENT}, {CLIENT}, 10.1.2.3, 10.200.0.9")
    # The client wrote OTHER_CLIENT itself; CLIENT is what the first trusted hop saw.
    assert resolve(["10.0.0.0/8"], "10.0.0.1", chain) == CLIENT


def test_a_peer_inside_a_trusted_cidr_is_trusted() -> None:
    assert resolve(["10.0.0.0/8"], "10.255.1.1", ("X-Forwarded-For", CLIENT)) == CLIENT


def test_a_peer_next_to_but_outside_a_trusted_cidr_is_not() -> None:
    assert resolve(["10.0.0.0/8"], "11.0.0.1", ("X-Forwarded-For", OTHER_CLIENT)) == "11.0.0.1"


def test_trusting_every_peer_reads_forwarded_headers_from_any_peer() -> None:
    assert resolve(["*"], "192.0.2.50", ("X-Forwarded-For", CLIENT)) == CLIENT
    assert resolve(["*"], "2001:db8::5", ("Forwarded", f"for={CLIENT}")) == CLIENT


def test_trusting_every_peer_reads_only_the_hop_the_peer_added() -> None:
    # The client writes the left part of the header itself: under `*` it must not pick its own bucket.
    chain = ("X-Forwarded-For", f"{OTHER_CLIENT}, {CLIENT}")
    assert resolve(["*"], "192.0.2.50", chain) == CLIENT


@pytest.mark.parametrize("hop", [f"{CLIENT}:1234", f"[{V6_CLIENT}]:443"])
def test_x_forwarded_for_entries_with_a_port_are_read(hop: str) -> None:
    expected = hop.rsplit(":", 1)[0].strip("[]")
    assert resolve(["127.0.0.1"], "127.0.0.1", ("X-Forwarded-For", hop)) == expected


def test_when_every_hop_is_trusted_the_leftmost_one_is_the_client() -> None:
    chain = ("X-Forwarded-For", "10.9.9.9, 10.1.1.1")
    assert resolve(["10.0.0.0/8"], "10.0.0.1", chain) == "10.9.9.9"


def test_several_x_forwarded_for_headers_are_joined_in_order() -> None:
    first = ("X-Forwarded-For", f"{OTHER_CLIENT}, {CLIENT}")
    second = ("X-Forwarded-For", "10.1.2.3")
    assert resolve(["10.0.0.0/8"], "10.0.0.1", first, second) == CLIENT
    # The last header was added nearest to us, so its hop is read first.
    one, other = ("X-Forwarded-For", CLIENT), ("X-Forwarded-For", OTHER_CLIENT)
    assert resolve(["127.0.0.1"], "127.0.0.1", one, other) == OTHER_CLIENT
    assert resolve(["127.0.0.1"], "127.0.0.1", other, one) == CLIENT


def test_forwarded_for_is_read() -> None:
    assert resolve(["127.0.0.1"], "127.0.0.1", ("Forwarded", f"for={CLIENT};proto=https")) == CLIENT


def test_forwarded_for_with_quotes_and_mixed_case_name() -> None:
    assert resolve(["127.0.0.1"], "127.0.0.1", ("Forwarded", f'For="{CLIENT}"')) == CLIENT


def test_forwarded_ipv4_with_port() -> None:
    assert resolve(["127.0.0.1"], "127.0.0.1", ("Forwarded", f'for="{CLIENT}:4711"')) == CLIENT


def test_forwarded_ipv6_in_brackets_with_port() -> None:
    forwarded = ("Forwarded", 'for="[2001:db8:cafe::17]:4711"')
    assert resolve(["127.0.0.1"], "127.0.0.1", forwarded) == "2001:db8:cafe::17"


def test_forwarded_ipv6_in_brackets_without_port() -> None:
    assert resolve(["127.0.0.1"], "127.0.0.1", ("Forwarded", 'for="[2001:db8::1]"')) == "2001:db8::1"


def test_forwarded_chain_is_read_from_the_right_across_elements_and_headers() -> None:
    first = ("Forwarded", f"for={OTHER_CLIENT}, for={CLIENT};by=10.0.0.1")
    second = ("Forwarded", 'for="10.3.3.3:80";proto=http')
    assert resolve(["10.0.0.0/8"], "10.0.0.1", first, second) == CLIENT


def test_forwarded_is_preferred_over_x_forwarded_for() -> None:
    both = [("X-Forwarded-For", OTHER_CLIENT), ("Forwarded", f"for={CLIENT}")]
    assert resolve(["127.0.0.1"], "127.0.0.1", *both) == CLIENT
    assert resolve(["127.0.0.1"], "127.0.0.1", *reversed(both)) == CLIENT


def test_an_unparseable_hop_stops_the_walk_at_the_last_trusted_hop() -> None:
    # Nothing left of garbage can be trusted, so the client is the trusted hop that passed it on.
    chain = ("X-Forwarded-For", f"{OTHER_CLIENT}, not-an-address, 10.1.2.3")
    assert resolve(["10.0.0.0/8"], "10.0.0.1", chain) == "10.1.2.3"


def test_an_obfuscated_forwarded_node_stops_the_walk() -> None:
    forwarded = ("Forwarded", f'for={OTHER_CLIENT}, for="_hidden", for=10.1.2.3')
    assert resolve(["10.0.0.0/8"], "10.0.0.1", forwarded) == "10.1.2.3"


def test_an_unparseable_hop_right_at_the_proxy_leaves_the_proxy_as_the_client() -> None:
    assert resolve(["127.0.0.1"], "127.0.0.1", ("X-Forwarded-For", f"{CLIENT}, unknown")) == "127.0.0.1"


# Address forms.


def test_ipv4_mapped_ipv6_peer_is_shown_as_ipv4() -> None:
    assert resolve([], f"::ffff:{CLIENT}") == CLIENT


def test_ipv4_mapped_ipv6_peer_matches_an_ipv4_trusted_proxy() -> None:
    assert resolve(["127.0.0.1"], "::ffff:127.0.0.1", ("X-Forwarded-For", CLIENT)) == CLIENT


def test_ipv4_mapped_forwarded_hop_is_shown_as_ipv4() -> None:
    assert resolve(["127.0.0.1"], "127.0.0.1", ("X-Forwarded-For", f"::ffff:{CLIENT}")) == CLIENT


def test_trusted_ipv6_proxy_network() -> None:
    assert resolve(["fd00::/8"], "fd12::1", ("X-Forwarded-For", CLIENT)) == CLIENT


# Rate-limit partitions.


def test_ipv4_client_is_its_own_partition() -> None:
    assert rate_limit_partition(CLIENT) == CLIENT
    assert rate_limit_partition(CLIENT) != rate_limit_partition(OTHER_CLIENT)


def test_ipv6_clients_in_one_slash_64_share_a_partition() -> None:
    one = rate_limit_partition("2001:db8:1:2:aaaa::1")
    same_subnet = rate_limit_partition("2001:db8:1:2:ffff:ffff:ffff:fffe")
    next_subnet = rate_limit_partition("2001:db8:1:3::1")
    assert one == same_subnet == "2001:db8:1:2::/64"
    assert next_subnet != one


def test_unknown_address_has_one_shared_partition() -> None:
    assert rate_limit_partition(None) == "unknown"


def test_resolved_ipv6_client_partition_end_to_end() -> None:
    forwarded = ("Forwarded", 'for="[2001:db8:1:2::99]:443"')
    first = resolve(["127.0.0.1"], "127.0.0.1", forwarded)
    second = resolve([], "2001:db8:1:2:dead:beef::1")
    assert rate_limit_partition(first) == rate_limit_partition(second)


def test_an_addresss_partition_is_worked_out_once_and_the_memory_is_bounded() -> None:
    """Every tool call asks for its caller's partition: a repeated address is answered from memory."""
    rate_limit_partition.cache_clear()
    first = rate_limit_partition("2001:db8:9:9::1")
    assert rate_limit_partition("2001:db8:9:9::1") == first == "2001:db8:9:9::/64"
    info = rate_limit_partition.cache_info()
    assert (info.hits, info.misses) == (1, 1) and info.maxsize is not None
