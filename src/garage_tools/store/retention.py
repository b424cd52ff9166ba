"""How long personal data is kept, and deleting it: what is past its retention (`purge`), or one person's (`forget`).

The privacy page promises these periods and `garage-tools data purge` keeps the promise, run daily by the
operator's scheduler. What goes:

- inspection reports older than the inspections period (the e-mail address, name, ZIP code, consents,
  answers and notes they hold); a lead that pointed at one keeps its row but loses the report id;
- leads older than the leads period, contact details and all; service requests (with their history) and
  referrals too;
- sign-in links and portal sessions once they have expired;
- connected apps (OAuth grants) once revoked, once unused past their refresh token's lifetime, or, never
  allowed, once the request expired; codes and tokens once they have expired or their grant goes;
- e-mail the outbox delivered (or gave up on) longer ago than the mail period. Mail still waiting to go
  is never purged;
- entries of the partner console's audit older than the audit period (who did what: partners' business
  addresses, never a homeowner's).

API keys, connected apps and developer accounts stay while their owner has them; `forget` removes them on request. Both
work in one transaction, so a run that fails part-way deletes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Table, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from garage_tools.store.database import Database
from garage_tools.store.models import (
    ApiKey,
    Developer,
    InspectionRecord,
    LeadEvent,
    LoginToken,
    OAuthGrant,
    OAuthToken,
    OutboxMessage,
    PartnerAuditEntry,
    PortalSession,
    Referral,
    ServiceRequest,
    ServiceRequestEvent,
)

#: Outbox states that are done with: delivered, or given up on after every attempt.
FINISHED_MAIL = ("sent", "dead")


@dataclass(frozen=True, slots=True)
class Retention:
    """How long each kind of personal data is kept."""

    inspections: timedelta
    leads: timedelta
    mail: timedelta
    audit: timedelta


#: What `Deleted` counts, in the words `data purge` and `data forget` print.
KINDS = {
    "inspection_reports": "inspection reports",
    "leads": "leads",
    "service_requests": "service requests",
    "service_request_events": "service request changes",
    "referrals": "referrals",
    "sign_in_links": "sign-in links",
    "portal_sessions": "portal sessions",
    "emails": "e-mails",
    "app_tokens": "app codes and tokens",
    "connected_apps": "connected apps",
    "audit_entries": "partner audit entries",
    "api_keys": "API keys",
    "developer_accounts": "developer accounts",
}


@dataclass(frozen=True, slots=True)
class Deleted:
    """Rows deleted (or, in a dry run, that would be) by kind (a key of `KINDS`), and leads that lost a report."""

    counts: dict[str, int]
    reports_unlinked: int = 0

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def lines(self, dry_run: bool) -> list[str]:
        """What was deleted, one line a kind, as an operator reads it."""
        verb = "would delete" if dry_run else "deleted"
        lines = [f"{verb} {count} {KINDS[kind]}" for kind, count in self.counts.items()]
        if self.reports_unlinked:
            lines.append(
                f"{'would unlink' if dry_run else 'unlinked'} {self.reports_unlinked} leads from those reports"
            )
        return lines


def _table(model: Any) -> Table:
    return model.__table__  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class _Target:
    """Rows of one table to delete: the count is taken first, so a dry run reports the same numbers."""

    name: str
    table: Table
    where: ColumnElement[bool]


async def _apply(session: AsyncSession, targets: list[_Target], dry_run: bool) -> dict[str, int]:
    counts: dict[str, int] = {}
    for target in targets:
        counted = await session.scalar(select(func.count()).select_from(target.table).where(target.where))
        counts[target.name] = int(counted or 0)
        if counts[target.name] and not dry_run:
            await session.execute(delete(target.table).where(target.where))
    return counts


async def _unlink_reports(session: AsyncSession, gone: Any, dry_run: bool) -> int:
    """Leads that pointed at reports about to go keep their row (the lead period rules it) but not the link."""
    pointing = LeadEvent.report_id.in_(gone)
    counted = int(await session.scalar(select(func.count()).select_from(LeadEvent).where(pointing)) or 0)
    if counted and not dry_run:
        await session.execute(update(LeadEvent).where(pointing).values(report_id=None))
    return counted


Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def _finished_grants(now: datetime) -> ColumnElement[bool]:
    """Grants that can open nothing any more: revoked, never allowed in time, or without a live token."""
    live = select(OAuthToken.grant_id).where(OAuthToken.expires_at > now)
    return (
        OAuthGrant.revoked_at.is_not(None)
        | (OAuthGrant.allowed_at.is_(None) & (OAuthGrant.expires_at <= now))
        | (OAuthGrant.allowed_at.is_not(None) & OAuthGrant.id.not_in(live))
    )


def _app_targets(grants: ColumnElement[bool], tokens: ColumnElement[bool] | None = None) -> list[_Target]:
    """The grants `grants` selects and their tokens (with any `tokens` selects besides), tokens first."""
    of_grants = OAuthToken.grant_id.in_(select(OAuthGrant.id).where(grants))
    return [
        _Target("app_tokens", _table(OAuthToken), of_grants if tokens is None else of_grants | tokens),
        _Target("connected_apps", _table(OAuthGrant), grants),
    ]


def _request_targets(requests: ColumnElement[bool]) -> list[_Target]:
    """The service requests `requests` selects, their history first (a lead the homeowner sent: leads' period)."""
    of_requests = ServiceRequestEvent.request_id.in_(select(ServiceRequest.id).where(requests))
    return [
        _Target("service_request_events", _table(ServiceRequestEvent), of_requests),
        _Target("service_requests", _table(ServiceRequest), requests),
    ]


async def purge(database: Database, retention: Retention, *, dry_run: bool = False, clock: Clock = utc_now) -> Deleted:
    """Delete everything past its retention (see the module docstring); what was deleted."""
    now = clock()
    old_reports = select(InspectionRecord.id).where(InspectionRecord.created_at < now - retention.inspections)
    targets = [
        _Target(
            "inspection_reports", _table(InspectionRecord), InspectionRecord.created_at < now - retention.inspections
        ),
        _Target("leads", _table(LeadEvent), LeadEvent.created_at < now - retention.leads),
        *_request_targets(ServiceRequest.created_at < now - retention.leads),
        _Target("referrals", _table(Referral), Referral.created_at < now - retention.leads),
        _Target("sign_in_links", _table(LoginToken), LoginToken.expires_at <= now),
        _Target("portal_sessions", _table(PortalSession), PortalSession.expires_at <= now),
        _Target(
            "emails",
            _table(OutboxMessage),
            OutboxMessage.status.in_(FINISHED_MAIL) & (OutboxMessage.created_at < now - retention.mail),
        ),
        *_app_targets(_finished_grants(now), OAuthToken.expires_at <= now),
        _Target("audit_entries", _table(PartnerAuditEntry), PartnerAuditEntry.created_at < now - retention.audit),
    ]
    async with database.session() as session, session.begin():
        unlinked = await _unlink_reports(session, old_reports.scalar_subquery(), dry_run)
        counts = await _apply(session, targets, dry_run)
    return Deleted(counts, reports_unlinked=unlinked)


async def forget(database: Database, email: str, *, dry_run: bool = False) -> Deleted:
    """Delete what is stored about the person at `email`: reports, leads carrying it, mail, sign-ins, keys, account.

    Leads that carried the address as a contact go whole (a lead links to a report only when it does); the
    anonymous leads a person's requests made hold nothing that leads back to them and stay.
    """
    address = email.strip().lower()
    targets = [
        _Target("inspection_reports", _table(InspectionRecord), InspectionRecord.email == address),
        _Target("leads", _table(LeadEvent), LeadEvent.contact_email == address),
        *_request_targets(ServiceRequest.contact_email == address),
        _Target("sign_in_links", _table(LoginToken), LoginToken.email == address),
        _Target("portal_sessions", _table(PortalSession), PortalSession.email == address),
        _Target("emails", _table(OutboxMessage), OutboxMessage.to_address == address),
        *_app_targets(OAuthGrant.email == address),
        _Target("api_keys", _table(ApiKey), ApiKey.owner_email == address),
        _Target("developer_accounts", _table(Developer), Developer.email == address),
    ]
    async with database.session() as session, session.begin():
        counts = await _apply(session, targets, dry_run)
    return Deleted(counts)
