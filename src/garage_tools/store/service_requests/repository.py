"""Service requests: the domain API every surface uses (the tool, the homeowner's status page, the partner's
inbox, the re-routing sweep), and the one hook through which their events leave.

The statuses and who may move a request between them are written once, in `ALLOWED`. Every change runs in
one transaction that updates the row, appends its history (`service_request_events`) and hands a
`RequestEvent` to each hook, so whatever a hook queues there (an e-mail, a webhook delivery) exists exactly
when the change committed. Every read or change on a partner's behalf filters by that partner in the query.

Events (`RequestEvent.kind`):

- `request.created`: a homeowner sent a request; it is offered to `request.partner_id`.
- `request.updated`: the partner accepted (with an arrival window), declined (with a reason), marked it done
  or lost; or the service offered it to another partner (`previous_partner_id` is the one who declined or
  did not answer in time, `request.partner_id` the new one).
- `request.cancelled`: the homeowner cancelled it.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.store.database import Database
from garage_tools.store.models import ServiceRequest, ServiceRequestEvent
from garage_tools.store.moments import as_utc
from garage_tools.store.service_requests.records import (
    Change,
    Created,
    EventHook,
    HistoryEntry,
    NewRequest,
    Offer,
    OnCreate,
    RequestEvent,
    StoredRequest,
    new_number,
    offer_json,
    stored_of,
    token_hash,
)
from garage_tools.store.service_requests.rules import (
    CANCELLED,
    CREATED,
    UPDATED,
    Actor,
    DuplicateIdempotencyKey,
    RequestNotFound,
    Status,
    TransitionRefused,
    may,
)


class ServiceRequestRepository:
    """Service requests over one database; `hooks` receive every event (see the module's docstring)."""

    def __init__(self, database: Database, hooks: Sequence[EventHook] = ()) -> None:
        self._db = database
        self.hooks: list[EventHook] = list(hooks)

    async def _emit(self, session: AsyncSession, event: RequestEvent) -> None:
        session.add(
            ServiceRequestEvent(
                request_id=event.request.id,
                at=event.at,
                kind=event.kind,
                status=event.request.status.value,
                by=event.by.value,
                partner_id=event.request.partner_id if event.previous_partner_id is None else event.previous_partner_id,
                detail=event.detail,
            )
        )
        for hook in self.hooks:
            await hook(session, event)

    # -- create and read ------------------------------------------------------------------------

    async def create(self, new: NewRequest, *, also: OnCreate | None = None) -> Created:
        """Store `new` (offered to `new.partner_id`), run `also` and emit `request.created`, in one transaction;
        its status token, once.

        Raises `DuplicateIdempotencyKey` when another request holds `new.idempotency_hash` (nothing stored)."""
        token = new.token or secrets.token_urlsafe(24)
        for _attempt in range(5):
            row = ServiceRequest(
                id=new_number(),
                token_hash=token_hash(token),
                token_salt=new.token_salt,
                idempotency_hash=new.idempotency_hash,
                request_hash=new.request_hash,
                partner_id=new.partner_id,
                offered_at=new.created_at,
                previous_offers=[],
                zip=new.zip,
                issue=new.issue,
                description=new.description,
                door_size=new.door_size,
                contact_name=new.contact_name,
                contact_phone=new.contact_phone,
                contact_email=new.contact_email,
                consent_contact_share=True,  # a request exists only to share them: the tool refuses it otherwise
                windows=[w.as_json() for w in new.windows],
                notes=new.notes,
                report_id=new.report_id,
                language=new.language,
                source=new.source,
                status=Status.RECEIVED.value,
                created_at=new.created_at,
                updated_at=new.created_at,
                base_url=new.base_url,
            )
            try:
                async with self._db.session() as session, session.begin():
                    session.add(row)
                    await session.flush()  # a duplicate key or number fails here, before any hook runs
                    stored = stored_of(row)
                    if also is not None:
                        await also(session, stored, token)
                    event = RequestEvent(CREATED, stored, new.created_at, Actor.HOMEOWNER, None, None, {})
                    await self._emit(session, event)
                return Created(stored, token)
            except IntegrityError:
                if new.idempotency_hash is not None and await self.by_idempotency_hash(new.idempotency_hash):
                    raise DuplicateIdempotencyKey from None
                if await self.get(row.id) is None:
                    raise  # not a clash of numbers: something else is wrong
        raise RuntimeError("could not draw a free request number in five tries")

    async def get(self, request_id: str) -> StoredRequest | None:
        """Any request by its number (operators, tests): not for a partner's or a homeowner's pages."""
        async with self._db.session() as session:
            row = await session.get(ServiceRequest, request_id)
            return stored_of(row) if row is not None else None

    async def by_token(self, token: str) -> StoredRequest | None:
        """The request a homeowner's status link opens."""
        async with self._db.session() as session:
            row = await session.scalar(select(ServiceRequest).where(ServiceRequest.token_hash == token_hash(token)))
            return stored_of(row) if row is not None else None

    async def by_idempotency_hash(self, idempotency_hash: str) -> StoredRequest | None:
        async with self._db.session() as session:
            row = await session.scalar(
                select(ServiceRequest).where(ServiceRequest.idempotency_hash == idempotency_hash)
            )
            return stored_of(row) if row is not None else None

    async def for_partner(
        self, partner_id: str, statuses: Sequence[Status] | None = None, limit: int = 200
    ) -> list[StoredRequest]:
        """The requests offered to the partner now, newest first (one status or several, or all)."""
        query = select(ServiceRequest).where(ServiceRequest.partner_id == partner_id)
        if statuses:
            query = query.where(ServiceRequest.status.in_([s.value for s in statuses]))
        query = query.order_by(ServiceRequest.created_at.desc(), ServiceRequest.id).limit(min(limit, 10_000))
        async with self._db.session() as session:
            return [stored_of(row) for row in (await session.scalars(query)).all()]

    async def one_for_partner(self, partner_id: str, request_id: str) -> StoredRequest | None:
        """One request, only while it is offered to this partner."""
        query = select(ServiceRequest).where(ServiceRequest.id == request_id, ServiceRequest.partner_id == partner_id)
        async with self._db.session() as session:
            row = await session.scalar(query)
            return stored_of(row) if row is not None else None

    async def history(self, request_id: str) -> list[HistoryEntry]:
        """Every change of the request, oldest first (the partner of each: who it was offered to then)."""
        query = (
            select(ServiceRequestEvent)
            .where(ServiceRequestEvent.request_id == request_id)
            .order_by(ServiceRequestEvent.id)
        )
        async with self._db.session() as session:
            rows = (await session.scalars(query)).all()
        return [
            HistoryEntry(as_utc(r.at), r.kind, Status(r.status), Actor(r.by), r.partner_id, dict(r.detail))
            for r in rows
        ]

    async def waiting(self, offered_before: datetime, limit: int = 500) -> list[StoredRequest]:
        """Requests still unanswered that were offered before `offered_before`, oldest first (the sweep)."""
        query = (
            select(ServiceRequest)
            .where(ServiceRequest.status == Status.RECEIVED.value, ServiceRequest.offered_at < offered_before)
            .order_by(ServiceRequest.offered_at, ServiceRequest.id)
            .limit(limit)
        )
        async with self._db.session() as session:
            return [stored_of(row) for row in (await session.scalars(query)).all()]

    async def sent_today(self, since: datetime, *, email: str | None, phone: str | None) -> int:
        """Requests made since `since` with this e-mail address or phone number (a limit per contact)."""
        match = []
        if email:
            match.append(ServiceRequest.contact_email == email)
        if phone:
            match.append(ServiceRequest.contact_phone == phone)
        if not match:
            return 0
        query = select(func.count()).select_from(ServiceRequest).where(ServiceRequest.created_at >= since, or_(*match))
        async with self._db.session() as session:
            return int(await session.scalar(query) or 0)

    # -- change ---------------------------------------------------------------------------------

    async def transition(
        self, request_id: str, change: Change, *, token: str | None = None, now: datetime | None = None
    ) -> StoredRequest:
        """Apply `change` and emit its event. A homeowner's change needs the request's status `token`; a
        partner's, that the request is offered to `change.partner_id`. Raises `RequestNotFound` when the
        request is not theirs, `TransitionRefused` when its status does not allow the change."""
        moment = now or datetime.now(UTC)
        async with self._db.session() as session, session.begin():
            row = await self._locked(session, request_id, change, token)
            current = Status(row.status)
            if not may(change.by, current, change.to):
                raise TransitionRefused(current, change.to)
            row.status = change.to.value
            row.updated_at = moment
            detail: dict[str, Any] = {}
            if change.to is Status.ACCEPTED:
                row.arrival_from, row.arrival_until = change.arrival_from, change.arrival_until
                detail = {
                    "arrivalFrom": change.arrival_from.isoformat() if change.arrival_from else None,
                    "arrivalUntil": change.arrival_until.isoformat() if change.arrival_until else None,
                }
            if change.reason is not None:
                row.reason = change.reason[:300]
                detail["reason"] = row.reason
            if change.by is Actor.PARTNER and row.first_response_at is None:
                row.first_response_at = moment
            passing_to = change.next_partner_id if change.to is Status.DECLINED else None
            if passing_to is not None:
                detail["passingTo"] = passing_to
            kind = CANCELLED if change.to is Status.CANCELLED else UPDATED
            stored = stored_of(row)
            await self._emit(session, RequestEvent(kind, stored, moment, change.by, current, None, detail))
            if passing_to is not None:
                stored = await self._pass_on(session, row, passing_to, "declined", moment)
        return stored

    async def reoffer(
        self,
        request_id: str,
        partner_id: str,
        outcome: str,
        *,
        from_partner: str | None = None,
        now: datetime | None = None,
    ) -> StoredRequest | None:
        """Offer a declined or unanswered request to `partner_id`; `outcome` says how the last offer ended
        ("declined", "no_answer"). None when the request has moved on meanwhile (accepted, cancelled, or, with
        `from_partner`, already offered to someone else: two sweeps at once pass a request on once)."""
        moment = now or datetime.now(UTC)
        async with self._db.session() as session, session.begin():
            row = await session.scalar(select(ServiceRequest).where(ServiceRequest.id == request_id).with_for_update())
            if row is None or not may(Actor.SYSTEM, Status(row.status), Status.RECEIVED):
                return None
            if from_partner is not None and row.partner_id != from_partner:
                return None
            return await self._pass_on(session, row, partner_id, outcome, moment)

    async def _pass_on(
        self, session: AsyncSession, row: ServiceRequest, partner_id: str, outcome: str, moment: datetime
    ) -> StoredRequest:
        before, previous = Status(row.status), row.partner_id
        ended = Offer(previous, as_utc(row.offered_at), moment, outcome, row.reason)
        row.previous_offers = [*row.previous_offers, offer_json(ended)]
        row.partner_id, row.offered_at, row.updated_at = partner_id, moment, moment
        row.status, row.reason, row.arrival_from, row.arrival_until = Status.RECEIVED.value, None, None, None
        row.first_response_at = None  # the new partner's answer is the one measured, from `offered_at`
        stored = stored_of(row)
        detail = {"offeredTo": partner_id, "previousPartner": previous, "outcome": outcome}
        await self._emit(session, RequestEvent(UPDATED, stored, moment, Actor.SYSTEM, before, previous, detail))
        return stored

    async def _locked(
        self, session: AsyncSession, request_id: str, change: Change, token: str | None
    ) -> ServiceRequest:
        query = select(ServiceRequest).where(ServiceRequest.id == request_id)
        if change.by is Actor.HOMEOWNER:
            query = query.where(ServiceRequest.token_hash == token_hash(token or ""))
        elif change.by is Actor.PARTNER:
            query = query.where(ServiceRequest.partner_id == (change.partner_id or ""))
        row = await session.scalar(query.with_for_update())
        if row is None:
            raise RequestNotFound(request_id)
        return row
