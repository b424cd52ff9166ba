"""Service requests as the partner side and the homeowner side use them: changes, re-routing, the sweep.

A homeowner consented to a pro, not to one name, so a request the partner declines, or leaves unanswered for
`response_hours` of business hours (`business_hours.py`: by default 08:00-18:00 Monday to Saturday in the local
time of the request's place), is offered to the next partner that serves its
ZIP code and has not had it yet, and the homeowner is told (`request_mail.py`). A decline is passed on in
the transaction that records it; silence is found by `sweep`, which `serve` runs every
`GARAGE_TOOLS_REQUEST_SWEEP_SECONDS` and `garage-tools requests sweep` runs on demand. When nobody else
serves the place, a declined request stays declined (and the homeowner is told) and an unanswered one stays
with its partner.

The partner's inbox (the console) and the homeowner's status page call `change` and `cancel` here rather
than the repository, so the re-routing rule applies whichever page made the change.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from garage_tools.partners.business_hours import BusinessHours
from garage_tools.partners.directory import PartnerDirectory
from garage_tools.partners.request_mail import zone_of
from garage_tools.store.service_requests import (
    Actor,
    Change,
    RequestNotFound,
    ServiceRequestRepository,
    Status,
    StoredRequest,
)

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class SweepResult:
    looked_at: int
    passed_on: int


class ServiceRequests:
    """The requests of one store, with the directory that says who else serves a place."""

    def __init__(
        self,
        repository: ServiceRequestRepository,
        directory: PartnerDirectory,
        *,
        response_hours: float = 2.0,
        business_hours: BusinessHours | None = None,
        limit_per_contact: int = 3,
        clock: Clock = utc_now,
    ) -> None:
        self.repository = repository
        self.directory = directory
        self.response_hours = response_hours
        self.business_hours = business_hours or BusinessHours()
        self.limit_per_contact = limit_per_contact
        self.clock = clock

    async def answer_by(self, offered_at: datetime, zip_code: str) -> datetime:
        """When the partner a request was offered to at `offered_at` must have answered (UTC)."""
        places = (await self.directory.current()).places
        return self.business_hours.deadline(offered_at, self.response_hours, zone_of(places, zip_code))

    async def next_partner(self, request: StoredRequest) -> str | None:
        """The nearest active partner serving the request's ZIP code that has not had it (None: nobody)."""
        snapshot = await self.directory.current()
        try:
            place = snapshot.places.candidates(request.zip)[0]
        except Exception:
            return None
        had = {offer.partner_id for offer in request.previous_offers} | {request.partner_id}
        serving = [s for s in snapshot.index.serving(place) if s.listing.id not in had]
        serving.sort(key=lambda s: (math.inf if s.miles is None else s.miles, s.listing.display_name, s.listing.id))
        return serving[0].listing.id if serving else None

    async def change(self, partner_id: str, request_id: str, change: Change) -> StoredRequest:
        """A partner's change (accept with a window, decline with a reason, done, lost); a decline is passed on
        to the next partner at once when there is one. `RequestNotFound` / `TransitionRefused` as the store's."""
        if change.by is not Actor.PARTNER or change.partner_id != partner_id:
            raise RequestNotFound(request_id)
        if change.to is Status.DECLINED:
            current = await self.repository.one_for_partner(partner_id, request_id)
            if current is None:
                raise RequestNotFound(request_id)
            passing_to = await self.next_partner(current)
            if passing_to is not None:
                change = Change(
                    Status.DECLINED, Actor.PARTNER, partner_id, reason=change.reason, next_partner_id=passing_to
                )
        return await self.repository.transition(request_id, change, now=self.clock())

    async def cancel(self, token: str) -> StoredRequest:
        """The homeowner cancels the request their status link opens."""
        found = await self.repository.by_token(token)
        if found is None:
            raise RequestNotFound("")
        return await self.repository.transition(
            found.id, Change(Status.CANCELLED, Actor.HOMEOWNER), token=token, now=self.clock()
        )

    async def sweep(self) -> SweepResult:
        """Offer every request left unanswered past `response_hours` to the next partner, when there is one."""
        now = self.clock()
        # Offered at least `response_hours` ago (business hours only make the wait longer), and past due.
        waiting = await self.repository.waiting(now - timedelta(hours=self.response_hours))
        passed = 0
        for request in waiting:
            if await self.answer_by(request.offered_at, request.zip) > now:
                continue  # sent at night or on a Sunday: the partner's clock has not run out
            partner_id = await self.next_partner(request)
            if partner_id is None:
                continue  # nobody else serves it: it stays with its partner
            moved = await self.repository.reoffer(
                request.id, partner_id, "no_answer", from_partner=request.partner_id, now=now
            )
            if moved is not None:
                passed += 1
        if passed:
            log.info("service requests: %d unanswered request(s) passed to the next partner", passed)
        return SweepResult(len(waiting), passed)

    async def too_many_from(self, email: str | None, phone: str | None) -> bool:
        """Whether this contact already sent `limit_per_contact` requests in the last 24 hours."""
        since = self.clock() - timedelta(days=1)
        return await self.repository.sent_today(since, email=email, phone=phone) >= self.limit_per_contact


@contextlib.asynccontextmanager
async def sweeping(requests: ServiceRequests, every_seconds: float) -> AsyncIterator[None]:
    """Run `requests.sweep()` every `every_seconds` for the duration of the block (0: not at all)."""
    if every_seconds <= 0:
        yield
        return

    async def loop() -> None:
        while True:
            await asyncio.sleep(every_seconds)
            try:
                await requests.sweep()
            except Exception as exc:  # a store outage: try again next time
                log.warning("service request sweep failed (%s); will retry", type(exc).__name__)

    task = asyncio.get_running_loop().create_task(loop())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
