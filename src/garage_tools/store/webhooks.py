"""Partners' webhook endpoints, the events queued for them, and what became of each delivery.

An event is queued as an outbox row (`channel` "webhook") in the caller's transaction, one row per
endpoint of the partner that is on, so the business change and its deliveries stand or fall together;
the mail worker delivers it like an e-mail (claims, leases, retries, dead after its attempts).

Every method a console uses takes the partner's id and filters by it in the query itself, as in
`partner_console.py`: one partner can never read or change another's endpoints or deliveries. Every
change is written to the partner's audit in the same transaction.
"""

from __future__ import annotations

import base64
import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import orjson
from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.sealing import seal, unseal
from garage_tools.store.database import Database
from garage_tools.store.models import WEBHOOK_CHANNEL, OutboxMessage, Partner, WebhookEndpoint
from garage_tools.store.moments import as_utc
from garage_tools.store.partner_console import add_audit_entry, contacts_of

WEBHOOK = WEBHOOK_CHANNEL  # the outbox channel
MAX_ENDPOINTS = 5  # per partner
DELIVERIES_SHOWN = 50
TEST_EVENT = "endpoint.test"

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def _utc_or_none(moment: datetime | None) -> datetime | None:
    return None if moment is None else as_utc(moment)


def new_signing_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and 32 random bytes in base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


def new_webhook_id() -> str:
    """The `webhook-id` of one event for one endpoint: the same on every retry, so receivers can drop repeats."""
    return f"msg_{uuid.uuid4().hex}"


@dataclass(frozen=True, slots=True)
class Endpoint:
    id: str
    partner_id: str
    url: str
    created_at: datetime
    failures: int
    last_success_at: datetime | None
    disabled_at: datetime | None

    @property
    def enabled(self) -> bool:
        return self.disabled_at is None


@dataclass(frozen=True, slots=True)
class NewEndpoint:
    """An endpoint just added, with its signing secret: the only time the secret is shown."""

    endpoint: Endpoint
    secret: str


@dataclass(frozen=True, slots=True)
class Target:
    """Where the worker delivers one endpoint's events, and the secret it signs them with."""

    id: str
    partner_id: str
    url: str
    secret: str | None  # None: it no longer unseals (the secrets key changed)
    enabled: bool


@dataclass(frozen=True, slots=True)
class Delivery:
    """One event for one endpoint, as its delivery log shows it."""

    webhook_id: str
    endpoint_id: str
    url: str
    event: str
    status: str  # the outbox's: pending, sending, sent, dead
    attempts: int
    created_at: datetime
    last_attempt_at: datetime | None
    last_status: int | None
    last_response: str | None
    last_error: str | None


#: Queues the partner's e-mail that an endpoint was turned off, in the transaction that turns it off:
#: (session, partner's name, its addresses, the endpoint's URL).
DisabledNotice = Callable[[AsyncSession, str, list[str], str], Awaitable[None]]


def _endpoint(row: WebhookEndpoint) -> Endpoint:
    return Endpoint(
        id=row.id,
        partner_id=row.partner_id,
        url=row.url,
        created_at=as_utc(row.created_at),
        failures=row.failures,
        last_success_at=_utc_or_none(row.last_success_at),
        disabled_at=_utc_or_none(row.disabled_at),
    )


def event_body(event: str, data: dict[str, Any], now: datetime) -> str:
    """The JSON every endpoint receives: `{"type", "timestamp", "data"}`, as the specification suggests."""
    envelope = {"type": event, "timestamp": now.astimezone(UTC).isoformat().replace("+00:00", "Z"), "data": data}
    return orjson.dumps(envelope).decode()


async def enqueue_event(
    session: AsyncSession, partner_id: str, event: str, data: dict[str, Any], now: datetime | None = None
) -> int:
    """Queue `event` for each of the partner's endpoints that is on, in the caller's transaction; how many."""
    moment = now or utc_now()
    targets = await session.scalars(
        select(WebhookEndpoint.id).where(
            WebhookEndpoint.partner_id == partner_id, WebhookEndpoint.disabled_at.is_(None)
        )
    )
    body = event_body(event, data, moment)
    count = 0
    for endpoint_id in targets.all():
        session.add(_delivery_row(endpoint_id, event, body, moment))
        count += 1
    return count


