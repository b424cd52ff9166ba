"""Partner directory persistence: read it whole, replace it whole, seed it once, and record leads.

The directory is small (thousands of rows) and read as a whole into an in-memory index, so the
repository offers whole-directory operations only. Every replacement bumps one version number in
the same transaction; processes poll that number to know when to re-read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import case, delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.knowledge.directory import PartnerRecord, PromotionRecord
from garage_tools.store.database import Database
from garage_tools.store.models import (
    Base,
    LeadEvent,
    Partner,
    PartnerContact,
    PartnerDirectoryState,
    PartnerPromotion,
)
from garage_tools.store.moments import as_utc

STATE_ID = 1


@dataclass(frozen=True, slots=True)
class DirectoryRows:
    """The whole directory as stored, at one version."""

    version: int
    partners: list[PartnerRecord]
    promotions: list[PromotionRecord]


@dataclass(frozen=True, slots=True)
class PartnersReplaced:
    added: int
    updated: int
    removed: int
    promotions_removed: int
    version: int


class LeadSource(StrEnum):
    """What routed a lead to a partner."""

    ROUTING = "routing"  # routeByZip: a homeowner, widget or agent asked for a pro
    INSPECTION = "inspection"  # an inspection report that needs a pro


@dataclass(frozen=True, slots=True)
class Lead:
    """One routed request, as recorded.

    A routing lead holds no personal data. An inspection lead carries the report's id and the homeowner's
    name and e-mail address only when they agreed that the matched pro may contact them.
    """

    created_at: datetime
    partner_id: str | None
    covered: bool
    zip: str | None
    issue: str | None
    door_size: str | None
    lead_heat: str | None
    surface: str
    source: LeadSource = LeadSource.ROUTING
    report_id: str | None = None
    contact_name: str | None = None
    contact_email: str | None = None
    #: The language the homeowner wrote in (None: not known), so the pro can send someone who speaks it.
    language: str | None = None
    #: Where the request reached the service, so the lead's notice links back to it. Not stored.
    base_url: str | None = None


#: Work in the transaction that stores leads: tell partners of those that cannot wait (a hot lead's notice),
#: answering the positions (in the batch) of the leads it told.
TellAtOnce = Callable[[AsyncSession, Sequence[Lead]], Awaitable[set[int]]]


@dataclass(frozen=True, slots=True)
class LeadTally:
    """Leads of one partner (None: requests no partner covered)."""

    partner_id: str | None
    total: int
    hot: int
    warm: int
    cold: int
    first_at: datetime
    last_at: datetime


def _partner_row(record: PartnerRecord, now: datetime) -> dict[str, Any]:
    return {
        "id": record.id,
        "display_name": record.display_name,
        "phone": record.phone,
        "scheduler_url": record.scheduler_url,
        "url": record.url,
        "region": record.region,
        "region_key": record.region_key,
        "zip_prefixes": list(record.zip_prefixes),
        "zips": list(record.zips),
        "center_zip": record.center_zip,
        "center_lat": record.center_lat,
        "center_lon": record.center_lon,
        "radius_miles": record.radius_miles,
        "services": [service.value for service in record.services],
        "emergency": record.emergency,
        "promotions_opt_in": record.promotions_opt_in,
        "active": record.active,
        "license_number": record.license_number,
        "insured": record.insured,
        "in_business_since": record.in_business_since,
        "hours": record.hours,
        "guarantee": record.guarantee,
        "time_zone": record.time_zone,
        "language": record.language,
        "updated_at": now,
    }


def promotion_row(record: PromotionRecord, now: datetime) -> dict[str, Any]:
    return {
        "id": record.id,
        "partner_id": record.partner_id,
        "title": record.title,
        "description": record.description,
        "discount_type": record.discount_type.value,
        "discount_value": record.discount_value,
        "service_types": [service.value for service in record.service_types],
        "issue_keys": list(record.issue_keys),
        "region_keys": list(record.region_keys),
        "valid_from": record.valid_from,
        "valid_until": record.valid_until,
        "terms": record.terms,
        "updated_at": now,
    }


def _contact_rows(records: Sequence[PartnerRecord], now: datetime) -> list[dict[str, Any]]:
    return [
        {"partner_id": record.id, "email": record.contact_email, "created_at": now}
        for record in records
        if record.contact_email is not None
    ]


def _records(partners: list[dict[str, Any]], promotions: list[dict[str, Any]]) -> DirectoryRows:
    """Rows to validated records (run in a thread: 10,000 partners take most of a second)."""
    return DirectoryRows(
        version=0,
        partners=[PartnerRecord.model_validate(row) for row in partners],
        promotions=[PromotionRecord.model_validate(row) for row in promotions],
    )


_PARTNER_FIELDS = [column for column in Partner.__table__.columns if column.name != "updated_at"]
_PROMOTION_FIELDS = [column for column in PartnerPromotion.__table__.columns if column.name != "updated_at"]


class PartnerRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def version(self) -> int:
        """The directory's version: 0 until it is first filled, then one more for every replacement."""
        async with self._db.session() as session:
            found = await session.scalar(
                select(PartnerDirectoryState.version).where(PartnerDirectoryState.id == STATE_ID)
            )
            return int(found or 0)

    async def load(self) -> DirectoryRows:
        """Every partner (active or not) and every promotion (current or not).

        Plain rows are fetched on the event loop (fast); turning them into records runs in a thread,
        so a process re-reading a large directory keeps answering requests meanwhile.
        """
        async with self._db.session() as session, session.begin():
            # The version is read first: an import committing meanwhile is picked up on the next poll.
            version = await session.scalar(
                select(PartnerDirectoryState.version).where(PartnerDirectoryState.id == STATE_ID)
            )
            partners = (await session.execute(select(*_PARTNER_FIELDS).order_by(Partner.id))).mappings().all()
            contacts: dict[str, str] = {}
            for partner_id, email in await session.execute(
                select(PartnerContact.partner_id, PartnerContact.email).order_by(PartnerContact.id)
            ):
                contacts.setdefault(partner_id, email)  # the first address given is the one the directory shows
            promotions = (
                (await session.execute(select(*_PROMOTION_FIELDS).order_by(PartnerPromotion.id))).mappings().all()
            )
        rows = await asyncio.to_thread(
            _records,
            [{**r, "contact_email": contacts.get(r["id"])} for r in partners],
            [dict(r) for r in promotions],
        )
        return DirectoryRows(version=int(version or 0), partners=rows.partners, promotions=rows.promotions)

    async def seed(self, partners: Sequence[PartnerRecord], promotions: Sequence[PromotionRecord]) -> bool:
        """Fill a directory that was never filled (version 0); False, and no change, otherwise.

        Safe when several processes start at once: the version row is claimed with a conditional
        UPDATE, so exactly one of them inserts.
        """
        now = datetime.now(UTC)
        async with self._db.session() as session, session.begin():
            claimed = await session.execute(
                update(PartnerDirectoryState)
                .where(PartnerDirectoryState.id == STATE_ID, PartnerDirectoryState.version == 0)
                .values(version=1, source="sample", updated_at=now)
            )
            if getattr(claimed, "rowcount", 0) != 1:
                return False
            if partners:
                await session.execute(insert(Partner), [_partner_row(record, now) for record in partners])
                if contacts := _contact_rows(partners, now):
                    await session.execute(insert(PartnerContact), contacts)
            if promotions:
                await session.execute(insert(PartnerPromotion), [promotion_row(record, now) for record in promotions])
        return True

    async def replace_partners(self, records: Sequence[PartnerRecord]) -> PartnersReplaced:
        """Make the directory exactly `records`, in one transaction.

        Partners that stay keep their promotions; promotions of partners that go are deleted with them.
        """
        now = datetime.now(UTC)
        wanted = {record.id for record in records}
        async with self._db.session() as session, session.begin():
            existing = set((await session.scalars(select(Partner.id))).all())
            gone = sorted(existing - wanted)
            promotions_removed = 0
            if gone:
                promotions_removed = int(
                    await session.scalar(
                        select(func.count()).select_from(PartnerPromotion).where(PartnerPromotion.partner_id.in_(gone))
                    )
                    or 0
                )
                await session.execute(delete(PartnerPromotion).where(PartnerPromotion.partner_id.in_(gone)))
                await session.execute(delete(PartnerContact).where(PartnerContact.partner_id.in_(gone)))
                await session.execute(delete(Partner).where(Partner.id.in_(gone)))
            updated = [_partner_row(record, now) for record in records if record.id in existing]
            added = [_partner_row(record, now) for record in records if record.id not in existing]
            if updated:
                await session.execute(update(Partner), updated)
            if added:
                await session.execute(insert(Partner), added)
            # The file is the source of every partner's address, for now: all are replaced with it.
            await session.execute(delete(PartnerContact))
            if contacts := _contact_rows(records, now):
                await session.execute(insert(PartnerContact), contacts)
            version = await self._bump(session, now)
        return PartnersReplaced(len(added), len(updated), len(gone), promotions_removed, version)

    async def replace_promotions(self, records: Sequence[PromotionRecord]) -> int:
        """Make the promotions exactly `records` (their partners must exist); the new version."""
        now = datetime.now(UTC)
        async with self._db.session() as session, session.begin():
            await session.execute(delete(PartnerPromotion))
            if records:
                await session.execute(insert(PartnerPromotion), [promotion_row(record, now) for record in records])
            return await self._bump(session, now)

    async def partner_ids(self) -> set[str]:
        async with self._db.session() as session:
            return set((await session.scalars(select(Partner.id))).all())

    @staticmethod
    async def _bump(session: Any, now: datetime) -> int:
        await session.execute(
            update(PartnerDirectoryState)
            .where(PartnerDirectoryState.id == STATE_ID)
            .values(version=PartnerDirectoryState.version + 1, source="import", updated_at=now)
        )
        version = await session.scalar(
            select(PartnerDirectoryState.version).where(PartnerDirectoryState.id == STATE_ID)
        )
        return int(version)

    async def add_leads(self, leads: Sequence[Lead], tell: TellAtOnce | None = None) -> None:
        """Store `leads`; `tell` notifies partners of the urgent ones in the same transaction (marked told)."""
        if not leads:
            return
        async with self._db.session() as session, session.begin():
            told = await tell(session, leads) if tell is not None else set()
            now = datetime.now(UTC)
            rows = [_lead_row(lead, now if position in told else None) for position, lead in enumerate(leads)]
            # A Core insert of plain rows: about 16 µs a lead on SQLite, against 40 through the ORM.
            await session.execute(insert(_LEADS), rows)

    async def lead_tallies(self, since: datetime | None = None) -> list[LeadTally]:
        """Leads per partner (most first), optionally only those recorded at or after `since`."""
        return await tallies(self._db, LeadEvent.partner_id, LeadEvent.lead_heat, LeadEvent.created_at, since)

    async def leads(self, since: datetime | None = None) -> list[Lead]:
        """Recorded leads, oldest first (for tests and exports)."""
        query = select(LeadEvent).order_by(LeadEvent.id)
        if since is not None:
            query = query.where(LeadEvent.created_at >= since)
        async with self._db.session() as session:
            rows = (await session.scalars(query)).all()
        return [
            Lead(
                created_at=as_utc(row.created_at),
                partner_id=row.partner_id,
                covered=row.covered,
                zip=row.zip,
                issue=row.issue,
                door_size=row.door_size,
                lead_heat=row.lead_heat,
                surface=row.surface,
                source=LeadSource(row.source),
                report_id=row.report_id,
                contact_name=row.contact_name,
                contact_email=row.contact_email,
                language=row.language,
            )
            for row in rows
        ]


