"""What leaves the service: queued e-mail and webhook deliveries (one outbox), and partners' webhook endpoints."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, Index, Integer, LargeBinary, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from garage_tools.store.models.base import Base

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
