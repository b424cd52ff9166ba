"""The partner directory as stored: partners, their offers, contacts and audit trail, the directory's version,
and the leads and referrals routing sends them."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Date, DateTime, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from garage_tools.store.models.base import Base


class Partner(Base):
    """A partner of the directory (see knowledge/directory.py for the meaning of each field).

    Service areas and services are small lists, stored as JSON: routing never queries them in SQL,
    it reads the whole directory into an in-memory index (garage_tools.partners).
    """

    __tablename__ = "partners"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(120))
    phone: Mapped[str] = mapped_column(String(32))
    scheduler_url: Mapped[str | None] = mapped_column(String(500), default=None)
    url: Mapped[str] = mapped_column(String(500))
    region: Mapped[str] = mapped_column(String(80))
    region_key: Mapped[str] = mapped_column(String(64), index=True)
    zip_prefixes: Mapped[list[str]] = mapped_column(JSON)
    zips: Mapped[list[str]] = mapped_column(JSON)
    center_zip: Mapped[str | None] = mapped_column(String(5), default=None)
    center_lat: Mapped[float | None] = mapped_column(Float, default=None)
    center_lon: Mapped[float | None] = mapped_column(Float, default=None)
    radius_miles: Mapped[float | None] = mapped_column(Float, default=None)
    services: Mapped[list[str]] = mapped_column(JSON)
    emergency: Mapped[bool] = mapped_column(Boolean)
    promotions_opt_in: Mapped[bool] = mapped_column(Boolean)
    active: Mapped[bool] = mapped_column(Boolean)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    license_number: Mapped[str | None] = mapped_column(String(40), default=None)
    insured: Mapped[bool | None] = mapped_column(Boolean, default=None)
    in_business_since: Mapped[int | None] = mapped_column(Integer, default=None)
    hours: Mapped[str | None] = mapped_column(String(120), default=None)
    guarantee: Mapped[str | None] = mapped_column(String(200), default=None)
    time_zone: Mapped[str | None] = mapped_column(String(64), default=None)
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")


class PartnerPromotion(Base):
    """An offer of one partner; removed with its partner."""

    __tablename__ = "partner_promotions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    partner_id: Mapped[str] = mapped_column(String(64), ForeignKey("partners.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(120))
    description: Mapped[str] = mapped_column(Text)
    discount_type: Mapped[str] = mapped_column(String(16))
    discount_value: Mapped[float] = mapped_column(Float)
    service_types: Mapped[list[str]] = mapped_column(JSON)
    issue_keys: Mapped[list[str]] = mapped_column(JSON)
    region_keys: Mapped[list[str]] = mapped_column(JSON)
    valid_from: Mapped[date] = mapped_column(Date)
    valid_until: Mapped[date] = mapped_column(Date)
    terms: Mapped[str | None] = mapped_column(Text, default=None)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PartnerDirectoryState(Base):
    """One row: the directory's version, bumped by every import, so each process can tell when to re-read it.

    Version 0 means "never filled": the first process to see it seeds the packaged sample directory.
    """

    __tablename__ = "partner_directory_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(String(16))
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PartnerContact(Base):
    """An address at a partner: lead notices go to it, and it may sign in to the partner's console.

    One per partner for now (the directory's `contactEmail`); a table of its own so several can come later.
    An address belongs to one partner at most, so a signed-in address names its partner.
    """

    __tablename__ = "partner_contacts"
    __table_args__ = (Index("uq_partner_contacts_email", "email", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    partner_id: Mapped[str] = mapped_column(String(64), ForeignKey("partners.id", ondelete="CASCADE"), index=True)
    email: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class PartnerAuditEntry(Base):
    """Something done in a partner's console (or for it by an operator): who, what, when."""

    __tablename__ = "partner_audit"
    __table_args__ = (Index("ix_partner_audit_partner_id_created_at", "partner_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    partner_id: Mapped[str] = mapped_column(String(64))
    actor: Mapped[str] = mapped_column(String(320))
    action: Mapped[str] = mapped_column(String(40))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)


class LeadEvent(Base):
    """A routed request: which partner it went to and what for.

    No IP address or key, ever. `source` says what routed it: `routing` (routeByZip) or `inspection` (a
    report that needs a pro). Only an inspection lead whose homeowner agreed that the pro may contact them
    (`contactShare`) carries `report_id`, `contact_name` and `contact_email`; every other lead has them null.
    """

    __tablename__ = "lead_events"
    __table_args__ = (Index("ix_lead_events_partner_id_created_at", "partner_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    partner_id: Mapped[str | None] = mapped_column(String(64), index=True, default=None)
    covered: Mapped[bool] = mapped_column(Boolean)
    zip: Mapped[str | None] = mapped_column(String(5), default=None)
    issue: Mapped[str | None] = mapped_column(String(64), default=None)
    door_size: Mapped[str | None] = mapped_column(String(20), default=None)
    lead_heat: Mapped[str | None] = mapped_column(String(8), default=None)
    surface: Mapped[str] = mapped_column(String(16))
    notified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)  # told its partner
    source: Mapped[str] = mapped_column(String(16), default="routing", server_default="routing")
    report_id: Mapped[str | None] = mapped_column(String(32), index=True, default=None)
    contact_name: Mapped[str | None] = mapped_column(String(100), default=None)
    contact_email: Mapped[str | None] = mapped_column(String(320), default=None)
    language: Mapped[str | None] = mapped_column(String(8), default=None)  # the homeowner's, when known


class Referral(Base):
    """A search that named a partner (routeByZip, or an inspection without consent to share): demand, not a lead.

    No personal data: `caller` is a SHA-256 of the caller's address or key and the day, good only to count
    one person once; `dedupe` (a hash of caller, partner, issue and day) is unique, so one person searching
    the same problem again that day adds nothing.
    """

    __tablename__ = "referrals"
    __table_args__ = (Index("ix_referrals_partner_id_day", "partner_id", "day"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    day: Mapped[date] = mapped_column(Date, index=True)
    partner_id: Mapped[str | None] = mapped_column(String(64), default=None)
    covered: Mapped[bool] = mapped_column(Boolean)
    zip: Mapped[str | None] = mapped_column(String(5), default=None)
    issue: Mapped[str | None] = mapped_column(String(64), default=None)
    door_size: Mapped[str | None] = mapped_column(String(20), default=None)
    heat: Mapped[str | None] = mapped_column(String(8), default=None)
    source: Mapped[str] = mapped_column(String(16))
    surface: Mapped[str] = mapped_column(String(16))
    caller: Mapped[str] = mapped_column(String(64))
    dedupe: Mapped[str] = mapped_column(String(64), unique=True)