async def tallies(
    database: Database, partner: Any, heat_of: Any, created: Any, since: datetime | None = None
) -> list[LeadTally]:
    """Rows per partner (most first) with their heats and first and last times, at or after `since`: one
    counting for leads and referrals alike (the columns name the table)."""

    def heat(value: str) -> Any:
        return func.sum(case((heat_of == value, 1), else_=0))

    query = select(
        partner, func.count(), heat("hot"), heat("warm"), heat("cold"), func.min(created), func.max(created)
    ).group_by(partner)
    if since is not None:
        query = query.where(created >= since)
    async with database.session() as session:
        rows = (await session.execute(query)).all()
    found = [
        LeadTally(
            row[0], int(row[1]), int(row[2] or 0), int(row[3] or 0), int(row[4] or 0), as_utc(row[5]), as_utc(row[6])
        )
        for row in rows
    ]
    return sorted(found, key=lambda tally: (-tally.total, tally.partner_id or ""))


_LEADS = Base.metadata.tables[LeadEvent.__tablename__]


def _lead_row(lead: Lead, notified_at: datetime | None = None) -> dict[str, Any]:
    return {
        "created_at": lead.created_at,
        "partner_id": lead.partner_id,
        "covered": lead.covered,
        "zip": lead.zip,
        "issue": lead.issue,
        "door_size": lead.door_size,
        "lead_heat": lead.lead_heat,
        "surface": lead.surface,
        "source": lead.source.value,
        "report_id": lead.report_id,
        "contact_name": lead.contact_name,
        "contact_email": lead.contact_email,
        "language": lead.language,
        "notified_at": notified_at,
    }


async def insert_lead(session: AsyncSession, lead: Lead, tell: TellAtOnce | None = None) -> int:
    """Write `lead` in the caller's open transaction (with the report it came from); its id.

    Inspection leads go this way, not through the in-memory batches of `LeadRecorder`: one that carries
    contact details is written durably with its report, or not at all; so is its notice (`tell`).
    """
    told = await tell(session, [lead]) if tell is not None else set()
    row = _lead_row(lead, datetime.now(UTC) if told else None)
    result = await session.execute(insert(_LEADS).values(row).returning(_LEADS.c.id))
    return int(result.scalar_one())
