"""Tables. Every schema change ships as an Alembic migration in `migrations/versions/`."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Stable constraint names, so migrations behave the same on SQLite and PostgreSQL.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class ApiKey(Base):
    """An API key. Only a SHA-256 hash of the secret is stored; the plaintext is shown once."""

    __tablename__ = "api_keys"
    # Keys are found by the hash of the whole key (see access/keys.py), so this index is the lookup path.
    __table_args__ = (Index("uq_api_keys_secret_hash", "secret_hash", unique=True),)

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    owner_email: Mapped[str] = mapped_column(String(320), index=True)
    name: Mapped[str] = mapped_column(String(100))
    secret_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    plan: Mapped[str | None] = mapped_column(String(32), default=None)  # None: the default plan (settings)


WEBHOOK_CHANNEL = "webhook"  # an outbox row that is a webhook delivery (`store/webhooks.py`); else e-mail


class OutboxMessage(Base):
    """An e-mail waiting to be sent, being sent, sent, or given up on (see garage_tools.mail).

    Rows are added in the same transaction as the business change they announce, so a message
    exists exactly when its change committed. `claimed_until` is a lease: a worker that dies
    mid-send loses its claim when the lease runs out and another worker takes the message over.
    """

    __tablename__ = "outbox"
    __table_args__ = (
        # The worker's one query: due pending rows, and sending rows whose lease ran out.
        Index("ix_outbox_status_next_attempt_at", "status", "next_attempt_at"),
        Index("ix_outbox_to_address_created_at", "to_address", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    message_id: Mapped[str] = mapped_column(String(255), unique=True)
    to_address: Mapped[str] = mapped_column(String(320))
    subject: Mapped[str] = mapped_column(String(998))
    text_body: Mapped[str] = mapped_column(Text)
    html_body: Mapped[str | None] = mapped_column(Text, default=None)
    kind: Mapped[str] = mapped_column(String(50))
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_error: Mapped[str | None] = mapped_column(String(500), default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    sent_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    claimed_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    claim_token: Mapped[str | None] = mapped_column(String(32), default=None)
    # A webhook delivery rides the same queue (`channel` "webhook"): `endpoint_id` says where, `subject` holds
    # the event type, `text_body` the signed JSON, `message_id` the `webhook-id`; `to_address` stays empty.
    channel: Mapped[str] = mapped_column(String(16), default="mail", server_default="mail")
    endpoint_id: Mapped[str | None] = mapped_column(
        String(32), ForeignKey("webhook_endpoints.id", ondelete="CASCADE"), index=True, default=None
    )
    last_status: Mapped[int | None] = mapped_column(Integer, default=None)  # the endpoint's last HTTP status
    last_response: Mapped[str | None] = mapped_column(String(500), default=None)  # its start, bounded
    last_attempt_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class Developer(Base):
    """Someone who has signed in to the developer portal; the first sign-in creates the row."""

    __tablename__ = "developers"

    email: Mapped[str] = mapped_column(String(320), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_sign_in_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LoginToken(Base):
    """A magic sign-in link. Only a SHA-256 of the token is stored; it works once, until `expires_at`."""

    __tablename__ = "login_tokens"
    __table_args__ = (Index("ix_login_tokens_email_used_at", "email", "used_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    email: Mapped[str] = mapped_column(String(320))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    request_ip: Mapped[str | None] = mapped_column(String(45), default=None)
    audience: Mapped[str] = mapped_column(String(16), default="developer", server_default="developer")
    return_to: Mapped[str | None] = mapped_column(String(500), default=None)  # a local path to land on


class PortalSession(Base):
    """A signed-in browser. Keyed by a SHA-256 of the cookie value, so a copy of the table signs nobody in.

    `audience` is whose pages it opens (the developer portal, a partner's console), as its link said."""

    __tablename__ = "portal_sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    email: Mapped[str] = mapped_column(String(320), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)
    audience: Mapped[str] = mapped_column(String(16), default="developer", server_default="developer")


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


class OAuthClient(Base):
    """An application that registered itself for OAuth (RFC 7591): a public client, no secret.

    `document` is the registration as we answered it, so the client reads back what it registered.
    """

    __tablename__ = "oauth_clients"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    redirect_uris: Mapped[list[str]] = mapped_column(JSON)
    document: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class OAuthGrant(Base):
    """One authorization: pending until the person allows it, then a connected app and its token family.

    Its id is public (the consent page's address, the dashboard's revoke button); revoking it ends every
    code and token issued under it. `expires_at` bounds how long the request waits for a decision.
    """

    __tablename__ = "oauth_grants"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    client_id: Mapped[str] = mapped_column(String(64), index=True)
    email: Mapped[str | None] = mapped_column(String(320), index=True, default=None)
    redirect_uri: Mapped[str] = mapped_column(String(2000))
    redirect_uri_explicit: Mapped[bool] = mapped_column(Boolean)
    code_challenge: Mapped[str] = mapped_column(String(128))
    state: Mapped[str | None] = mapped_column(Text, default=None)
    scope: Mapped[str] = mapped_column(String(100))
    resource: Mapped[str] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    allowed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    plan: Mapped[str | None] = mapped_column(String(32), default=None)  # None: the default plan (settings)


class KeyUsage(Base):
    """A key's tool calls on one day (UTC): API keys by id, connected apps as `oauth:<grant id>`."""

    __tablename__ = "key_usage"

    key_id: Mapped[str] = mapped_column(String(48), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    calls: Mapped[int] = mapped_column(Integer)


class OAuthToken(Base):
    """An authorization code, access token or refresh token of a grant; only its SHA-256 is stored.

    `used_at` marks a spent code or a rotated refresh token: presenting one again revokes the grant, unless
    a rotated refresh token comes back within the grace window: `successor` holds the tokens that replaced
    it, sealed under the spent token itself (which the store never holds), so only its holder can read them.
    """

    __tablename__ = "oauth_tokens"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    grant_id: Mapped[str] = mapped_column(String(32), ForeignKey("oauth_grants.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    successor: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)


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


class WebhookEndpoint(Base):
    """Where a partner wants its events delivered, signed per the Standard Webhooks specification.

    `secret_sealed` is the signing secret sealed under the deployment's secrets key (`garage_tools.sealing`):
    shown once when the endpoint is added, never again. `failures` counts failed deliveries in a row; at the
    setting's limit the endpoint is turned off (`disabled_at`) and its partner e-mailed.
    """

    __tablename__ = "webhook_endpoints"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    partner_id: Mapped[str] = mapped_column(String(64), ForeignKey("partners.id", ondelete="CASCADE"), index=True)
    url: Mapped[str] = mapped_column(String(2000))
    secret_sealed: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_success_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    disabled_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
