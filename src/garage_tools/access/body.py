"""Reading a request body with a size bound and a time bound, before anything parses it."""

from __future__ import annotations

import asyncio

from starlette.requests import ClientDisconnect
from starlette.types import Message, Receive

from garage_tools.errors import PayloadTooLarge, RequestTimeout


async def read_body(receive: Receive, *, declared_length: str | None, limit: int, seconds: float) -> bytes:
    """The whole body, refusing more than `limit` bytes (unread) or a body slower than `seconds`.

    A declared `Content-Length` over the limit is refused before a byte is read; a chunked or
    lying body is refused as soon as the bytes received pass the limit.
    """
    if declared_length is not None and declared_length.isdigit() and int(declared_length) > limit:
        raise PayloadTooLarge(
            f"The request body is {int(declared_length)} bytes; this endpoint accepts at most {limit}."
        )
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
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
    except TimeoutError:
        raise RequestTimeout(f"The request body did not arrive within {seconds:g} seconds.") from None
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


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
