"""A sized response leaves in one write, head and body; a stream's head leaves at once (surfaces/one_write.py).

The protocol is driven as uvicorn drives it, through a transport that records each write: one write is one
system call and, on a connection without delay, one TCP segment.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from uvicorn._types import ASGIReceiveEvent as Message
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HEADER_RE, HEADER_VALUE_RE
from uvicorn.server import ServerState

from garage_tools.surfaces.connection_limits import BoundedHttpProtocol
from garage_tools.surfaces.one_write import OneWriteCycle
from tests.polling import eventually_async

Scope = dict[str, Any]


class RecordingTransport(asyncio.Transport):
    """A socket's transport that keeps what is written to it."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def sized(scope: Scope, receive: Any, send: Any) -> None:
    await receive()
    body = b'{"ok":true}'
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def answering_with(header: tuple[bytes, bytes]) -> Any:
    """An app answering with an empty body and `header` beside its length."""

    async def answering(scope: Scope, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"0"), header]})
        await send({"type": "http.response.body", "body": b""})

    return answering


def connection(app: Any) -> tuple[BoundedHttpProtocol, RecordingTransport]:
    config = Config(app, http=BoundedHttpProtocol, log_level="warning", access_log=False)
    config.load()
    protocol = BoundedHttpProtocol(config=config, server_state=ServerState(), app_state={})
    transport = RecordingTransport()
    protocol.connection_made(transport)
    return protocol, transport


async def answered(protocol: BoundedHttpProtocol) -> None:
    async def complete() -> bool:
        return protocol.cycle is not None and protocol.cycle.response_complete

    await eventually_async(complete, seconds=5, every=0.001, what="the response to complete")


async def test_a_sized_answer_goes_out_in_one_write_head_and_body() -> None:
    protocol, transport = connection(sized)
    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n")
    await answered(protocol)
    assert isinstance(protocol.cycle, OneWriteCycle)
    assert len(transport.writes) == 1
    head, body = transport.writes[0].split(b"\r\n\r\n", 1)
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"\r\ncontent-length: 11" in head
    assert body == b'{"ok":true}'
    assert not transport.closed  # kept alive for the next request

    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n")  # the next request on the connection
    await answered(protocol)
    assert len(transport.writes) == 2 and transport.writes[1].endswith(b'\r\n\r\n{"ok":true}')


async def test_a_head_request_gets_the_head_alone_in_one_write() -> None:
    protocol, transport = connection(sized)
    protocol.data_received(b"HEAD /x HTTP/1.1\r\nHost: example.com\r\n\r\n")
    await answered(protocol)
    assert len(transport.writes) == 1
    assert transport.writes[0].startswith(b"HTTP/1.1 200 OK\r\n") and transport.writes[0].endswith(b"\r\n\r\n")


async def test_a_streamed_answer_sends_its_head_before_its_first_part() -> None:
    first_part = asyncio.Event()

    async def stream(scope: Scope, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        await first_part.wait()
        await send({"type": "http.response.body", "body": b"data: 1\n\n", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    protocol, transport = connection(stream)
    protocol.data_received(b"GET /events HTTP/1.1\r\nHost: example.com\r\n\r\n")

    async def head_sent() -> bool:
        return len(transport.writes) == 1

    await eventually_async(head_sent, seconds=5, every=0.001, what="the stream's head")
    assert transport.writes[0].startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"transfer-encoding: chunked" in transport.writes[0] and transport.writes[0].endswith(b"\r\n\r\n")
    first_part.set()
    await answered(protocol)
    assert transport.writes[1:] == [b"9\r\ndata: 1\n\n\r\n", b"0\r\n\r\n"]


async def test_an_answer_asking_to_close_closes_after_its_one_write() -> None:
    async def closing(scope: Scope, receive: Any, send: Any) -> None:
        await receive()
        await send(
            {
                "type": "http.response.start",
                "status": 503,
                "headers": [(b"content-length", b"2"), (b"connection", b"close")],
            }
        )
        await send({"type": "http.response.body", "body": b"no"})

    protocol, transport = connection(closing)
    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n")
    await answered(protocol)
    assert len(transport.writes) == 1 and transport.writes[0].endswith(b"connection: close\r\n\r\nno")
    assert transport.closed


@pytest.mark.parametrize(
    ("header", "what"),
    [((b"x-note", b"a\r\nset-cookie: stolen=1"), "value"), ((b"x note", b"a"), "name")],
)
async def test_a_header_that_would_break_the_head_is_never_written(header: tuple[bytes, bytes], what: str) -> None:
    protocol, transport = connection(answering_with(header))
    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n")

    async def closed() -> bool:
        return transport.closed

    await eventually_async(closed, seconds=5, every=0.001, what=f"the connection to close on a bad header {what}")
    assert transport.writes == []  # nothing of the head went out, let alone the forged header


async def test_a_body_longer_than_its_length_is_refused_and_nothing_is_written() -> None:
    async def lying(scope: Scope, receive: Any, send: Any) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"three"})

    protocol, transport = connection(lying)
    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n")

    async def closed() -> bool:
        return transport.closed

    await eventually_async(closed, seconds=5, every=0.001, what="the connection to close")
    assert transport.writes == []


async def test_pipelined_requests_are_answered_in_order_each_in_one_write() -> None:
    paths: list[str] = []

    async def echo_path(scope: Scope, receive: Any, send: Any) -> None:
        await receive()
        paths.append(scope["path"])
        await asyncio.sleep(0.01 if scope["path"] == "/first" else 0)  # the first answer is the slower
        body = scope["path"].encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(body))]})
        await send({"type": "http.response.body", "body": body})

    protocol, transport = connection(echo_path)
    protocol.data_received(
        b"GET /first HTTP/1.1\r\nHost: example.com\r\n\r\nGET /second?x=1 HTTP/1.1\r\nHost: example.com\r\n\r\n"
    )

    async def both_answered() -> bool:
        return len(transport.writes) == 2

    await eventually_async(both_answered, seconds=5, every=0.001, what="both answers")
    assert paths == ["/first", "/second"]
    assert transport.writes[0].endswith(b"\r\n\r\n/first") and transport.writes[1].endswith(b"\r\n\r\n/second")


