"""Reading a request body with a size bound and a time bound, and the text rule (`inputs.py`), before anything
parses it."""

from __future__ import annotations

import asyncio
import threading

from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive

from garage_tools.errors import PayloadTooLarge, RequestTimeout
from garage_tools.inputs import check_body


class BodyDeadlines:
    """Time bounds on body reads with one timer per process, not one per request.

    A timer per request (`asyncio.timeout`) cost about as much as the rest of the access gate.
    Instead a read registers its deadline in a dict, and one sweep every `resolution` seconds,
    scheduled only while reads are in flight, cancels those past theirs; so a deadline holds to
    within `resolution`.
    """

    def __init__(self, resolution: float = 0.5) -> None:
        self.resolution = resolution
        self._reads: dict[asyncio.Task[object], float] = {}
        self._expired: set[asyncio.Task[object]] = set()
        self._sweep_handle: asyncio.TimerHandle | None = None
        self._last = threading.local()  # `loop`: the event loop this thread last read a body on

    def begin(self, seconds: float) -> asyncio.Task[object]:
        """Watch the task reading a body for `seconds`, and return it.

        The task is looked up under the loop this thread last read a body on: asked without a loop, Python 3.11
        finds the running loop by comparing process ids, a system call on every request. Found under that loop,
        it runs on it, so nothing more is asked of it."""
        loop: asyncio.AbstractEventLoop | None = getattr(self._last, "loop", None)
        task = asyncio.current_task(loop) if loop is not None else None
        if task is None:  # the first read on this thread, or its loop has changed
            task = asyncio.current_task()
            if task is None:
                raise RuntimeError("A request body can only be read inside an asyncio task.")
            loop = self._last.loop = task.get_loop()
        assert loop is not None
        self._reads[task] = loop.time() + seconds
        if self._sweep_handle is None:
            self._sweep_handle = loop.call_later(self.resolution, self._sweep, loop)
        return task

    def end(self, task: asyncio.Task[object]) -> bool:
        """Stop watching `task`; True when its deadline had passed (and it was cancelled for that)."""
        self._reads.pop(task, None)
        if task in self._expired:
            self._expired.discard(task)
            return True
        return False

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        now = loop.time()
        for task, deadline in list(self._reads.items()):
            if deadline <= now:
                del self._reads[task]
                self._expired.add(task)
                task.cancel()
        self._sweep_handle = loop.call_later(self.resolution, self._sweep, loop) if self._reads else None


async def read_body(
    receive: Receive,
    *,
    declared_length: str | None,
    content_type: str | None,
    limit: int,
    seconds: float,
    deadlines: BodyDeadlines,
) -> bytes:
    """The whole body, refusing more than `limit` bytes (unread), a body slower than `seconds`, or one holding a
    character the service cannot keep (`inputs.check_body`, read as `content_type` says).

    A declared `Content-Length` over the limit is refused before a byte is read; a chunked or
    lying body is refused as soon as the bytes received pass the limit.
    """
    if declared_length is not None and declared_length.isdigit() and int(declared_length) > limit:
        raise PayloadTooLarge(
            f"The request body is {int(declared_length)} bytes; this endpoint accepts at most {limit}."
        )
    task = deadlines.begin(seconds)
    chunks: list[bytes] = []
    size = 0
    try:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnect()
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise PayloadTooLarge(f"The request body is over {limit} bytes, the most this endpoint accepts.")
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
    except asyncio.CancelledError:
        if deadlines.end(task):
            task.uncancel()
            raise RequestTimeout(f"The request body did not arrive within {seconds:g} seconds.") from None
        raise
    deadlines.end(task)
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    check_body(body, content_type)
    return body


def replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that yields the already-read body once, then defers to the real one."""
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed
