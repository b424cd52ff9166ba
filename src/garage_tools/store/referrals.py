"""Referrals: searches that named a partner (routeByZip, an inspection without consent to share). Demand, not leads.

A referral holds no personal data and reaches nobody's inbox: partners see referrals counted as demand in their
console ("3 homeowners near 84770 looked for spring repair this week"). One caller searching the same problem
for the same partner again the same day adds nothing: `dedupe` is unique and a repeat is skipped in the INSERT
itself (ON CONFLICT DO NOTHING, on SQLite and PostgreSQL alike).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import Insert, func, select
from sqlalchemy.dialects import postgresql, sqlite

from garage_tools.store.database import Database
from garage_tools.store.models import Base, Referral
from garage_tools.store.moments import as_utc
from garage_tools.store.partners import LeadTally, tallies

_TABLE = Base.metadata.tables[Referral.__tablename__]


def caller_fingerprint(identity: str, day: date) -> str:
    """Who searched, as a hash good for one day only: the same caller is one caller that day and unknowable
    after it (`identity` is the caller's key id or rate-limit bucket; neither is stored)."""
    return hashlib.sha256(f"{day.isoformat()}\n{identity}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class NewReferral:
    created_at: datetime
    partner_id: str | None
    covered: bool
    zip: str | None
    issue: str | None
    door_size: str | None
    heat: str | None
    source: str  # "routing" or "inspection"
    surface: str
    caller: str  # `caller_fingerprint`

    @property
    def day(self) -> date:
        return self.created_at.astimezone(UTC).date()

    @property
    def dedupe(self) -> str:
        key = "\n".join((self.caller, self.partner_id or "", self.issue or "", self.day.isoformat()))
        return hashlib.sha256(key.encode()).hexdigest()

    def row(self) -> dict[str, Any]:
        return {
            "created_at": self.created_at,
            "day": self.day,
            "partner_id": self.partner_id,
            "covered": self.covered,
            "zip": self.zip,
            "issue": self.issue,
            "door_size": self.door_size,
            "heat": self.heat,
            "source": self.source,
            "surface": self.surface[:16],
            "caller": self.caller,
            "dedupe": self.dedupe,
        }


@dataclass(frozen=True, slots=True)
class Demand:
    """How many homeowners looked for one issue near one ZIP code in a period (the console's demand)."""

    zip: str | None
    issue: str | None
    homeowners: int
    last_day: date


class ReferralRepository:
    def __init__(self, database: Database) -> None:
        self._db = database

    def _insert(self) -> Insert:
        if self._db.is_sqlite:
            return sqlite.insert(_TABLE).on_conflict_do_nothing(index_elements=["dedupe"])
        return postgresql.insert(_TABLE).on_conflict_do_nothing(index_elements=["dedupe"])

    async def add(self, referrals: Sequence[NewReferral]) -> None:
        """Store `referrals`, skipping any the same caller already made today (in the batch or before)."""
        rows = list({item.dedupe: item.row() for item in referrals}.values())
        if not rows:
            return
        async with self._db.session() as session, session.begin():
            await session.execute(self._insert(), rows)

    async def all(self, since: datetime | None = None) -> list[NewReferral]:
        """Stored referrals, oldest first (tests, exports)."""
        query = select(Referral).order_by(Referral.id)
        if since is not None:
            query = query.where(Referral.created_at >= since)
        async with self._db.session() as session:
            rows = (await session.scalars(query)).all()
        return [
            NewReferral(
                created_at=as_utc(r.created_at),
                partner_id=r.partner_id,
                covered=r.covered,
                zip=r.zip,
                issue=r.issue,
                door_size=r.door_size,
                heat=r.heat,
                source=r.source,
                surface=r.surface,
                caller=r.caller,
            )
            for r in rows
        ]

    async def demand(self, partner_id: str, since: date, limit: int = 50) -> list[Demand]:
        """The partner's referrals from `since` (a day, UTC) on, per ZIP code and issue, most first."""
        count = func.count()
        query = (
            select(Referral.zip, Referral.issue, count, func.max(Referral.day))
            .where(Referral.partner_id == partner_id, Referral.day >= since)
            .group_by(Referral.zip, Referral.issue)
            .order_by(count.desc(), Referral.zip, Referral.issue)
            .limit(limit)
        )
        async with self._db.session() as session:
            rows = (await session.execute(query)).all()
        return [Demand(zip_code, issue, int(n), last) for zip_code, issue, n, last in rows]

    async def tallies(self, since: datetime | None = None) -> list[LeadTally]:
        """Referrals per partner (most first), as `partners leads --searches` shows them."""
        return await tallies(self._db, Referral.partner_id, Referral.heat, Referral.created_at, since)
