"""A request id for every HTTP request: taken from `X-Request-Id` or made here, echoed, and logged.

The id lets an operator follow one request from the proxy's log through every line this service
writes about it, and lets a caller quote it in a bug report. A proxy's id is kept when it is a
sane token (at most 128 characters of letters, digits and `-_.:`); anything else is replaced by
a fresh one rather than copied into the logs, so a client cannot forge log lines or flood them.

The id lives in a context variable, set once per request by `begin_request` (called by the
middleware in `observability.middleware`) and read by the log filter (`observability.logs`). It
is never reset: uvicorn runs each request in a task of its own, whose copy of the context ends
with it, and leaving it set is what lets the error that ends a request (logged by the server
after the app returned) still carry the id.
"""

from __future__ import annotations

import random
import re
from contextvars import ContextVar
from dataclasses import dataclass

from starlette.types import Scope

from garage_tools.headers import RequestHeaders

HEADER = b"x-request-id"
SCOPE_KEY = "garage_tools.request"
MAX_LENGTH = 128
_VALID = re.compile(rf"[A-Za-z0-9._:-]{{1,{MAX_LENGTH}}}")
_random_bits = random.getrandbits  # the module's generator, reseeded in each worker process (see `new_request_id`)


@dataclass(slots=True)
class RequestRecord:
    """What this service notes about the request in hand: its id, and for metrics its status and tool."""

    id: str
    status: int = 500  # until a response starts: a request that dies before answering counts as an error
    tool: str | None = None


_current: ContextVar[RequestRecord | None] = ContextVar("garage_tools_request", default=None)


def current_request() -> RequestRecord | None:
    """The request being handled in this task, if any."""
    return _current.get()


def current_request_id() -> str | None:
    """The id of the request being handled in this task, if any."""
    record = _current.get()
    return record.id if record is not None else None


def note_tool(name: str) -> None:
    """Name the tool the request in hand calls, once a surface has read it (MCP names it in the body)."""
    record = _current.get()
    if record is not None:
        record.tool = name


def new_request_id() -> str:
    """128 random bits as 32 hex characters.

    An id is a name to find a request by in the logs, not a secret, so it comes from the process's Mersenne
    Twister (reseeded from the OS in each worker process) rather than the OS: a system call per request
    (`os.urandom`) took twice as long, and its kernel entry costs the code after it more. The bits are written
    out by `bytes.hex` (120 ns), not a format spec (300 ns).
    """
    return _random_bits(128).to_bytes(16, "big").hex()


def begin_request(scope: Scope, headers: RequestHeaders | None = None) -> RequestRecord:
    """Start the record of an HTTP request: its id from `X-Request-Id` when sane, else a new one. `headers`: the
    request's, when the caller has them in hand.

    The record is also kept in the scope, so an inner layer can tell that an outer one began it.
    """
    sent = (headers or RequestHeaders.of(scope)).request_id
    accepted = accepted_request_id(sent) if sent is not None else None  # most requests send none
    record = RequestRecord(accepted or new_request_id())
    scope[SCOPE_KEY] = record
    _current.set(record)
    return record


def accepted_request_id(value: str | None) -> str | None:
    """`value` as the request id when it is a sane token, else None."""
    if value is None or len(value) > MAX_LENGTH:
        return None
    return value if _VALID.fullmatch(value) else None
