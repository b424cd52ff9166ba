"""The partner directory as each process serves it: an index in memory, kept fresh from the store.

Every request reads the snapshot in memory and never waits on the store. A server loads the first
snapshot in the background as it starts (`warm_up`), seeding the packaged sample directory into a
store that was never filled; a request that comes before that is done waits for the same load, and
in a process that did not warm up (the CLI, tests) the first request loads it. At most every
`refresh_seconds` a request starts a background check of the directory's version number, one small
query; when an import has bumped it, the process re-reads the directory and swaps in a new index. So
an import reaches every running process within `refresh_seconds` (plus the time to read and index
it), and a store outage leaves routing answering from the last snapshot.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from garage_tools.knowledge.directory import (
    PartnerRecord,
    PromotionRecord,
    load_sample_partners,
    load_sample_promotions,
)
from garage_tools.knowledge.places import Gazetteer, us_places
from garage_tools.partners.index import PartnerIndex
from garage_tools.store.database import StoreUnavailable
from garage_tools.store.partners import DirectoryRows, PartnerRepository

log = logging.getLogger(__name__)

Samples = Callable[[], tuple[list[PartnerRecord], list[PromotionRecord]]]


def packaged_samples() -> tuple[list[PartnerRecord], list[PromotionRecord]]:
    """The fictional sample directory shipped in knowledge/data, for a store that was never filled."""
    return list(load_sample_partners().partners), list(load_sample_promotions().promotions)


@dataclass(frozen=True)
class DirectorySnapshot:
    """One version of the directory, indexed: what a request routes and filters promotions on."""

    version: int
    places: Gazetteer
    index: PartnerIndex
    promotions: tuple[PromotionRecord, ...]
    promotions_by_partner: dict[str, tuple[PromotionRecord, ...]] = field(repr=False)

    @classmethod
    def build(cls, rows: DirectoryRows, places: Gazetteer) -> DirectorySnapshot:
        by_partner: dict[str, list[PromotionRecord]] = defaultdict(list)
        for promotion in rows.promotions:
            by_partner[promotion.partner_id].append(promotion)
        return cls(
            version=rows.version,
            places=places,
            index=PartnerIndex.build(rows.partners, places),
            promotions=tuple(rows.promotions),
            promotions_by_partner={key: tuple(value) for key, value in by_partner.items()},
        )


class PartnerDirectory:
    """The current snapshot of one store's directory, for one process."""

    def __init__(
        self,
        repository: PartnerRepository,
        *,
        refresh_seconds: float = 5.0,
        samples: Samples | None = packaged_samples,
        places: Callable[[], Gazetteer] = us_places,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.repository = repository
        self.refresh_seconds = refresh_seconds
        self._samples = samples
        self._load_places = places
        self._clock = clock
        self._snapshot: DirectorySnapshot | None = None
        self._places: Gazetteer | None = None
        self._next_check = 0.0
        self._lock: asyncio.Lock | None = None
        self._refresh: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[None] | None = None

    async def current(self) -> DirectorySnapshot:
        """The snapshot to answer from now; loads it on first use, and starts a freshness check when due."""
        snapshot = self._snapshot
        if snapshot is None:
            return await self._first_load()
        if self._clock() >= self._next_check and (self._refresh is None or self._refresh.done()):
            self._next_check = self._clock() + self.refresh_seconds
            self._refresh = _spawn(self._refresh_if_changed())
        return snapshot

    async def reload(self) -> DirectorySnapshot:
        """Read the directory again now (after an import in this process, or in tests)."""
        places = await self.places()
        rows = await self.repository.load()
        snapshot = await asyncio.to_thread(DirectorySnapshot.build, rows, places)
        if self._snapshot is None or snapshot.version != self._snapshot.version:
            log.info(
                "partner directory version %d: %d partners, %d promotions",
                snapshot.version,
                len(snapshot.index),
                len(snapshot.promotions),
            )
        self._snapshot = snapshot
        self._next_check = self._clock() + self.refresh_seconds
        return snapshot

    async def settled(self) -> None:
        """Wait for a freshness check that is under way, if any (tests, and commands that must see it)."""
        if self._refresh is not None:
            await asyncio.shield(self._refresh)

    def warm_up(self) -> None:
        """Start loading the first snapshot in the background, so the first routing call need not wait for it."""
        if self._snapshot is None and self._warming is None:
            self._warming = _spawn(self._warm())

    async def stop_warming(self) -> None:
        """Give up a warm-up still under way (on shutdown: the first call would have loaded it anyway)."""
        if self._warming is not None and not self._warming.done():
            self._warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._warming

    async def _warm(self) -> None:
        try:
            await self.current()
        except StoreUnavailable:
            pass  # the store logs its outage once; the first routing call tries again
        except Exception:
            log.exception("partner directory: loading it at start-up failed; the first routing call tries again")

    async def places(self) -> Gazetteer:
        """The US ZIP data set, read once per process (in a thread, though it takes only milliseconds)."""
        if self._places is None:
            self._places = await asyncio.to_thread(self._load_places)
        return self._places

    async def _first_load(self) -> DirectorySnapshot:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._snapshot is not None:
                return self._snapshot
            await self.places()
            await self.seed_if_new()
            return await self.reload()

    async def seed_if_new(self) -> bool:
        """Fill a store whose directory was never filled with the packaged samples; True if this did it."""
        if self._samples is None or await self.repository.version() != 0:
            return False
        partners, promotions = self._samples()
        if not await self.repository.seed(partners, promotions):
            return False  # another process got there first
        log.info("partner directory was empty: seeded %d sample partners (fictional)", len(partners))
        return True

    async def _refresh_if_changed(self) -> None:
        try:
            current = self._snapshot
            if current is None or await self.repository.version() != current.version:
                await self.reload()
        except StoreUnavailable:
            pass  # the store logs its outage once; routing keeps answering from the snapshot it has
        except Exception:
            log.exception("partner directory refresh failed; still serving the version loaded before")


_background: set[asyncio.Task[Any]] = set()


def _spawn(work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
    """Run `work` in the background, holding a reference until it is done (asyncio keeps only weak ones)."""
    task = asyncio.get_running_loop().create_task(work)
    _background.add(task)
    task.add_done_callback(_background.discard)
    return task
