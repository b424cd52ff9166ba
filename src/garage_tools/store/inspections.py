"""Inspection reports: store a new one (with its e-mail, in one transaction), find one by id or by key.

A report row and its outbox message stand or fall together: `add` runs the caller's `also` (the
outbox enqueue) inside the transaction that inserts the row, after the row is flushed, so a
duplicate Idempotency-Key is discovered before any message is queued.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.store.database import Database
from garage_tools.store.models import InspectionRecord
from garage_tools.store.moments import as_utc

#: Work to do in the same transaction as the new report; returns the queued Message-ID, if any.
InTransaction = Callable[[AsyncSession], Awaitable[str | None]]


def report_url(base_url: str, report_id: str) -> str:
    """Where a report is read: one rule for the tool's answer, its e-mail and the partner's lead notices."""
    return f"{base_url}/reports/{report_id}"


class DuplicateIdempotencyKey(Exception):
    """Another report already holds this Idempotency-Key (a concurrent retry won the race)."""


@dataclass(frozen=True, slots=True)
class NewInspection:
    id: str
    created_at: datetime
    idempotency_hash: str | None
    request_hash: str
    email: str
    zip: str
    name: str | None
    consent_marketing: bool
    consent_contact_share: bool
    score: int
    grade: str
    email_requested: bool
    submission: dict[str, Any]
    report: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StoredInspection:
    """A stored report, less the recipient's address and name (nothing that reads one needs them)."""

    id: str
    created_at: datetime
    request_hash: str
    consent_marketing: bool
    consent_contact_share: bool
    email_requested: bool
    mail_message_id: str | None
    report: dict[str, Any]


def _stored(row: InspectionRecord) -> StoredInspection:
    return StoredInspection(
        id=row.id,
        created_at=as_utc(row.created_at),
        request_hash=row.request_hash,
        consent_marketing=row.consent_marketing,
        consent_contact_share=row.consent_contact_share,
        email_requested=row.email_requested,
        mail_message_id=row.mail_message_id,
        report=row.report,
    )


class InspectionRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    async def add(self, new: NewInspection, *, also: InTransaction | None = None) -> StoredInspection:
        """Insert `new` and run `also` in the same transaction.

        Raises `DuplicateIdempotencyKey` when another row holds `new.idempotency_hash`; then nothing
        is stored and `also` has not run.
        """
        row = InspectionRecord(
            id=new.id,
            created_at=new.created_at,
            idempotency_hash=new.idempotency_hash,
            request_hash=new.request_hash,
            email=new.email,
            zip=new.zip,
            name=new.name,
            consent_marketing=new.consent_marketing,
            consent_contact_share=new.consent_contact_share,
            score=new.score,
            grade=new.grade,
            email_requested=new.email_requested,
            submission=new.submission,
            report=new.report,
        )
        try:
            async with self._db.session() as session, session.begin():
                session.add(row)
                await session.flush()  # a duplicate key fails here, before the mail is queued
                if also is not None:
                    row.mail_message_id = await also(session)
        except IntegrityError:
            if new.idempotency_hash is not None and await self.by_idempotency_hash(new.idempotency_hash):
                raise DuplicateIdempotencyKey from None
            raise
        return _stored(row)

    async def get(self, report_id: str) -> StoredInspection | None:
        async with self._db.session() as session:
            row = await session.get(InspectionRecord, report_id)
            return _stored(row) if row is not None else None

    async def by_idempotency_hash(self, idempotency_hash: str) -> StoredInspection | None:
        async with self._db.session() as session:
            row = await session.scalar(
                select(InspectionRecord).where(InspectionRecord.idempotency_hash == idempotency_hash)
            )
            return _stored(row) if row is not None else None
