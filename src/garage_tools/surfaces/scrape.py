"""`GET /metrics`: the Prometheus exposition of this process, or of every worker process together.

With `PROMETHEUS_MULTIPROC_DIR` set (as `serve --workers N` does), counters and histograms are
read from the files every worker writes there, so any worker's answer covers them all. Beside those,
each scrape asks the shared store and Redis a few questions, with a short timeout each: the outbox's
depth is a fact of the database, not of one process, and whether the dependencies answer is what an
alert wants to know. The endpoint is not a tool, so it is in neither `/openapi.json` nor `/api/v1`;
set `GARAGE_TOOLS_METRICS_TOKEN` to require `Authorization: Bearer <token>`.
"""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from prometheus_client import REGISTRY
from prometheus_client.exposition import choose_encoder
from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from pydantic import SecretStr
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from garage_tools.errors import AuthRequired
from garage_tools.headers import RequestHeaders
from garage_tools.observability.metrics import multiprocess_dir
from garage_tools.store.database import StoreUnavailable
from garage_tools.surfaces.responses import error_response

if TYPE_CHECKING:
    from garage_tools.access.ratelimit import RateLimiter
    from garage_tools.mail.outbox import Outbox, OutboxDepth

#: How long one scrape waits for the store and for Redis before reporting them down.
CHECK_SECONDS = 1.0


class _Families:
    """A collector over metric families computed for one scrape."""

    def __init__(self, families: list[Metric], *others: Collector) -> None:
        self.families = families
        self.others = others

    def collect(self) -> Iterable[Metric]:
        for other in self.others:
            yield from other.collect()
        yield from self.families


class MetricsEndpoint:
    def __init__(self, outbox: Outbox, limiter: RateLimiter, token: SecretStr | None) -> None:
        self.outbox = outbox
        self.limiter = limiter
        self.token = token.get_secret_value().encode() if token is not None else None
        directory = multiprocess_dir()
        # One collector over every worker's files, or this process's own registry when it reports alone.
        self.processes: Collector = REGISTRY
        if directory is not None:
            self.processes = MultiProcessCollector(None, directory)  # type: ignore[no-untyped-call]  # untyped upstream

    async def scrape(self, request: Request) -> Response:
        headers = RequestHeaders.of(request.scope)
        if self.token is not None and not self._authorized(headers.authorization):
            error = AuthRequired(
                "Metrics need the token set in GARAGE_TOOLS_METRICS_TOKEN: send 'Authorization: Bearer <token>'.",
                headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
            )
            return error_response(error)
        families = await self._dependencies()
        encode, content_type = choose_encoder(headers.accept)
        # Reading every worker's file is blocking I/O; keep it off the event loop.
        body = await run_in_threadpool(encode, _Families(families, self.processes))
        return Response(body, headers={"Content-Type": content_type})

    def _authorized(self, values: list[str]) -> bool:
        assert self.token is not None
        if len(values) != 1:
            return False
        scheme, _, credentials = values[0].strip().partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(credentials.strip().encode(), self.token)

    async def _dependencies(self) -> list[Metric]:
        depth, redis = await asyncio.gather(self._outbox_depth(), self._redis_up())
        store_up = GaugeMetricFamily(
            "garage_tools_store_up", "Whether the store answered this scrape's outbox query (1) or not (0)."
        )
        store_up.add_metric([], 1 if depth is not None else 0)
        families: list[Metric] = [store_up]
        if redis is not None:
            families.append(
                GaugeMetricFamily(
                    "garage_tools_redis_up",
                    "Whether Redis, which holds the shared rate-limit counters, answered a PING (1) or not (0).",
                    value=1 if redis else 0,
                )
            )
        if depth is not None:
            messages = GaugeMetricFamily(
                "garage_tools_outbox_messages",
                "Messages in the mail outbox not yet delivered (pending, sending) or given up on (dead).",
                labels=["status"],
            )
            for status, count in depth.counts.items():
                messages.add_metric([status], count)
            families.append(messages)
            waited = (datetime.now(UTC) - depth.oldest_waiting).total_seconds() if depth.oldest_waiting else 0.0
            families.append(
                GaugeMetricFamily(
                    "garage_tools_outbox_oldest_waiting_seconds",
                    "How long the oldest message still waiting for delivery has been queued (0 when none waits).",
                    value=max(waited, 0.0),
                )
            )
        return families

    async def _outbox_depth(self) -> OutboxDepth | None:
        try:
            async with asyncio.timeout(CHECK_SECONDS):
                return await self.outbox.depth()
        except (StoreUnavailable, SQLAlchemyError, OSError, TimeoutError):
            return None  # reported as garage_tools_store_up 0; the store logs the outage itself

    async def _redis_up(self) -> bool | None:
        return await self.limiter.ping(CHECK_SECONDS)
