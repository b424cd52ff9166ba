"""What the service counts for Prometheus, and the small API the rest of the code records with.

Every metric is defined here, once per process, with the official `prometheus_client`. With several
worker processes, `serve` points `PROMETHEUS_MULTIPROC_DIR` at a directory they all write to and
`/metrics` adds their files up (see `surfaces/scrape.py`); nothing here changes for that.

Recording is kept off the request's critical cost: a tool endpoint's request costs one dictionary
lookup for its labelled child's values and two increments (`RequestMetrics`). Everything else (rate-limit
refusals, provider calls, mail deliveries) is recorded where it happens and is rare or already slow.
"""

from __future__ import annotations

import os
import re
import time
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from prometheus_client import Counter, Gauge, Histogram, start_http_server
from prometheus_client.multiprocess import mark_process_dead

from garage_tools import __version__

MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"
#: The `tool` label of a request that names no tool (an MCP handshake or listing, or one refused before
#: its body was read), and of one that names a tool this service does not have.
NO_TOOL = "_none"
UNKNOWN_TOOL = "_unknown"
#: Tool calls take well under a millisecond to a few seconds (photo analysis by a model).
REQUEST_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
PROVIDER_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0)

REQUESTS = Histogram(
    "garage_tools_request_duration_seconds",
    "Tool endpoint requests (REST /api/v1/<tool>, /mcp, /mcp-pro) by tool, surface and HTTP status, and the "
    "seconds from the access gate to the response; `_count` is the number of requests.",
    ["tool", "surface", "status"],
    buckets=REQUEST_BUCKETS,
)
RATE_LIMITED = Counter(
    "garage_tools_rate_limit_rejections",
    "Calls refused by a rate limit, by the window that was full (the name in the RateLimit-Policy header).",
    ["policy"],
)
PROVIDER_CALLS = Histogram(
    "garage_tools_provider_call_duration_seconds",
    "Calls to outside model providers by provider, operation and outcome (`ok` or the kind of failure).",
    ["provider", "operation", "outcome"],
    buckets=PROVIDER_BUCKETS,
)
PROVIDER_ERRORS = Counter(
    "garage_tools_provider_errors",
    "Provider calls that did not succeed, by provider, operation and outcome.",
    ["provider", "operation", "outcome"],
)
MAIL_DELIVERIES = Counter(
    "garage_tools_mail_deliveries",
    "Delivery attempts by the mail workers of the processes reporting here: sent, retrying (failed, will be "
    "retried) or dead (failed for good).",
    ["outcome"],
)
# Labelled, so a process only has a value once `worker_metrics` sets it: a CLI command run with the
# multiprocess directory in its environment never shows up as a worker.
WORKER_STARTED = Gauge(
    "garage_tools_worker_start_time_seconds",
    "When each running service process started (Unix time), by version; one series per live worker process.",
    ["version"],
    multiprocess_mode="liveall",
)

_OUTCOME = re.compile(r"[a-z][a-z0-9_]{0,31}")


def multiprocess_dir() -> str | None:
    """The directory worker processes share their metrics through, when several report together."""
    return os.environ.get(MULTIPROCESS_ENV) or None


class RequestMetrics:
    """Observes the requests of one tool endpoint under their tool, surface and HTTP status.

    The values of each labelled child are kept per (tool, status), so a request costs one dictionary lookup and
    two increments: its seconds and its bucket (found by bisection). That is `Histogram.observe`'s own work without
    its three Python calls of checks around it (measured: 0.69 µs a call against 0.51). It reaches into the child's
    values (`_sum`, `_buckets`, `_upper_bounds` of prometheus_client 0.26, pinned); tests/unit/test_metrics.py
    compares the exposition with `observe`'s for values on and around every bound. Names the registry does not
    know all count as `_unknown` and are not kept, so a client cannot mint new series or grow the table.
    """

    def __init__(self, surface: str, tools: Iterable[str]) -> None:
        self.surface = surface
        self.tools = frozenset(tools)
        self._children: dict[tuple[str | None, int], tuple[Any, list[Any], list[float]]] = {}

    def observe(self, tool: str | None, status: int, seconds: float) -> None:
        values = self._children.get((tool, status))
        if values is None:
            values = self._child(tool, status)
        total, buckets, bounds = values
        total.inc(seconds)
        buckets[bisect_left(bounds, seconds)].inc(1)  # the first bucket whose bound is at least `seconds`

    def _child(self, tool: str | None, status: int) -> tuple[Any, list[Any], list[float]]:
        label = NO_TOOL if tool is None else tool if tool in self.tools else UNKNOWN_TOOL
        child = REQUESTS.labels(label, self.surface, str(status))
        values = (child._sum, child._buckets, child._upper_bounds)
        if label != UNKNOWN_TOOL:
            self._children[tool, status] = values
        return values


def count_rate_limited(windows: Iterable[str]) -> None:
    """A call was refused because these rate-limit windows were full."""
    for window in windows:
        RATE_LIMITED.labels(window).inc()


def record_provider_call(provider: str, operation: str, seconds: float, outcome: str) -> None:
    """Record one call to an outside model provider.

    `provider` names the provider (e.g. `anthropic`, `openai-compatible`), `operation` what was asked
    (e.g. `complete_json`, `analyse_json`); keep both to a fixed set. `outcome` is `ok`, or a short
    snake_case name of the failure (`timeout`, `rate_limited`, `server_error`, `bad_reply`...); anything
    else is recorded as `error`, so an exception message can never become a label.
    """
    if not _OUTCOME.fullmatch(outcome):
        outcome = "error"
    PROVIDER_CALLS.labels(provider, operation, outcome).observe(max(seconds, 0.0))
    if outcome != "ok":
        PROVIDER_ERRORS.labels(provider, operation, outcome).inc()


def count_mail_delivery(outcome: str) -> None:
    """One delivery attempt ended: `sent`, `retrying` or `dead`."""
    MAIL_DELIVERIES.labels(outcome).inc()


@contextmanager
def worker_metrics() -> Iterator[None]:
    """For the life of a service process: announce it, and on the way out retire its live series.

    With several workers, `mark_process_dead` removes this process's live-gauge file, so `/metrics`
    stops listing a worker that has stopped (a restarted worker appears under its new pid).
    """
    WORKER_STARTED.labels(__version__).set(time.time())
    try:
        yield
    finally:
        directory = multiprocess_dir()
        if directory is not None:
            mark_process_dead(os.getpid(), directory)  # type: ignore[no-untyped-call]  # untyped upstream


def serve_worker_metrics(host: str, port: int) -> None:
    """Serve this process's metrics over HTTP from a daemon thread: for a mail worker run on its own.

    The worker is no web server, and its counters live only in its memory (it has no multiprocess
    directory in common with `serve`), so it answers scrapes itself.
    """
    start_http_server(port, addr=host)
