"""Each key's tool calls per day, for its dashboard: added up in this process's memory, written in batches.

A call costs a dictionary increment on the hot path, never a write: the counts go to the store every
`flush_seconds` (one upsert for everything pending, `store/usage.py`) and when the process stops, so they
survive restarts on SQLite and PostgreSQL alike. A crash loses at most the last interval's counts; a store
that is away keeps them pending for the next flush (at most `MAX_PENDING` entries, then they are dropped with
a warning). Several processes add to the same rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from datetime import date, timedelta

from garage_tools.errors import ServiceUnavailable
from garage_tools.store.usage import UsageRepository

log = logging.getLogger(__name__)

DAY = 86400
EPOCH = date(1970, 1, 1)
MAX_PENDING = 100_000


class UsageCounter:
    def __init__(
        self, repository: UsageRepository, flush_seconds: float, clock: Callable[[], float] = time.time
    ) -> None:
        self.repository = repository
        self.flush_seconds = flush_seconds
        self.clock = clock
        self._pending: dict[tuple[str, int], int] = {}  # (key id, days since 1970-01-01 UTC) -> calls
        self._task: asyncio.Task[None] | None = None

    def note(self, key_id: str) -> None:
        """Count one call of `key_id` today (UTC)."""
        slot = (key_id, int(self.clock() // DAY))
        pending = self._pending
        pending[slot] = pending.get(slot, 0) + 1

    def today(self) -> date:
        return EPOCH + timedelta(days=int(self.clock() // DAY))

    async def flush(self) -> None:
        """Write what is pending (added to the stored counts); kept for the next flush if the store is away."""
        pending, self._pending = self._pending, {}
        if not pending:
            return
        try:
            await self.repository.add(
                {(key_id, EPOCH + timedelta(days=day)): n for (key_id, day), n in pending.items()}
            )
        except ServiceUnavailable:
            for slot, calls in pending.items():
                if len(self._pending) >= MAX_PENDING:
                    log.warning("usage counts: the store is away and too many are pending; dropping the oldest")
                    break
                self._pending[slot] = self._pending.get(slot, 0) + calls

    async def daily(self, key_ids: Iterable[str], days: int = 30) -> dict[str, list[tuple[date, int]]]:
        """Each key's calls on each of the last `days` days (oldest first, today last), stored and pending."""
        ids = list(key_ids)
        first = self.today() - timedelta(days=days - 1)
        stored = await self.repository.daily(ids, first)
        for (key_id, day), calls in self._pending.items():
            if key_id in stored:
                moment = EPOCH + timedelta(days=day)
                stored[key_id][moment] = stored[key_id].get(moment, 0) + calls
        return {
            key_id: [(first + timedelta(days=n), stored[key_id].get(first + timedelta(days=n), 0)) for n in range(days)]
            for key_id in ids
        }

    def start(self) -> None:
        """Flush every `flush_seconds` until `close`."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.flush_seconds)
            try:
                await self.flush()
            except Exception:  # the loop must outlive one bad flush; the next one retries
                log.exception("usage counts: flush failed")

    async def close(self) -> None:
        """Stop the loop and write what is pending."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        with contextlib.suppress(ServiceUnavailable):
            await self.flush()