async def test_every_byte_uvicorn_refuses_in_a_header_is_refused_and_no_other() -> None:
    """The check marks forbidden bytes with a table instead of uvicorn's regular expressions: it must refuse a byte
    in a name or a value exactly when uvicorn's own rule would."""

    async def head_written(header: tuple[bytes, bytes]) -> bool:
        protocol, transport = connection(answering_with(header))
        protocol.data_received(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n")

        async def settled() -> bool:
            return transport.closed or bool(transport.writes)

        await eventually_async(settled, seconds=5, every=0.001, what="an answer or a closed connection")
        return bool(transport.writes)

    for byte in range(256):
        one = bytes([byte])
        assert await head_written((b"x-" + one, b"a")) == (HEADER_RE.search(one) is None), f"name byte {one!r}"
        assert await head_written((b"x-note", b"a" + one)) == (HEADER_VALUE_RE.search(one) is None), f"value {one!r}"


async def test_the_keep_alive_wait_is_a_deadline_of_the_sweep_not_a_timer_per_request() -> None:
    """After an answer the connection waits for its next request under the sweep's deadline (no timer armed and
    cancelled per request); its next bytes turn that wait into the head deadline."""
    protocol, transport = connection(sized)
    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n")
    await answered(protocol)
    deadlines = protocol.head_deadlines
    assert protocol.timeout_keep_alive_task is None  # uvicorn's own timer was never armed
    assert protocol.timeout_keep_alive != protocol.header_timeout  # so the two deadlines can be told apart
    assert protocol.idle
    assert abs(deadlines.pending[protocol] - deadlines.loop.time() - protocol.timeout_keep_alive) < 0.5

    protocol.data_received(b"GET /y HTTP/1.1\r\n")  # the next request has begun: its head is on the clock now
    assert not protocol.idle
    assert abs(deadlines.pending[protocol] - deadlines.loop.time() - protocol.header_timeout) < 0.5
    protocol.data_received(b"Host: example.com\r\n\r\n")
    await answered(protocol)
    assert len(transport.writes) == 2 and protocol.idle
    protocol.connection_lost(None)
    assert protocol not in deadlines.pending


async def test_a_body_arriving_after_the_app_waits_for_it_wakes_it_part_by_part() -> None:
    """The cycle waits for the request's bytes on a future of its own (no `asyncio.Event`): each part that arrives
    while the app waits wakes it, and the body's end comes with the last."""
    received: list[Message] = []

    async def echo(scope: Scope, receive: Any, send: Any) -> None:
        body = b""
        while True:
            message = await receive()
            received.append(message)
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        headers = [(b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    protocol, transport = connection(echo)
    protocol.data_received(b"POST /x HTTP/1.1\r\nHost: example.com\r\nContent-Length: 6\r\n\r\n")

    def waiting_after(parts: int) -> Callable[[], Awaitable[bool]]:
        async def waiting() -> bool:
            return len(received) == parts and protocol.cycle.waiter is not None

        return waiting

    await eventually_async(waiting_after(0), seconds=5, every=0.001, what="the app to wait for the body")
    protocol.data_received(b"abc")
    await eventually_async(waiting_after(1), seconds=5, every=0.001, what="the app to wait for the rest")
    protocol.data_received(b"def")
    await answered(protocol)
    assert [(m["body"], m["more_body"]) for m in received] == [(b"abc", True), (b"def", False)]
    assert transport.writes[0].endswith(b"\r\n\r\nabcdef")


async def test_a_receive_after_the_whole_body_waits_for_the_client_to_go() -> None:
    """As ASGI has it: once the body is read, `receive` answers `http.disconnect` when the client disconnects
    (and at once if it has)."""
    seen: list[str] = []
    gone = asyncio.Event()

    async def listening(scope: Scope, receive: Any, send: Any) -> None:
        assert (await receive())["more_body"] is False
        seen.append((await receive())["type"])  # waits: nothing more comes until the client goes
        seen.append((await receive())["type"])  # gone already: at once
        gone.set()

    protocol, _ = connection(listening)
    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n")

    async def waiting() -> bool:
        return protocol.cycle.waiter is not None

    await eventually_async(waiting, seconds=5, every=0.001, what="the app to wait for the client")
    assert seen == []
    protocol.connection_lost(None)
    await asyncio.wait_for(gone.wait(), 5)
    assert seen == ["http.disconnect", "http.disconnect"]
