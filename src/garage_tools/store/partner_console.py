"""What a partner's console reads and changes, always within one partner, and what partners are told of leads.

Every method takes the partner's id and filters or guards by it in the query itself, so one partner's
session can never read or change another's rows whatever ids a form carries. A change to the profile,
a promotion or the opt-in bumps the directory's version in the same transaction, which is how every
running process learns of it (within `partner_refresh_seconds`), and writes an audit entry with it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.knowledge.directory import PartnerRecord, PromotionRecord
from garage_tools.store.database import Database
from garage_tools.store.models import (
    LeadEvent,
    Partner,
    PartnerAuditEntry,
    PartnerContact,
    PartnerDirectoryState,
    PartnerPromotion,
)
from garage_tools.store.moments import as_utc
from garage_tools.store.partners import STATE_ID, LeadSource, promotion_row

MAX_LEADS = 10_000  # the most one listing or export holds


@dataclass(frozen=True, slots=True)
class PartnerLead:
    """A stored lead as its partner sees it (the contact fields are filled only with the homeowner's consent)."""

    id: int
    created_at: datetime
    zip: str | None
    issue: str | None
    door_size: str | None
    lead_heat: str | None
    source: LeadSource
    report_id: str | None
    contact_name: str | None
    contact_email: str | None
    language: str | None = None  # the homeowner's, when known


@dataclass(frozen=True, slots=True)
class LeadFilter:
    """Which of a partner's leads to list: one heat (None: all), recorded on or after `since` and before `until`."""

    heat: str | None = None
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True, slots=True)
class Profile:
    """What a partner may change about how homeowners reach them, and what the pro card says of them."""

    phone: str
    scheduler_url: str | None
    url: str
    license_number: str | None = None
    insured: bool | None = None
    in_business_since: int | None = None
    hours: str | None = None
    guarantee: str | None = None
    time_zone: str | None = None  # IANA name the console's times read in; None: each request's own state's zone
    language: str = "en"  # what the partner reads the console, requests and lead notices in


@dataclass(frozen=True, slots=True)
class AuditEntry:
    created_at: datetime
    partner_id: str
    actor: str
    action: str
    detail: dict[str, Any]


@dataclass(frozen=True, slots=True)
class DigestBatch:
    """One partner's leads for a digest, and where to send it."""

    partner_id: str
    display_name: str
    contacts: list[str]
    leads: list[PartnerLead]
    language: str = "en"  # the partner's (its profile's setting)


#: Turns a partner's digest into mail in the transaction that claims its leads (so they are told once).
Digest = Callable[[AsyncSession, DigestBatch], Awaitable[None]]


def _lead(row: LeadEvent) -> PartnerLead:
    return PartnerLead(
        id=row.id,
        created_at=as_utc(row.created_at),
        zip=row.zip,
        issue=row.issue,
        door_size=row.door_size,
        lead_heat=row.lead_heat,
        source=LeadSource(row.source),
        report_id=row.report_id,
        contact_name=row.contact_name,
        contact_email=row.contact_email,
        language=row.language,
    )


@dataclass(frozen=True, slots=True)
class PartnerContacts:
    """Where to write to a partner, and how: its name, its addresses and the language it reads."""

    name: str
    addresses: list[str]
    language: str = "en"


async def contacts_of(session: AsyncSession, partner_ids: Sequence[str]) -> dict[str, PartnerContacts]:
    """For each active partner with an address: its name, addresses and language (in the caller's transaction)."""
    rows = await session.execute(
        select(PartnerContact.partner_id, Partner.display_name, PartnerContact.email, Partner.language)
        .join(Partner, Partner.id == PartnerContact.partner_id)
        .where(PartnerContact.partner_id.in_(set(partner_ids)), Partner.active.is_(True))
        .order_by(PartnerContact.id)
    )
    found: dict[str, PartnerContacts] = {}
    for partner_id, name, email, language in rows:
        found.setdefault(partner_id, PartnerContacts(name, [], language)).addresses.append(email)
    return found


async def urgent_told_since(session: AsyncSession, partner_ids: Sequence[str], since: datetime) -> dict[str, int]:
    """How many hot leads each partner was told of since `since` (in the caller's transaction)."""
    rows = await session.execute(
        select(LeadEvent.partner_id, func.count())
        .where(
            LeadEvent.partner_id.in_(set(partner_ids)),
            LeadEvent.created_at >= since,
            LeadEvent.lead_heat == "hot",
            LeadEvent.notified_at.is_not(None),
        )
        .group_by(LeadEvent.partner_id)
    )
    return {str(partner_id): int(count) for partner_id, count in rows}


async def told_contacts_since(
    session: AsyncSession, partner_ids: Sequence[str], since: datetime
) -> set[tuple[str, str]]:
    """(partner, homeowner address) pairs of the leads recorded since `since`: a homeowner who sends the same
    lead twice reaches the partner once (in the caller's transaction)."""
    rows = await session.execute(
        select(LeadEvent.partner_id, LeadEvent.contact_email)
        .where(
            LeadEvent.partner_id.in_(set(partner_ids)),
            LeadEvent.created_at >= since,
            LeadEvent.contact_email.is_not(None),
        )
        .distinct()
    )
    return {(str(partner_id), str(email)) for partner_id, email in rows}


