"""How a response goes out on a connection of `BoundedHttpProtocol`: a sized answer in one write, head and body.

uvicorn's request cycle writes a response's head as soon as the app starts it, and its body when the app sends
it: two writes, so two system calls and, on a keep-alive connection with no delay, two TCP segments for an
answer of a kilobyte. Each write to a socket runs the kernel's whole send path (on loopback, the receiver's
too), and the process's own code runs slower after it, its caches and branch history partly displaced. So a
response that declares its length (every JSON answer, error and page the service sends) keeps its head until
the first part of its body, and both go out in one write. A stream (`Transfer-Encoding: chunked`: an SSE
answer, a body of unknown length) still gets its head at once, so a client waiting on the first event sees the
status at once as before.

It also checks header names and values in one pass each over all of them (a forbidden byte anywhere is found as
surely as header by header), where uvicorn runs two regular-expression searches per header. The pass marks
uvicorn's forbidden bytes with `bytes.translate` and looks for a mark (`inputs.byte_marks`).

Otherwise `send` takes uvicorn 0.54's steps (compare them on an upgrade): the access log line, `Content-Length`
kept to its word, `Connection: close`, `HEAD` answers without a body, the completion callback. So does `receive`
(the 100-continue, the body, the disconnect), but it resumes reading only when reading was paused.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from operator import itemgetter

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent, HTTPRequestEvent, HTTPScope
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import (
    HEADER_RE,
    HEADER_VALUE_RE,
    STATUS_LINE,
    RequestResponseCycle,
)
from uvicorn.protocols.utils import get_client_addr, get_path_with_query_string

from garage_tools.inputs import byte_marks

_NAME, _VALUE = itemgetter(0), itemgetter(1)


#: uvicorn's rules for the bytes of header names and values, as tables for `byte_marks`'s check (`inputs.py`): one
#: C pass over all names and one over all values, where uvicorn's character classes took some 20 instructions a
#: byte (8k a call, measured) in two searches a header.
NAME_MARKS = byte_marks(HEADER_RE)
VALUE_MARKS = byte_marks(HEADER_VALUE_RE)


class OneWriteCycle(RequestResponseCycle):
    """uvicorn's request cycle, writing a response with a known length in one `transport.write`.

    In place of uvicorn's `message_event` (an `asyncio.Event`, whose making, setting twice, waiting and clearing
    are five Python calls a request), the cycle notes `news` for `receive`: body bytes, the body's end, a
    disconnect or the response's end. `receive` waits on a future only when there is no news, and only then is
    there a waiter to wake (`tell`). The protocol's parser callbacks note the news in place.
    """

    #: The head of a response that has a length, written with the first part of its body.
    held_head: bytes | None = None
    #: Something happened that `receive` has not yet reported (uvicorn's `message_event` being set).
    news: bool = False
    #: The future a `receive` with no news waits on; None while none waits.
    waiter: asyncio.Future[None] | None = None

    def __init__(
        self,
        scope: HTTPScope,
        transport: asyncio.Transport,
        flow: FlowControl,
        logger: logging.Logger,
        access_logger: logging.Logger,
        access_log: bool,
        default_headers: list[tuple[bytes, bytes]],
        expect_100_continue: bool,
        keep_alive: bool,
        on_response: Callable[..., None],
    ) -> None:
        """uvicorn's (0.54), without the `message_event`."""
        self.scope = scope
        self.transport = transport
        self.flow = flow
        self.logger = logger
        self.access_logger = access_logger
        self.access_log = access_log
        self.default_headers = default_headers
        self.on_response = on_response
        self.disconnected = False
        self.keep_alive = keep_alive
        self.waiting_for_100_continue = expect_100_continue
        self.body = bytearray()
        self.more_body = True
        self.response_started = False
        self.response_complete = False
        self.chunked_encoding: bool | None = None
        self.expected_content_length = 0

    def tell(self) -> None:
        """Note news for `receive`, and wake it if it waits."""
        self.news = True
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def send(self, message: ASGISendEvent) -> None:
        if self.flow.write_paused and not self.disconnected:
            await self.flow.drain()
        if self.disconnected:
            return
        if not self.response_started:
            if message["type"] != "http.response.start":
                raise RuntimeError(f"Expected ASGI message 'http.response.start', but got '{message['type']}'.")
            self.response_started = True
            self.waiting_for_100_continue = False
            head = self._head(message["status"], [*self.default_headers, *message.get("headers", ())])
            if self.chunked_encoding:
                self.transport.write(head)  # a stream: its client may wait on the head
            else:
                self.held_head = head
            return
        if self.response_complete:
            raise RuntimeError(f"Unexpected ASGI message '{message['type']}' sent, after response already completed.")
        if message["type"] != "http.response.body":
            raise RuntimeError(f"Expected ASGI message 'http.response.body', but got '{message['type']}'.")
        body: bytes = message.get("body", b"")
        more_body = message.get("more_body", False)
        if self.scope["method"] == "HEAD":
            self.expected_content_length = 0
            out = b""
        elif self.chunked_encoding:
            out = b"%x\r\n%b\r\n" % (len(body), body) if body else b""
            if not more_body:
                out += b"0\r\n\r\n"
        else:
            if len(body) > self.expected_content_length:
                raise RuntimeError("Response content longer than Content-Length")
            self.expected_content_length -= len(body)
            out = body
        held = self.held_head
        if held is not None:
            self.held_head = None
            out = held + out
        if out:
            self.transport.write(out)
        if not more_body:
            if self.expected_content_length != 0:
                raise RuntimeError("Response content shorter than Content-Length")
            self.response_complete = True
            if self.waiter is not None:  # a `receive` waits (for a disconnect): wake it; a later one sees the end
                self.tell()
            if not self.keep_alive:
                self.transport.close()
            self.on_response()

    async def receive(self) -> ASGIReceiveEvent:
        """uvicorn's (0.54), but it waits only when there is no news, and resumes reading only when it was paused:
        a body that arrived whole (nearly all) costs no call for either."""
        if self.waiting_for_100_continue and not self.transport.is_closing():
            self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            self.waiting_for_100_continue = False
        if not self.disconnected and not self.response_complete:
            if self.flow.read_paused:
                self.flow.resume_reading()
            if not self.news:
                self.waiter = asyncio.get_running_loop().create_future()
                try:
                    await self.waiter
                finally:
                    self.waiter = None
            self.news = False
        if self.disconnected or self.response_complete:
            return {"type": "http.disconnect"}
        message: HTTPRequestEvent = {"type": "http.request", "body": bytes(self.body), "more_body": self.more_body}
        self.body = bytearray()
        return message

    def _head(self, status: int, headers: list[tuple[bytes, bytes]]) -> bytes:
        """The status line and headers, noting the body's framing and whether the connection stays open."""
        if self.access_log:
            self.access_logger.info(
                '%s - "%s %s HTTP/%s" %d',
                get_client_addr(self.scope),
                self.scope["method"],
                get_path_with_query_string(self.scope),
                self.scope["http_version"],
                status,
            )
        # `map` with an `itemgetter` runs in C; a comprehension would be a Python call of its own on 3.11.
        if 0 in b"".join(map(_NAME, headers)).translate(NAME_MARKS):
            raise RuntimeError("Invalid HTTP header name.")
        if 0 in b"".join(map(_VALUE, headers)).translate(VALUE_MARKS):
            raise RuntimeError("Invalid HTTP header value.")
        lines = [STATUS_LINE[status]]
        closes = False
        for name, value in headers:
            name = name.lower()
            if name == b"content-length" and self.chunked_encoding is None:
                self.expected_content_length = int(value.decode())
                self.chunked_encoding = False
            elif name == b"transfer-encoding" and value.lower() == b"chunked":
                self.expected_content_length = 0
                self.chunked_encoding = True
            elif name == b"connection" and b"close" in [token.strip().lower() for token in value.split(b",")]:
                self.keep_alive = False
                closes = True
            lines += (name, b": ", value, b"\r\n")  # measured fastest: no per-header bytes object
        if not self.keep_alive and not closes:
            lines.append(b"connection: close\r\n")
        if self.chunked_encoding is None and self.scope["method"] != "HEAD" and status not in (204, 304):
            self.chunked_encoding = True  # neither a length nor chunks declared: chunks
            lines.append(b"transfer-encoding: chunked\r\n")
        lines.append(b"\r\n")
        return b"".join(lines)
