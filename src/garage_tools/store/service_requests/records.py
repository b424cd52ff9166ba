"""What a service request is, as stored and as its events carry it."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.store.models import ServiceRequest
from garage_tools.store.moments import as_utc
from garage_tools.store.service_requests.rules import Actor, Status


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_number() -> str:
    """A request number to read aloud over the phone: R-4829-3915 (10^8 of them; a clash is retried)."""
    digits = f"{secrets.randbelow(10**8):08d}"
    return f"R-{digits[:4]}-{digits[4:]}"


@dataclass(frozen=True, slots=True)
class Window:
    """A time the homeowner would like: a date and a part of the day (morning, afternoon, evening)."""

    day: date
    part: str

    def as_json(self) -> dict[str, str]:
        return {"date": self.day.isoformat(), "partOfDay": self.part}


@dataclass(frozen=True, slots=True)
class Offer:
    """A partner the request was offered to before: until when, and how it ended (declined, or no answer)."""

    partner_id: str
    offered_at: datetime
    ended_at: datetime
    outcome: str  # "declined" or "no_answer"
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class NewRequest:
    partner_id: str
    zip: str
    issue: str | None
    description: str | None
    door_size: str | None
    contact_name: str
    contact_phone: str | None
    contact_email: str | None
    windows: Sequence[Window]
    notes: str | None
    report_id: str | None
    source: str
    request_hash: str
    idempotency_hash: str | None = None
    #: The status token to use (derived from an Idempotency-Key and `token_salt`); a random one when None.
    token: str | None = None
    token_salt: str | None = None
    base_url: str | None = None
    language: str = "en"
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))


@dataclass(frozen=True, slots=True)
class StoredRequest:
    """A request as stored (never its status token: only the hash is kept)."""

    id: str
    partner_id: str
    offered_at: datetime
    previous_offers: list[Offer]
    zip: str
    issue: str | None
    description: str | None
    door_size: str | None
    contact_name: str
    contact_phone: str | None
    contact_email: str | None
    windows: list[Window]
    notes: str | None
    report_id: str | None
    language: str
    source: str
    status: Status
    arrival_from: datetime | None
    arrival_until: datetime | None
    reason: str | None
    created_at: datetime
    updated_at: datetime
    first_response_at: datetime | None
    base_url: str | None
    request_hash: str
    token_salt: str | None = None


@dataclass(frozen=True, slots=True)
class Created:
    request: StoredRequest
    token: str | None  # the status token, shown once; None when an Idempotency-Key replayed an earlier request


@dataclass(frozen=True, slots=True)
class RequestEvent:
    """What a hook receives, in the transaction of the change: the request as it is now, and the change."""

    kind: str  # request.created | request.updated | request.cancelled
    request: StoredRequest
    at: datetime
    by: Actor
    previous_status: Status | None
    previous_partner_id: str | None  # set when the request moved to another partner
    detail: dict[str, Any]


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    at: datetime
    kind: str
    status: Status
    by: Actor
    partner_id: str
    detail: dict[str, Any]


#: The one hook: called in the transaction of every change (create, status change, re-offer, cancel).
EventHook = Callable[[AsyncSession, RequestEvent], Awaitable[None]]

#: The creator's own work in the creating transaction, given the request and its status token (the
#: homeowner's confirmation e-mail, which holds the status link no hook ever sees).
OnCreate = Callable[[AsyncSession, StoredRequest, str], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Change:
    """A change of status asked for by `by`. A partner's change names the partner (it must be the one the
    request is offered to); an accepted request carries its arrival window; a decline may carry a reason."""

    to: Status
    by: Actor
    partner_id: str | None = None
    arrival_from: datetime | None = None
    arrival_until: datetime | None = None
    reason: str | None = None
    #: A decline passed on at once to this partner, in the same transaction (`ServiceRequests.change`).
    next_partner_id: str | None = None


def offer_of(raw: dict[str, Any]) -> Offer:
    return Offer(
        partner_id=raw["partnerId"],
        offered_at=datetime.fromisoformat(raw["offeredAt"]),
        ended_at=datetime.fromisoformat(raw["endedAt"]),
        outcome=raw["outcome"],
        reason=raw.get("reason"),
    )


def offer_json(offer: Offer) -> dict[str, Any]:
    found = {
        "partnerId": offer.partner_id,
        "offeredAt": offer.offered_at.isoformat(),
        "endedAt": offer.ended_at.isoformat(),
        "outcome": offer.outcome,
    }
    return found | ({"reason": offer.reason} if offer.reason else {})


def stored_of(row: ServiceRequest) -> StoredRequest:
    return StoredRequest(
        id=row.id,
        partner_id=row.partner_id,
        offered_at=as_utc(row.offered_at),
        previous_offers=[offer_of(raw) for raw in row.previous_offers],
        zip=row.zip,
        issue=row.issue,
        description=row.description,
        door_size=row.door_size,
        contact_name=row.contact_name,
        contact_phone=row.contact_phone,
        contact_email=row.contact_email,
        windows=[Window(date.fromisoformat(w["date"]), w["partOfDay"]) for w in row.windows],
        notes=row.notes,
        report_id=row.report_id,
        language=row.language,
        source=row.source,
        status=Status(row.status),
        arrival_from=as_utc(row.arrival_from) if row.arrival_from else None,
        arrival_until=as_utc(row.arrival_until) if row.arrival_until else None,
        reason=row.reason,
        created_at=as_utc(row.created_at),
        updated_at=as_utc(row.updated_at),
        first_response_at=as_utc(row.first_response_at) if row.first_response_at else None,
        base_url=row.base_url,
        request_hash=row.request_hash,
        token_salt=row.token_salt,
    )
