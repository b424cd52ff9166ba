"""The HTTP/1.1 protocol `serve` runs: uvicorn's httptools protocol plus the connection bounds it lacks.

uvicorn limits how long a connection may sit idle *between* requests (keep-alive), but not how long a
client may take to send a request's head, and httptools puts no limit on the head's size. A client that
sends its headers a byte at a time, or never finishes them, would hold a connection and a file
descriptor for as long as it likes. This protocol adds:

* a head deadline (`header_timeout_seconds`), armed when a connection opens and when a request starts
  and disarmed once the headers are complete. If it passes first the connection is closed, with a
  `408 request_timeout` when the client had started a request and no response is in flight. The
  deadlines of all connections are kept by one sweep (`HeadDeadlines`), not a timer per request;
* the keep-alive wait between requests (`timeout_keep_alive`) kept by the same sweep, in place of the timer
  uvicorn makes after every response and cancels at the next request's first bytes. An idle connection is
  closed within the sweep's resolution (at most a second) after its time;
* a head size cap (uvicorn's `h11_max_incomplete_event_size`, which only h11 honours): `431`, then close;
* the `limit_concurrency` refusal as our JSON `503 service_unavailable` instead of uvicorn's plain text;
* each request's cycle writes as `one_write.py` says: an answer with a length in one write, head and body.

How long the request *body* may take is bounded in the request path, not here.
"""

from __future__ import annotations

import asyncio
import functools
import urllib.parse
import weakref
from typing import ClassVar

import httptools
from uvicorn._types import ASGIReceiveCallable, ASGISendCallable, Scope
from uvicorn.config import Config
from uvicorn.logging import TRACE_LOG_LEVEL
from uvicorn.protocols.http.flow_control import HIGH_WATER_LIMIT
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from garage_tools.errors import RequestHeadersTooLarge, RequestTimeout, ServiceError, ServiceUnavailable
from garage_tools.settings import Settings
from garage_tools.surfaces.one_write import OneWriteCycle
from garage_tools.surfaces.responses import encode_error

#: h11's own default, for when uvicorn's `h11_max_incomplete_event_size` is not set.
DEFAULT_MAX_HEAD_BYTES = 16 * 1024

OVER_CAPACITY = ServiceUnavailable("The server is at its connection limit; retry shortly.", retry_after=1)


class HeadDeadlines:
    """The head deadlines of one event loop's connections, kept by one timer instead of one per request.

    A timer armed and cancelled for every request cost about 2 µs of CPU (uvloop), a few per cent of a tool
    call. A connection notes its deadline here instead, and one sweep every `resolution` seconds, scheduled
    only while a deadline is pending, tells the connections past theirs. A deadline holds to within
    `resolution`: a quarter of the head timeout, at most a second.
    """

    #: By event loop, held weakly: a loop that has ended takes its deadlines with it.
    _of_loop: ClassVar[weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, HeadDeadlines]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, loop: asyncio.AbstractEventLoop, resolution: float) -> None:
        self.loop = loop
        self.resolution = resolution
        #: Connection -> its deadline (read by the connections' own hot path: whether theirs is armed).
        self.pending: dict[BoundedHttpProtocol, float] = {}
        self._sweep_handle: asyncio.TimerHandle | None = None

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop, timeout: float) -> HeadDeadlines:
        """The deadlines of `loop` (one per worker process), made on its first connection."""
        found = cls._of_loop.get(loop)
        if found is None:
            found = cls._of_loop[loop] = cls(loop, min(1.0, timeout / 4))
        return found

    def arm(self, connection: BoundedHttpProtocol, seconds: float, *, replace: bool = False) -> None:
        """Give `connection` a deadline `seconds` from now, unless it has one (time already spent still counts);
        with `replace`, in place of the one it has (the keep-alive wait after a response)."""
        if replace or connection not in self.pending:
            self.pending[connection] = self.loop.time() + seconds
            if self._sweep_handle is None:
                self._sweep_handle = self.loop.call_later(self.resolution, self._sweep)

    def disarm(self, connection: BoundedHttpProtocol) -> None:
        self.pending.pop(connection, None)

    def armed(self, connection: BoundedHttpProtocol) -> bool:
        return connection in self.pending

    def _sweep(self) -> None:
        now = self.loop.time()
        passed = [connection for connection, deadline in self.pending.items() if deadline <= now]
        for connection in passed:
            del self.pending[connection]
        for connection in passed:
            connection.head_deadline_passed()
        self._sweep_handle = self.loop.call_later(self.resolution, self._sweep) if self.pending else None


@functools.cache
def header_timeout_seconds() -> float:
    """The head deadline. uvicorn has no setting to carry it, so each worker reads it once from `Settings`."""
    return Settings().header_timeout_seconds


