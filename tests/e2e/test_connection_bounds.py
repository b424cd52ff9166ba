"""A real `garage-tools serve` bounds what slow or greedy clients can hold (surfaces/connection_limits.py).

Each test talks raw HTTP/1.1 over sockets, because the point is what happens *before* a request is whole.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.conftest import LiveServer, start_server, stop_server
from tests.polling import eventually

HEADER_TIMEOUT = 1.0
KEEP_ALIVE = 3  # longer than the pause of the keep-alive test below
MAX_CONNECTIONS = 5
SLACK = 2.0  # scheduling headroom on a loaded CI machine
PARTIAL_HEAD = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Never-Finished: aaa"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    live = start_server(
        tmp_path_factory.mktemp("bounded"),
        {
            "GARAGE_TOOLS_HEADER_TIMEOUT_SECONDS": str(HEADER_TIMEOUT),
            "GARAGE_TOOLS_KEEP_ALIVE_TIMEOUT_SECONDS": str(KEEP_ALIVE),
            "GARAGE_TOOLS_MAX_CONNECTIONS": str(MAX_CONNECTIONS),
        },
    )
    yield live
    stop_server(live)


def address(server: LiveServer) -> tuple[str, int]:
    parts = urlsplit(server.url)
    assert parts.hostname and parts.port
    return parts.hostname, parts.port


def connect(server: LiveServer, first_bytes: bytes = b"") -> socket.socket:
    sock = socket.create_connection(address(server), timeout=5)
    if first_bytes:
        sock.sendall(first_bytes)
    return sock


def read_until_closed(sock: socket.socket, within: float) -> bytes:
    """Everything the server sends until it closes the connection; fails if it is still open after `within`.

    A process that exits with bytes of ours still unread in its socket makes the kernel close with a reset rather
    than a FIN (RFC 1122 4.2.2.13): closed all the same, so what arrived before it is the answer."""
    sock.settimeout(within)
    received = b""
    try:
        while chunk := sock.recv(65536):
            received += chunk
    except ConnectionResetError:
        pass
    return received


def assert_is_408(reply: bytes) -> None:
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 "), reply
    assert b"connection: close" in head.lower()
    assert json.loads(body)["error"] | {"message": ""} == {"code": "request_timeout", "message": "", "status": 408}


def open_fds(server: LiveServer) -> int:
    return len(os.listdir(f"/proc/{server.process.pid}/fd"))


def get(connection: http.client.HTTPConnection) -> http.client.HTTPResponse:
    """GET /healthz, reading the whole body (kept on `.body`) so the connection can carry another request."""
    connection.request("GET", "/healthz")
    response = connection.getresponse()
    response.body = response.read()  # type: ignore[attr-defined]
    return response


def test_a_stalled_request_head_is_answered_408_and_closed_while_others_are_served(server: LiveServer) -> None:
    stalled = connect(server, PARTIAL_HEAD)
    silent = connect(server)  # connects and never sends a byte
    started = time.monotonic()
    other = http.client.HTTPConnection(*address(server), timeout=5)
    assert get(other).status == 200

    reply = read_until_closed(stalled, within=HEADER_TIMEOUT + SLACK)

    assert_is_408(reply)
    assert read_until_closed(silent, within=SLACK) == b""  # no request was started, so there is nothing to answer
    assert time.monotonic() - started < HEADER_TIMEOUT + SLACK
    assert get(other).status == 200  # the healthy connection is untouched


def test_a_client_trickling_its_headers_is_cut_off_at_the_head_deadline(server: LiveServer) -> None:
    # Start on a kept-alive connection: between requests only keep-alive (3 s) applies, and the first byte
    # of the next request cancels it; trickling a byte every 0.3 s never lets any idle timer fire.
    connection = http.client.HTTPConnection(*address(server), timeout=5)
    assert get(connection).status == 200
    sock = connection.sock
    assert sock is not None
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
    started = time.monotonic()
    trickled = 0
    while time.monotonic() - started < HEADER_TIMEOUT + SLACK:
        readable, _, _ = select.select([sock], [], [], 0.3)
        if readable:
            break
        sock.sendall(b"a")
        trickled += 1
    else:
        pytest.fail("the server let a trickling client keep its request head open")

    assert_is_408(read_until_closed(sock, within=SLACK))
    assert trickled >= 2  # the client was never idle for long


def test_many_stalled_connections_are_all_closed_and_their_descriptors_freed(server: LiveServer) -> None:
    baseline = open_fds(server)
    stalled = [connect(server, PARTIAL_HEAD) for _ in range(200)]
    try:
        eventually(lambda: open_fds(server) >= baseline + 190, seconds=SLACK, what="190 connections accepted and held")

        for sock in stalled:
            assert_is_408(read_until_closed(sock, within=HEADER_TIMEOUT + SLACK))

        eventually(lambda: open_fds(server) <= baseline + 5, seconds=SLACK, what="the descriptors to be freed")
    finally:
        for sock in stalled:
            sock.close()


def test_over_the_connection_cap_requests_get_503_at_once_not_a_queue(server: LiveServer) -> None:
    # uvicorn counts open connections, the asking one included, and refuses once the count reaches the cap.
    # Kept-alive connections hold their place without racing the head deadline.
    held = [http.client.HTTPConnection(*address(server), timeout=5) for _ in range(MAX_CONNECTIONS - 1)]
    try:
        for connection in held:
            assert get(connection).status == 200

        refused = get(http.client.HTTPConnection(*address(server), timeout=3))

        assert refused.status == 503
        assert json.loads(refused.body)["error"]["code"] == "service_unavailable"  # type: ignore[attr-defined]
        assert refused.getheader("Connection") == "close"
        assert refused.getheader("Retry-After") == "1"
    finally:
        for connection in held:
            connection.close()

    def served_again() -> bool:
        return get(http.client.HTTPConnection(*address(server), timeout=3)).status == 200

    eventually(served_again, seconds=SLACK)


def test_keep_alive_still_carries_a_second_request_after_a_pause(server: LiveServer) -> None:
    connection = http.client.HTTPConnection(*address(server), timeout=5)
    assert get(connection).status == 200
    first_socket = connection.sock

    # A sleep on purpose: the client stays idle between requests, longer than the head deadline and shorter than
    # keep-alive; the idleness is what is tested.
    time.sleep(HEADER_TIMEOUT + 0.5)

    assert get(connection).status == 200
    assert connection.sock is first_socket  # same connection, not a silent reconnect


def test_an_idle_kept_alive_connection_is_closed_once_keep_alive_has_passed(server: LiveServer) -> None:
    connection = http.client.HTTPConnection(*address(server), timeout=5)
    assert get(connection).status == 200
    sock = connection.sock
    assert sock is not None
    answered = time.monotonic()

    assert read_until_closed(sock, within=KEEP_ALIVE + SLACK) == b""  # nothing to answer: closed quietly

    # Not before keep-alive's time (less a little: the server's clock started as it sent the answer), nor long after.
    assert KEEP_ALIVE - 0.2 <= time.monotonic() - answered < KEEP_ALIVE + SLACK


def test_oversized_request_head_gets_431_and_is_closed(server: LiveServer) -> None:
    sock = connect(server, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    try:
        for _ in range(40):  # 40 KiB of headers, over the 32 KiB default, in separate packets
            sock.sendall(b"X-Padding: " + b"a" * 1024 + b"\r\n")
            time.sleep(0.005)  # a sleep on purpose: a pause between sends, so the lines arrive in separate packets
    except OSError:
        pass  # the server may hang up while we are still sending
    reply = read_until_closed(sock, within=SLACK)
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 "), reply
    assert json.loads(body)["error"]["code"] == "request_headers_too_large"


def test_sigterm_with_idle_connections_exits_cleanly_within_the_grace_period(tmp_path: Path) -> None:
    grace = 5
    live = start_server(tmp_path, {"GARAGE_TOOLS_GRACEFUL_SHUTDOWN_SECONDS": str(grace)})
    try:
        kept_alive = [http.client.HTTPConnection(*address(live), timeout=5) for _ in range(3)]
        for connection in kept_alive:
            assert get(connection).status == 200
        half_sent = connect(live, PARTIAL_HEAD)

        started = time.monotonic()
        live.process.send_signal(signal.SIGTERM)
        code = live.process.wait(timeout=grace + SLACK)

        assert code == 0
        assert time.monotonic() - started < grace
        assert read_until_closed(half_sent, within=1) == b""  # closed, not answered
        log = (live.workdir / "server.log").read_text()
        assert "ASGI callable returned without completing response" not in log
        assert "Traceback" not in log
    finally:
        stop_server(live)
