"""What observing a tool call costs, in process: the request id and the one metrics observation.

A tool endpoint's gate is wrapped by its edge (`surfaces/edge.py`), which reads
or makes the request id, echoes it, notes the status and observes the duration. This script calls a
stand-in gate that answers at once (two ASGI messages, as a real one sends) bare and wrapped, many
times, and prints the difference per request: the whole per-request cost of observability on the
hot path, with no network and no server around it. Run it once with `PROMETHEUS_MULTIPROC_DIR` set
to an empty directory to see the multiprocess-mode cost (values in shared files instead of memory).

Usage (from the repository root):

    uv run python bench/observability.py
    PROMETHEUS_MULTIPROC_DIR=$(mktemp -d) uv run python bench/observability.py
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from garage_tools.observability.metrics import RequestMetrics, multiprocess_dir
from garage_tools.surfaces.cors import CorsPolicy
from garage_tools.surfaces.edge import ToolCallEdge

CALLS = 200_000
HEADERS = [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/json"), (b"content-length", b"40")]
START = {"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]}
BODY = {"type": "http.response.body", "body": b"{}"}


async def gate(scope: Any, receive: Any, send: Any) -> None:
    await send(dict(START))
    await send(BODY)


async def send(message: Any) -> None:
    pass


async def receive() -> Any:
    return {"type": "http.request", "body": b"{}"}


async def per_call(app: Any, headers: list[tuple[bytes, bytes]]) -> float:
    """Best of five runs, in microseconds per call."""
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        for _ in range(CALLS):
            scope = {"type": "http", "path_params": {"tool": "diagnose"}, "headers": headers}
            await app(scope, receive, send)
        best = min(best, (time.perf_counter() - started) / CALLS * 1e6)
    return best


async def main() -> None:
    cors = CorsPolicy(allow_methods=["POST"], allow_headers=[])
    observed = ToolCallEdge(gate, RequestMetrics("rest", ["diagnose"]), cors, tool_param="tool")
    bare = await per_call(gate, HEADERS)
    generated = await per_call(observed, HEADERS)
    given = await per_call(observed, [*HEADERS, (b"x-request-id", b"3f2a9c1e-7b4d-4e8a-9f0b-1c2d3e4f5a6b")])
    mode = "multiprocess (shared files)" if multiprocess_dir() else "single process (memory)"
    print(f"metrics: {mode}, {CALLS:,} calls, best of 5")
    print(f"bare gate:                          {bare:6.2f} µs/call")
    print(f"observed, id generated:             {generated:6.2f} µs/call  (+{generated - bare:.2f} µs)")
    print(f"observed, X-Request-Id from client: {given:6.2f} µs/call  (+{given - bare:.2f} µs)")


if __name__ == "__main__":
    asyncio.run(main())
