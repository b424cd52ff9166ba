"""What the compression layer costs a tool call, in process: bare gate against the same gate wrapped.

`surfaces/compression.py` wraps every answer. A tool call pays for it twice over: reading
`Accept-Encoding` and holding the response start until the body shows whether to compress, and, for an
answer over `MINIMUM_SIZE`, the compression itself. This script calls a stand-in gate that answers at
once with a real answer's bytes (two ASGI messages, as a real gate sends) bare and wrapped, many times,
and prints the CPU time per call (process time: less disturbed by a busy machine than wall time).
Answers: a small one (a 400's envelope, under the threshold: the layer only looks) and `diagnose`'s
answer for "loud bang and the door won't open" (1.4 KB, also under it), and the same answer repeated to
8 KB (a large answer: compressed).

Usage (from the repository root):

    uv run python bench/compression.py                       # best of five, microseconds per call
    valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        .venv/bin/python bench/compression.py --only bare-large --calls 2000   # instruction counts
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from starlette.testclient import TestClient

from garage_tools.app import create_app
from garage_tools.headers import RequestHeaders
from garage_tools.settings import Settings
from garage_tools.surfaces.compression import Compression

SMALL = (
    b'{"error":{"code":"invalid_arguments","message":"Invalid arguments for costEstimate: issueKey: unknown issue '
    b'key \'nope\'.","status":400}}'
)
HEADERS = [
    (b"host", b"127.0.0.1:8000"),
    (b"content-type", b"application/json"),
    (b"content-length", b"40"),
    (b"accept-encoding", b"gzip, deflate, br, zstd"),
]


def diagnose_answer() -> bytes:
    """A real `diagnose` answer, as the REST surface writes it."""
    app = create_app(Settings())
    app.wrap_everything(lambda inner: inner)  # the bytes as the gate writes them
    with TestClient(app) as client:
        answer = client.post("/api/v1/diagnose", json={"description": "loud bang and the door won't open"})
    assert answer.status_code == 200, answer.text
    return answer.content


def gate_answering(body: bytes) -> Any:
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
    }
    end = {"type": "http.response.body", "body": body}

    async def gate(scope: Any, receive: Any, send: Any) -> None:
        RequestHeaders.of(scope)  # a real gate reads the headers (once per request, shared with the layer)
        await send(dict(start))
        await send(end)

    return gate


async def send(message: Any) -> None:
    pass


async def receive() -> Any:
    return {"type": "http.request", "body": b"{}"}


async def run(app: Any, calls: int) -> float:
    started = time.process_time()
    for _ in range(calls):
        scope = {"type": "http", "method": "POST", "path": "/api/v1/diagnose", "headers": HEADERS}
        await app(scope, receive, send)
    return (time.process_time() - started) / calls * 1e6


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20_000)
    parser.add_argument("--only", help="bare- or wrapped- and small, diagnose or large, e.g. wrapped-diagnose")
    options = parser.parse_args()
    large = diagnose_answer()
    apps = {}
    big = b"[" + b",".join([large] * 6) + b"]"
    for name, body in (("small", SMALL), ("diagnose", large), ("large", big)):
        gate = gate_answering(body)
        apps[f"bare-{name}"], apps[f"wrapped-{name}"] = gate, Compression(gate)
    if options.only:
        print(f"{options.only}: {await run(apps[options.only], options.calls):.1f} µs per call")
        return
    print(f"answers: small {len(SMALL)} bytes, diagnose {len(large)} bytes")
    for name, app in apps.items():
        best = min([await run(app, options.calls) for _ in range(5)])
        print(f"{name:14} {best:8.1f} µs per call (best of 5)")


if __name__ == "__main__":
    asyncio.run(main())