def _delivery_row(endpoint_id: str, event: str, body: str, now: datetime) -> OutboxMessage:
    return OutboxMessage(
        message_id=new_webhook_id(),
        to_address="",
        subject=event,
        text_body=body,
        kind=WEBHOOK,
        channel=WEBHOOK,
        endpoint_id=endpoint_id,
        status="pending",
        attempts=0,
        next_attempt_at=now,
        created_at=now,
    )


class WebhookRepository:
    """Endpoints and deliveries of one database; signing secrets sealed under `key` (`store/secret_key.py`)."""

    def __init__(self, database: Database, key: str, *, clock: Clock = utc_now) -> None:
        self._db = database
        self._key = key
        self.clock = clock

    # -- endpoints ------------------------------------------------------------------------------

    async def add(self, partner_id: str, url: str, actor: str) -> NewEndpoint | None:
        """A new endpoint for the partner and its secret; None when there is no such partner or it already has
        `MAX_ENDPOINTS`. The URL must have been checked (`mail/webhooks.py` `check_endpoint_url`)."""
        now = self.clock()
        secret = new_signing_secret()
        row = WebhookEndpoint(
            id=f"ep_{secrets.token_hex(12)}",
            partner_id=partner_id,
            url=url,
            secret_sealed=seal(self._key, secret),
            created_at=now,
            failures=0,
        )
        async with self._db.session() as session, session.begin():
            if await session.scalar(select(Partner.id).where(Partner.id == partner_id)) is None:
                return None
            if len(await self._ids(session, partner_id)) >= MAX_ENDPOINTS:
                return None
            session.add(row)
            add_audit_entry(session, now, partner_id, actor, "webhook.add", {"id": row.id, "url": url})
        return NewEndpoint(_endpoint(row), secret)

    async def endpoints(self, partner_id: str | None = None) -> list[Endpoint]:
        """The partner's endpoints, oldest first (every partner's when `partner_id` is None: the operator's list)."""
        query = select(WebhookEndpoint).order_by(WebhookEndpoint.partner_id, WebhookEndpoint.created_at)
        if partner_id is not None:
            query = query.where(WebhookEndpoint.partner_id == partner_id)
        async with self._db.session() as session:
            return [_endpoint(row) for row in (await session.scalars(query)).all()]

    async def remove(self, partner_id: str | None, endpoint_id: str, actor: str) -> bool:
        """Remove one of the partner's endpoints (any partner's when `partner_id` is None: the operator) with
        its deliveries; False when it is not among them."""
        async with self._db.session() as session, session.begin():
            query = select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id)
            if partner_id is not None:
                query = query.where(WebhookEndpoint.partner_id == partner_id)
            row = await session.scalar(query)
            if row is None:
                return False
            # Deliveries first: SQLite enforces no foreign keys unless asked, so the cascade is spelled out.
            await session.execute(delete(OutboxMessage).where(OutboxMessage.endpoint_id == row.id))
            await session.execute(delete(WebhookEndpoint).where(WebhookEndpoint.id == row.id))
            add_audit_entry(session, self.clock(), row.partner_id, actor, "webhook.remove", {"id": row.id})
        return True

    async def enable(self, partner_id: str, endpoint_id: str, actor: str) -> bool:
        """Turn one of the partner's endpoints back on, its failure count reset; False when not among them."""
        now = self.clock()
        async with self._db.session() as session, session.begin():
            changed = await session.execute(
                update(WebhookEndpoint)
                .where(WebhookEndpoint.id == endpoint_id, WebhookEndpoint.partner_id == partner_id)
                .values(disabled_at=None, failures=0)
            )
            if getattr(changed, "rowcount", 0) != 1:
                return False
            add_audit_entry(session, now, partner_id, actor, "webhook.enable", {"id": endpoint_id})
        return True

    async def send_test(self, partner_id: str, endpoint_id: str, actor: str) -> bool:
        """Queue a test event for one of the partner's endpoints (on or off: a test may show it works again)."""
        now = self.clock()
        async with self._db.session() as session, session.begin():
            own = await session.scalar(
                select(WebhookEndpoint.id).where(
                    WebhookEndpoint.id == endpoint_id, WebhookEndpoint.partner_id == partner_id
                )
            )
            if own is None:
                return False
            data = {"message": "A test event from Garage Door Tools: your endpoint receives and verifies events."}
            session.add(_delivery_row(endpoint_id, TEST_EVENT, event_body(TEST_EVENT, data, now), now))
            add_audit_entry(session, now, partner_id, actor, "webhook.test", {"id": endpoint_id})
        return True

    async def deliveries(self, partner_id: str, limit: int = DELIVERIES_SHOWN) -> list[Delivery]:
        """The partner's latest deliveries, newest first."""
        query = (
            select(OutboxMessage, WebhookEndpoint.url)
            .join(WebhookEndpoint, WebhookEndpoint.id == OutboxMessage.endpoint_id)
            .where(WebhookEndpoint.partner_id == partner_id, OutboxMessage.channel == WEBHOOK)
            .order_by(OutboxMessage.created_at.desc(), OutboxMessage.id.desc())
            .limit(limit)
        )
        async with self._db.session() as session:
            rows = (await session.execute(query)).all()
        return [
            Delivery(
                webhook_id=row.message_id,
                endpoint_id=str(row.endpoint_id),
                url=url,
                event=row.subject,
                status=row.status,
                attempts=row.attempts,
                created_at=as_utc(row.created_at),
                last_attempt_at=_utc_or_none(row.last_attempt_at),
                last_status=row.last_status,
                last_response=row.last_response,
                last_error=row.last_error,
            )
            for row, url in rows
        ]

    # -- the worker's side ----------------------------------------------------------------------

    async def target(self, endpoint_id: str) -> Target | None:
        """Where to deliver, and the secret to sign with; None when the endpoint was removed."""
        async with self._db.session() as session:
            row = await session.scalar(select(WebhookEndpoint).where(WebhookEndpoint.id == endpoint_id))
        if row is None:
            return None
        secret = unseal(self._key, row.secret_sealed)
        return Target(row.id, row.partner_id, row.url, secret, row.disabled_at is None)

    async def settle(self, endpoint_id: str, ok: bool, *, disable_after: int, notice: DisabledNotice) -> bool:
        """Count one delivery's outcome for its endpoint: a success resets the failures, a failure adds one,
        and the `disable_after`-th in a row turns the endpoint off and tells its partner (`notice`) in the
        same transaction, once. True when this call turned it off."""
        now = self.clock()
        own = WebhookEndpoint.id == endpoint_id
        async with self._db.session() as session, session.begin():
            if ok:
                await session.execute(update(WebhookEndpoint).where(own).values(failures=0, last_success_at=now))
                return False
            counted = await session.execute(
                update(WebhookEndpoint)
                .where(own)
                .values(failures=WebhookEndpoint.failures + 1)
                .returning(WebhookEndpoint.failures, WebhookEndpoint.disabled_at, WebhookEndpoint.partner_id)
            )
            found = counted.first()
            if found is None or found.disabled_at is not None or found.failures < disable_after:
                return False
            turned_off = await session.execute(
                update(WebhookEndpoint).where(own, WebhookEndpoint.disabled_at.is_(None)).values(disabled_at=now)
            )
            if getattr(turned_off, "rowcount", 0) != 1:
                return False
            url = await session.scalar(select(WebhookEndpoint.url).where(own))
            detail = {"id": endpoint_id, "failures": found.failures}
            add_audit_entry(session, now, found.partner_id, "the service", "webhook.disable", detail)
            contacts = await contacts_of(session, [found.partner_id])
            if found.partner_id in contacts:
                who = contacts[found.partner_id]
                await notice(session, who.name, who.addresses, str(url))
        return True

    @staticmethod
    async def _ids(session: AsyncSession, partner_id: str) -> list[str]:
        found = await session.scalars(select(WebhookEndpoint.id).where(WebhookEndpoint.partner_id == partner_id))
        return list(found.all())
