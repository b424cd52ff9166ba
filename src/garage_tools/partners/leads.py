"""Lead recording, off the request path.

Each routed request is noted in memory and written to the store by a background task, in batches,
so recording a lead never adds a store round trip to `routeByZip` and a store outage never fails a
routing answer. While the store is down the leads wait in memory (at most `max_pending`, the oldest
dropped first) and are written once it answers again. It is best effort: leads still waiting when
the process stops are lost unless `flush()` runs on the way out.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from garage_tools.store.database import StoreUnavailable
from garage_tools.store.partners import Lead, PartnerRepository, TellAtOnce

log = logging.getLogger(__name__)

BATCH = 50  # rows per INSERT: small, so SQLite's writer thread never holds the GIL for long


class LeadRecorder:
    def __init__(
        self,
        repository: PartnerRepository,
        *,
        max_pending: int = 10_000,
        first_retry_seconds: float = 1.0,
        max_retry_seconds: float = 30.0,
        tell: TellAtOnce | None = None,
    ) -> None:
        self.repository = repository
        self.tell = tell  # urgent leads' notices, queued in the transaction that stores them
        self.max_pending = max_pending
        self.first_retry_seconds = first_retry_seconds
        self.max_retry_seconds = max_retry_seconds
        self.dropped = 0
        self._pending: deque[Lead] = deque()
        self._in_flight = 0  # taken for the INSERT under way; counted as pending until it commits
        self._writer: asyncio.Task[None] | None = None

    @property
    def pending(self) -> int:
        """Leads not yet in the store, including a batch whose write is under way."""
        return len(self._pending) + self._in_flight

    def record(self, lead: Lead) -> None:
        """Note a lead and make sure a writer is on its way; returns at once."""
        self._keep(lead)
        if self._writer is None or self._writer.done():
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # no loop (a synchronous caller): it waits for the next flush
            self._writer = loop.create_task(self._write_all())

    async def flush(self) -> None:
        """Write every pending lead now (once); leaves them pending if the store does not answer."""
        while self._pending:
            if not await self._write_batch():
                return

    def _keep(self, lead: Lead) -> None:
        if len(self._pending) >= self.max_pending:
            self._pending.popleft()
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning("lead recording is behind (store slow or down): %d leads dropped so far", self.dropped)
        self._pending.append(lead)

    async def _write_all(self) -> None:
        delay = self.first_retry_seconds
        while self._pending:
            if await self._write_batch():
                delay = self.first_retry_seconds
            else:
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.max_retry_seconds)

    async def _write_batch(self) -> bool:
        batch = [self._pending.popleft() for _ in range(min(BATCH, len(self._pending)))]
        self._in_flight += len(batch)
        try:
            await self.repository.add_leads(batch, self.tell)
        except Exception as exc:
            self._in_flight -= len(batch)
            if not isinstance(exc, StoreUnavailable):  # an outage is logged once by the store itself
                log.warning("could not record %d leads (%s); will retry", len(batch), type(exc).__name__)
            # Back at the front, oldest first; beyond the bound the oldest go.
            self._pending.extendleft(reversed(batch))
            while len(self._pending) > self.max_pending:
                self._pending.popleft()
                self.dropped += 1
            return False
        self._in_flight -= len(batch)
        return True