async def _bump_directory(session: AsyncSession, now: datetime) -> None:
    await session.execute(
        update(PartnerDirectoryState)
        .where(PartnerDirectoryState.id == STATE_ID)
        .values(version=PartnerDirectoryState.version + 1, source="console", updated_at=now)
    )


class PartnerConsoleRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    # -- who ------------------------------------------------------------------------------------

    async def partner_of(self, email: str) -> str | None:
        """The partner whose address `email` is, or None (an address belongs to one partner at most)."""
        async with self._db.session() as session:
            return await session.scalar(
                select(PartnerContact.partner_id)
                .join(Partner, Partner.id == PartnerContact.partner_id)
                .where(PartnerContact.email == email, Partner.active.is_(True))
            )

    async def partner(self, partner_id: str) -> PartnerRecord | None:
        """The partner as stored now (the console shows its own changes at once, not after the next refresh)."""
        async with self._db.session() as session:
            row = await session.scalar(select(Partner).where(Partner.id == partner_id))
            if row is None:
                return None
            found = await contacts_of(session, [partner_id])
        fields = {column.name: getattr(row, column.name) for column in Partner.__table__.columns}
        fields.pop("updated_at")
        addresses = found[partner_id].addresses if partner_id in found else []
        return PartnerRecord.model_validate({**fields, "contact_email": addresses[0] if addresses else None})

    async def contacts(self, partner_id: str) -> list[str]:
        async with self._db.session() as session:
            found = await contacts_of(session, [partner_id])
        return found[partner_id].addresses if partner_id in found else []

    # -- leads ----------------------------------------------------------------------------------

    async def leads(self, partner_id: str, wanted: LeadFilter = LeadFilter(), limit: int = 500) -> list[PartnerLead]:
        """The partner's leads, newest first."""
        query = select(LeadEvent).where(LeadEvent.partner_id == partner_id)
        if wanted.heat is not None:
            query = query.where(LeadEvent.lead_heat == wanted.heat)
        if wanted.since is not None:
            query = query.where(LeadEvent.created_at >= wanted.since)
        if wanted.until is not None:
            query = query.where(LeadEvent.created_at < wanted.until)
        query = query.order_by(LeadEvent.created_at.desc(), LeadEvent.id.desc()).limit(min(limit, MAX_LEADS))
        async with self._db.session() as session:
            return [_lead(row) for row in (await session.scalars(query)).all()]

    async def digest(self, now: datetime, send: Digest) -> int:
        """Claim every lead not yet told to its partner (of partners with an address) and hand each partner's
        to `send`, in one transaction: a lead is digested once, even with two digests running. The number
        of leads told."""
        told = 0
        async with self._db.session() as session, session.begin():
            has_address = select(PartnerContact.partner_id)
            claimed = (
                await session.scalars(
                    update(LeadEvent)
                    .where(LeadEvent.notified_at.is_(None), LeadEvent.partner_id.in_(has_address))
                    .values(notified_at=now)
                    .returning(LeadEvent),
                    execution_options={"synchronize_session": False},
                )
            ).all()
            by_partner: dict[str, list[PartnerLead]] = {}
            for row in claimed:
                by_partner.setdefault(str(row.partner_id), []).append(_lead(row))
            contacts = await contacts_of(session, list(by_partner))
            for partner_id, leads in sorted(by_partner.items()):
                if partner_id not in contacts:
                    continue  # an inactive partner: its leads count as told, it gets no mail
                found = contacts[partner_id]
                leads.sort(key=lambda lead: (lead.created_at, lead.id), reverse=True)
                await send(session, DigestBatch(partner_id, found.name, found.addresses, leads, found.language))
                told += len(leads)
        return told

    # -- the profile and the opt-in -------------------------------------------------------------

    async def update_profile(self, partner_id: str, profile: Profile, actor: str) -> bool:
        """Set the partner's phone, links, trust facts, time zone and language (False: no such partner)."""
        values = {
            "phone": profile.phone,
            "scheduler_url": profile.scheduler_url,
            "url": profile.url,
            "license_number": profile.license_number,
            "insured": profile.insured,
            "in_business_since": profile.in_business_since,
            "hours": profile.hours,
            "guarantee": profile.guarantee,
            "time_zone": profile.time_zone,
            "language": profile.language,
        }
        return await self._change_partner(partner_id, values, actor, "profile.update")

    async def set_opt_in(self, partner_id: str, opt_in: bool, actor: str) -> bool:
        """Whether the partner's promotions may be shown to homeowners."""
        action = "promotions.opt_in" if opt_in else "promotions.opt_out"
        return await self._change_partner(partner_id, {"promotions_opt_in": opt_in}, actor, action)

    async def _change_partner(self, partner_id: str, values: dict[str, Any], actor: str, action: str) -> bool:
        now = datetime.now(UTC)
        async with self._db.session() as session, session.begin():
            changed = await session.execute(
                update(Partner).where(Partner.id == partner_id).values(**values, updated_at=now)
            )
            if getattr(changed, "rowcount", 0) != 1:
                return False
            await _bump_directory(session, now)
            await self._audit(session, now, partner_id, actor, action, values)
        return True

    # -- promotions -----------------------------------------------------------------------------

    async def promotions(self, partner_id: str) -> list[PromotionRecord]:
        """The partner's promotions, latest ending first."""
        query = (
            select(PartnerPromotion)
            .where(PartnerPromotion.partner_id == partner_id)
            .order_by(PartnerPromotion.valid_until.desc(), PartnerPromotion.id)
        )
        async with self._db.session() as session:
            rows = (await session.scalars(query)).all()
        return [_promotion(row) for row in rows]

    async def save_promotion(self, record: PromotionRecord, actor: str, *, new: bool) -> bool:
        """Add the partner's promotion, or change one of its own; False when `record.id` is not among its own
        (or, for a new one, already taken)."""
        now = datetime.now(UTC)
        values = promotion_row(record, now)
        async with self._db.session() as session, session.begin():
            if new:
                if await session.scalar(select(PartnerPromotion.id).where(PartnerPromotion.id == record.id)):
                    return False
                await session.execute(insert(PartnerPromotion).values(**values))
            else:
                changed = await session.execute(
                    update(PartnerPromotion)
                    .where(PartnerPromotion.id == record.id, PartnerPromotion.partner_id == record.partner_id)
                    .values(**values)
                )
                if getattr(changed, "rowcount", 0) != 1:
                    return False
            await _bump_directory(session, now)
            detail = record.model_dump(mode="json", by_alias=True, exclude_none=True)
            action = "promotion.create" if new else "promotion.update"
            await self._audit(session, now, record.partner_id, actor, action, detail)
        return True

    async def end_promotion(self, partner_id: str, promotion_id: str, today: date, actor: str) -> bool:
        """End one of the partner's promotions now: it is no longer shown from today on (UTC). A promotion that
        had not begun is removed; False when it is not among the partner's own."""
        now = datetime.now(UTC)
        own = (PartnerPromotion.id == promotion_id) & (PartnerPromotion.partner_id == partner_id)
        async with self._db.session() as session, session.begin():
            row = await session.scalar(select(PartnerPromotion).where(own))
            if row is None:
                return False
            yesterday = date.fromordinal(today.toordinal() - 1)
            if row.valid_from > yesterday:
                await session.execute(delete(PartnerPromotion).where(own))
            elif row.valid_until > yesterday:
                await session.execute(update(PartnerPromotion).where(own).values(valid_until=yesterday, updated_at=now))
            await _bump_directory(session, now)
            await self._audit(session, now, partner_id, actor, "promotion.end", {"id": promotion_id})
        return True

    # -- audit ----------------------------------------------------------------------------------

    async def record(self, partner_id: str, actor: str, action: str, detail: dict[str, Any]) -> None:
        """An audit entry on its own (a sign-in, an invitation)."""
        async with self._db.session() as session, session.begin():
            await self._audit(session, datetime.now(UTC), partner_id, actor, action, detail)

    async def audit(self, partner_id: str | None = None, limit: int = 100) -> list[AuditEntry]:
        """Audit entries, newest first; one partner's when `partner_id` is given."""
        query = select(PartnerAuditEntry).order_by(PartnerAuditEntry.id.desc()).limit(limit)
        if partner_id is not None:
            query = query.where(PartnerAuditEntry.partner_id == partner_id)
        async with self._db.session() as session:
            rows = (await session.scalars(query)).all()
        return [AuditEntry(as_utc(r.created_at), r.partner_id, r.actor, r.action, dict(r.detail)) for r in rows]

    @staticmethod
    async def _audit(
        session: AsyncSession, now: datetime, partner_id: str, actor: str, action: str, detail: dict[str, Any]
    ) -> None:
        add_audit_entry(session, now, partner_id, actor, action, detail)


def add_audit_entry(
    session: AsyncSession, now: datetime, partner_id: str, actor: str, action: str, detail: dict[str, Any]
) -> None:
    """An audit entry of a partner, in the caller's transaction (the change and its entry stand or fall together)."""
    session.add(
        PartnerAuditEntry(created_at=now, partner_id=partner_id, actor=actor[:320], action=action, detail=detail)
    )


def _promotion(row: PartnerPromotion) -> PromotionRecord:
    return PromotionRecord.model_validate(
        {
            "id": row.id,
            "partner_id": row.partner_id,
            "title": row.title,
            "description": row.description,
            "discount_type": row.discount_type,
            "discount_value": row.discount_value,
            "service_types": row.service_types,
            "issue_keys": row.issue_keys,
            "region_keys": row.region_keys,
            "valid_from": row.valid_from,
            "valid_until": row.valid_until,
            "terms": row.terms,
        }
    )
