"""Referral recording, off the request path.

Each search that named a partner is noted in memory and written to the store by a background task, in
batches, so recording a referral never adds a store round trip to `routeByZip` and a store outage never
fails a routing answer. While the store is down the referrals wait in memory (at most `max_pending`, the
oldest dropped first) and are written once it answers again. It is best effort: referrals still waiting
when the process stops are lost unless `flush()` runs on the way out. A referral is demand, not a lead:
nobody is mailed about it.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

from garage_tools.store.database import StoreUnavailable
from garage_tools.store.referrals import NewReferral, ReferralRepository

log = logging.getLogger(__name__)

BATCH = 50  # rows per INSERT: small, so SQLite's writer thread never holds the GIL for long


class ReferralRecorder:
    def __init__(
        self,
        repository: ReferralRepository,
        *,
        max_pending: int = 10_000,
        first_retry_seconds: float = 1.0,
        max_retry_seconds: float = 30.0,
    ) -> None:
        self.repository = repository
        self.max_pending = max_pending
        self.first_retry_seconds = first_retry_seconds
        self.max_retry_seconds = max_retry_seconds
        self.dropped = 0
        self._pending: deque[NewReferral] = deque()
        self._in_flight = 0  # taken for the INSERT under way; counted as pending until it commits
        self._writer: asyncio.Task[None] | None = None

    @property
    def pending(self) -> int:
        """Referrals not yet in the store, including a batch whose write is under way."""
        return len(self._pending) + self._in_flight

    def record(self, referral: NewReferral) -> None:
        """Note a referral and make sure a writer is on its way; returns at once."""
        self._keep(referral)
        if self._writer is None or self._writer.done():
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # no loop (a synchronous caller): it waits for the next flush
            self._writer = loop.create_task(self._write_all())

    async def flush(self) -> None:
        """Write every pending referral now (once); leaves them pending if the store does not answer. A batch the
        background writer has under way is waited for (a few seconds at most), so what was recorded is stored."""
        for _ in range(500):
            if not self._in_flight:
                break
            await asyncio.sleep(0.01)
        while self._pending:
            if not await self._write_batch():
                return

    def _keep(self, referral: NewReferral) -> None:
        if len(self._pending) >= self.max_pending:
            self._pending.popleft()
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning("referral recording is behind (store slow or down): %d dropped so far", self.dropped)
        self._pending.append(referral)

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
            await self.repository.add(batch)
        except Exception as exc:
            self._in_flight -= len(batch)
            if not isinstance(exc, StoreUnavailable):  # an outage is logged once by the store itself
                log.warning("could not record %d referrals (%s); will retry", len(batch), type(exc).__name__)
            # Back at the front, oldest first; beyond the bound the oldest go.
            self._pending.extendleft(reversed(batch))
            while len(self._pending) > self.max_pending:
                self._pending.popleft()
                self.dropped += 1
            return False
        self._in_flight -= len(batch)
        return True
