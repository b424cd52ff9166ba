"""What homeowners send: inspection reports and service requests with their history."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from garage_tools.store.models.base import Base


class InspectionRecord(Base):
    """A submitted 24-point inspection and its scored report.

    `id` is the unguessable token in the report's URL. `report` is the scored report as computed at
    submission (later checklist edits don't change it); `submission` is the request as validated.
    `idempotency_hash` (a SHA-256 of the caller's scope and Idempotency-Key) makes a retried
    submission find this row instead of adding another; `request_hash` tells a retry from a reuse.
    """

    __tablename__ = "inspection_reports"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    idempotency_hash: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    request_hash: Mapped[str] = mapped_column(String(64))
    email: Mapped[str] = mapped_column(String(320))
    zip: Mapped[str] = mapped_column(String(5), index=True)
    name: Mapped[str | None] = mapped_column(String(100), default=None)
    consent_marketing: Mapped[bool] = mapped_column(Boolean)
    consent_contact_share: Mapped[bool] = mapped_column(Boolean)
    score: Mapped[int] = mapped_column(Integer)
    grade: Mapped[str] = mapped_column(String(2))
    email_requested: Mapped[bool] = mapped_column(Boolean)
    mail_message_id: Mapped[str | None] = mapped_column(String(255), default=None)
    submission: Mapped[dict[str, Any]] = mapped_column(JSON)
    report: Mapped[dict[str, Any]] = mapped_column(JSON)


class ServiceRequest(Base):
    """A homeowner's request that a pro come out (`requestService`): a lead they chose to send.

    `id` is the request number people read aloud ("R-4829-3915"); the homeowner's status page is opened by
    a separate random token of which only a SHA-256 is kept (`token_hash`), so a copy of the table opens no
    page. `partner_id` is the partner it is offered to now, since `offered_at`; `previous_offers` lists the
    partners it was offered to before (who declined or stayed silent), oldest first, so re-routing never
    offers it to one of them again. `idempotency_hash` and `request_hash` work as for inspection reports.
    Every change of status is a row of `service_request_events` in the same transaction.
    """

    __tablename__ = "service_requests"
    __table_args__ = (
        Index("ix_service_requests_partner_id_created_at", "partner_id", "created_at"),
        # The sweep's one query: requests still waiting for an answer, oldest offer first.
        Index("ix_service_requests_status_offered_at", "status", "offered_at"),
    )

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    #: With an Idempotency-Key, the token is derived from the key and this salt, so a retry can answer the same
    #: link again; the key itself is never stored, so the table alone still opens no page.
    token_salt: Mapped[str | None] = mapped_column(String(32), default=None)
    idempotency_hash: Mapped[str | None] = mapped_column(String(64), unique=True, default=None)
    request_hash: Mapped[str] = mapped_column(String(64))
    partner_id: Mapped[str] = mapped_column(String(64))
    offered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    previous_offers: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    zip: Mapped[str] = mapped_column(String(5))
    issue: Mapped[str | None] = mapped_column(String(64), default=None)
    description: Mapped[str | None] = mapped_column(Text, default=None)
    door_size: Mapped[str | None] = mapped_column(String(20), default=None)
    contact_name: Mapped[str] = mapped_column(String(100))
    contact_phone: Mapped[str | None] = mapped_column(String(32), default=None)
    contact_email: Mapped[str | None] = mapped_column(String(320), index=True, default=None)
    consent_contact_share: Mapped[bool] = mapped_column(Boolean)
    windows: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    notes: Mapped[str | None] = mapped_column(Text, default=None)
    report_id: Mapped[str | None] = mapped_column(String(32), default=None)
    language: Mapped[str] = mapped_column(String(8), default="en", server_default="en")
    source: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    arrival_from: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    arrival_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    reason: Mapped[str | None] = mapped_column(String(300), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    first_response_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    #: Where the request reached the service, so mail sent later (a re-route, a status change) links back.
    base_url: Mapped[str | None] = mapped_column(String(300), default=None)


class ServiceRequestEvent(Base):
    """One change of a service request: its new status, who made it (homeowner, partner, system), when, and
    what came with it (an arrival window, a reason, the partner it was offered to). The request's history."""

    __tablename__ = "service_request_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    request_id: Mapped[str] = mapped_column(
        String(16), ForeignKey("service_requests.id", ondelete="CASCADE"), index=True
    )
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    kind: Mapped[str] = mapped_column(String(24))
    status: Mapped[str] = mapped_column(String(16))
    by: Mapped[str] = mapped_column(String(16))
    partner_id: Mapped[str] = mapped_column(String(64))
    detail: Mapped[dict[str, Any]] = mapped_column(JSON)