def envelope_response(error: ServiceError) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """Headers and body of a `Connection: close` response carrying the error envelope."""
    body, headers = encode_error(error)
    return [*headers, (b"connection", b"close")], body


async def refuse_over_capacity(scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
    """Stands in for the app while the worker is over `limit_concurrency`."""
    headers, body = envelope_response(OVER_CAPACITY)
    await send({"type": "http.response.start", "status": OVER_CAPACITY.status, "headers": headers})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class BoundedHttpProtocol(HttpToolsProtocol):
    """`HttpToolsProtocol` with a deadline and a size cap on every request head.

    Select it with `uvicorn.run(..., http="garage_tools.surfaces.connection_limits:BoundedHttpProtocol")`.
    """

    cycle: OneWriteCycle  # every cycle is made here (`on_headers_complete`)

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, object],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.header_timeout = header_timeout_seconds()
        self.max_head_bytes = config.h11_max_incomplete_event_size or DEFAULT_MAX_HEAD_BYTES
        # We apply the concurrency limit ourselves (same rule as uvicorn) so the 503 carries our envelope.
        self.connection_cap = self.limit_concurrency
        self.limit_concurrency = None
        self.head_deadlines = HeadDeadlines.of(self.loop, self.header_timeout)
        self.head_open = False  # between on_message_begin and on_headers_complete
        self.idle = False  # between a response and the next bytes: the pending deadline is keep-alive's
        self.head_began_in_this_read = False
        self.head_bytes = 0

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.head_deadlines.arm(self, self.header_timeout)  # a client that connects and says nothing is bounded too

    def connection_lost(self, exc: Exception | None) -> None:
        """uvicorn's steps (0.54), with the deadline disarmed and the cycle told as `OneWriteCycle` is."""
        self.head_deadlines.disarm(self)
        self.connections.discard(self)
        if self.logger.level <= TRACE_LOG_LEVEL:
            prefix = f"{self.client[0]}:{self.client[1]} - " if self.client else ""
            self.logger.log(TRACE_LOG_LEVEL, "%sHTTP connection lost", prefix)
        cycle = self.cycle
        if cycle is not None:
            if not cycle.response_complete:
                cycle.disconnected = True
            cycle.tell()
        if self.flow is not None:
            self.flow.resume_writing()
        if exc is None:
            self.transport.close()
        self._unset_keepalive_if_required()
        self.parser = None  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        """uvicorn's (0.54: compare on an upgrade), with the deadlines. Each request passes here, in `on_message_begin`
        and in `on_headers_complete`: the deadlines are armed and read in place, with no helper between."""
        deadlines = self.head_deadlines
        if self.idle:
            # Bytes after a response (blank lines, the unread rest of an answered body, a new request) end the
            # keep-alive wait for good; the head deadline takes over so they can't trickle forever.
            self.idle = False
            deadlines.pending[self] = self.loop.time() + self.header_timeout  # the sweep runs: a deadline is pending
        elif self not in deadlines.pending and (self.cycle is None or self.cycle.response_complete):
            deadlines.arm(self, self.header_timeout)
        self.head_began_in_this_read = False
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            message = "Invalid HTTP request received."
            self.logger.warning(message)
            self.send_400_response(message)
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
        if self.transport.is_closing() or not self.head_open:
            return
        # Count whole reads spent inside one head. The read a head starts in is not counted (it may hold the
        # end of the previous request), so a head can exceed the cap by at most one read (256 KiB).
        if not self.head_began_in_this_read:
            self.head_bytes += len(data)
        if self.head_bytes > self.max_head_bytes:
            self.logger.info("Request head over %d bytes; closing the connection.", self.max_head_bytes)
            if self._response_in_flight():
                self.transport.close()  # a pipelined head behind a response: no place to put a 431
            else:
                self._answer_and_close(RequestHeadersTooLarge("The request line and headers are too large."))

    # httptools parser callbacks

    def on_message_begin(self) -> None:
        # uvicorn's steps (0.54), in place: a call of its method would be one Python call more on every request.
        self.url = b""
        self.expect_100_continue = False
        self.headers = []
        self.scope = {  # type: ignore[typeddict-item]
            "type": "http",
            "asgi": {"version": self.asgi_version, "spec_version": "2.3"},
            "http_version": "1.1",
            "server": self.server,
            "client": self.client,
            "scheme": self.scheme,  # type: ignore[typeddict-item]
            "root_path": self.root_path,
            "headers": self.headers,
            "state": self.app_state.copy(),
        }
        self.head_open = True
        self.head_began_in_this_read = True
        self.head_bytes = 0
        if self not in self.head_deadlines.pending:  # when armed, time spent so far still counts
            self.head_deadlines.arm(self, self.header_timeout)

    def on_body(self, body: bytes) -> None:
        """uvicorn's steps (0.54), with the cycle's news noted in place (`OneWriteCycle`)."""
        cycle = self.cycle
        if (self.parser.should_upgrade() and self._should_upgrade()) or cycle.response_complete:
            return
        cycle.body += body
        if len(cycle.body) > HIGH_WATER_LIMIT:
            self.flow.pause_reading()
        cycle.news = True
        if cycle.waiter is not None:  # the app waits for these bytes
            cycle.tell()

    def on_message_complete(self) -> None:
        """uvicorn's steps (0.54), with the cycle's news noted in place (`OneWriteCycle`)."""
        cycle = self.cycle
        if (self.parser.should_upgrade() and self._should_upgrade()) or cycle.response_complete:
            return
        cycle.more_body = False
        cycle.news = True
        if cycle.waiter is not None:  # the app waits for the body's end
            cycle.tell()

    def on_headers_complete(self) -> None:
        """uvicorn's steps (as of 0.54: compare them on an upgrade), but the cycle is a `OneWriteCycle` from the start
        and a request over the concurrency cap gets our envelope. Changing the class of uvicorn's cycle afterwards
        cost 18k instructions a request: Python 3.11 then reads the object's attributes the slow way."""
        self.head_deadlines.pending.pop(self, None)
        self.head_open = False
        parser = self.parser
        scope = self.scope
        http_version = parser.get_http_version()
        scope["method"] = parser.get_method().decode("ascii")
        if http_version != "1.1":
            scope["http_version"] = http_version
        if parser.should_upgrade() and self._should_upgrade():
            return
        url = httptools.parse_url(self.url)
        raw_path = url.path
        path = raw_path.decode("ascii")
        if "%" in path:
            path = urllib.parse.unquote(path)
        scope["path"] = self.root_path + path
        scope["raw_path"] = self.root_path.encode("ascii") + raw_path
        scope["query_string"] = url.query or b""
        cap = self.connection_cap  # uvicorn's rule: the open connections, or the requests in hand, at the cap
        app = self.app
        if cap is not None and (len(self.connections) >= cap or len(self.tasks) >= cap):
            self.logger.warning("Exceeded concurrency limit.")
            app = refuse_over_capacity
        in_hand = self.cycle
        self.cycle = OneWriteCycle(
            scope=scope,
            transport=self.transport,
            flow=self.flow,
            logger=self.logger,
            access_logger=self.access_logger,
            access_log=self.access_log,
            default_headers=self.server_state.default_headers,
            expect_100_continue=self.expect_100_continue,
            keep_alive=http_version != "1.0" and parser.should_keep_alive(),
            on_response=self.on_response_complete,
        )
        if in_hand is None or in_hand.response_complete:
            self._start_asgi_task(self.cycle, app)
        else:  # pipelined behind a request still being answered: it waits its turn, and reading pauses meanwhile
            self.flow.pause_reading()
            self.pipeline.appendleft((self.cycle, app))

    def on_response_complete(self) -> None:
        """uvicorn's steps (0.54), but the keep-alive wait is a deadline of the sweep, not a timer of its own."""
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        if self.flow.read_paused:
            self.flow.resume_reading()
        if self.pipeline:  # a pipelined request waited its turn: it starts now
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
        elif not self.head_open:  # a head already begun keeps its own deadline
            self.idle = True
            self.head_deadlines.arm(self, self.timeout_keep_alive, replace=True)

    # The deadline

    def head_deadline_passed(self) -> None:
        """Told by `HeadDeadlines` when this connection's deadline has passed (it is disarmed by then): its head's,
        or its keep-alive wait's."""
        if self.transport.is_closing():
            return
        if self.idle:  # no request came within keep-alive: hang up, as uvicorn's own timer would
            self.idle = False
            self.transport.close()
            return
        if self._response_in_flight():
            # The late head is pipelined behind a request still being answered: finish that, then close.
            self.cycle.keep_alive = False
        elif self.head_open:
            self.logger.info("Request head not received within %gs; closing the connection.", self.header_timeout)
            self._answer_and_close(RequestTimeout("The request headers were not received in time."))
        else:
            self.transport.close()  # no request started: nothing to answer

    # Helpers

    def _response_in_flight(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def _answer_and_close(self, error: ServiceError) -> None:
        """Write a whole error response straight to the socket (no request cycle exists) and hang up."""
        headers, body = envelope_response(error)
        lines = [name + b": " + value + b"\r\n" for name, value in [*self.server_state.default_headers, *headers]]
        self.transport.write(b"".join([STATUS_LINE[error.status], *lines, b"\r\n", body]))
        self.transport.close()
